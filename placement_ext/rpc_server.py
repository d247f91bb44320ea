"""The server side of a service's RPC API: :class:`Endpoint`, the base
of each service's ``manager.py`` with the methods every service answers,
the access policy, the exception decorator and the server factory."""

import functools
from collections.abc import Callable

import oslo_messaging
from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_log import log as logging
from sqlalchemy import exc as sa_exc

from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import rpc
from placement_ext import validation

LOG = logging.getLogger(__name__)


def expected_exceptions(*exceptions: type) -> Callable:
    """oslo.messaging's ``expected_exceptions`` for an API method, which
    also turns a database failure into a short ServiceError.

    The method's attributes (its argument schema, which
    :class:`SchemaAccessPolicy` reads) are kept: oslo's decorator does not
    use ``functools.wraps``. A database error's text holds the SQL and
    its parameters (the whole request): it goes to the service log, and
    the caller gets the error class and the request id to look it up.
    """
    def decorator(func: Callable) -> Callable:
        @functools.wraps(func)
        def database_errors_as_ours(self: object, context: object,
                                    **kwargs: object) -> object:
            try:
                return func(self, context, **kwargs)
            except (sa_exc.SQLAlchemyError, db_exc.DBError) as exc:
                LOG.exception('Database failure in %s', func.__name__)
                request_id = getattr(context, 'request_id', None)
                raise exception.ServiceError(
                    service='database',
                    reason=f'{type(exc).__name__} (request {request_id}; '
                           f'the service log has the details)')

        expected = exceptions + (exception.ServiceError,)
        return functools.update_wrapper(
            oslo_messaging.expected_exceptions(*expected)(
                database_errors_as_ours), func)
    return decorator


class SchemaAccessPolicy(oslo_messaging.RPCAccessPolicyBase):
    """Only methods with a versioned argument schema are callable.

    oslo.messaging's default policy lets a caller reach any public
    attribute of an endpoint: ``conf`` (calling a ConfigOpts re-parses
    it and wipes the running service's configuration), ``database``,
    periodic tasks such as ``heartbeat``. Our API is exactly the methods
    decorated with :func:`placement_ext.validation.schema`; anything
    else is refused as ``NoSuchMethod``. The attribute is looked up on
    the endpoint's class, so instance attributes never qualify.
    """

    def is_allowed(self, endpoint: object, method: str) -> bool:
        return validation.is_rpc_method(getattr(type(endpoint), method, None))


def get_server(conf: cfg.ConfigOpts, transport: oslo_messaging.Transport,
               topic: str, endpoints: list,
               host: str) -> oslo_messaging.MessageHandlingServer:
    """Build (not start) an RPC server for ``topic`` on ``host``."""
    target = oslo_messaging.Target(topic=topic, server=host)
    # NOTE: no ``executor`` argument: oslo.messaging deprecated it, and
    # without eventlet monkey patching (we never patch) its default is
    # the threading executor.
    return oslo_messaging.get_rpc_server(
        transport, target, endpoints,
        serializer=rpc.RequestContextSerializer(conf),
        access_policy=SchemaAccessPolicy)


# Arguments of the diagnostic methods, API version 1.0.
PING_V1_0 = {
    'type': 'object',
    'properties': {},
    'additionalProperties': False,
}
ECHO_V1_0 = {
    'type': 'object',
    'properties': {
        'text': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'repeat': {'type': 'integer', 'minimum': 1, 'maximum': 10},
    },
    'required': ['text'],
    'additionalProperties': False,
}


class Endpoint:
    """Base of the RPC endpoints: the methods every service answers.

    Subclasses set ``SERVICE`` (also the name of the configuration group
    holding the service's ``topic``) and their own ``target`` (the
    version they implement). Only methods decorated with
    :func:`placement_ext.validation.schema` are callable over RPC
    (:class:`SchemaAccessPolicy`); every other attribute is refused.

    :param conf: the service's configuration.
    :param host: the host name the service answers as.
    :param database: the database the service reads and writes, shared
        by the endpoints of one process (see ``service.launch``).
    """

    SERVICE = 'service'
    target = oslo_messaging.Target(version='1.0')

    def __init__(self, conf: cfg.ConfigOpts, host: str,
                 database: object = None) -> None:
        self.conf = conf
        self.host = host
        self.database = database

    def stop(self) -> None:
        """Stop the work the endpoint runs apart from its RPC calls, once
        the calls have ended (none here)."""

    @expected_exceptions(exception.InvalidInput)
    @validation.schema(PING_V1_0)
    def ping(self, context: pe_context.RequestContext) -> dict:
        """Say who answered, and echo the caller's request id."""
        LOG.info('Ping answered by %(service)s on %(host)s',
                 {'service': self.SERVICE, 'host': self.host})
        return {'service': self.SERVICE, 'host': self.host,
                'version': self.target.version,
                'request_id': context.request_id}

    @expected_exceptions(exception.InvalidInput)
    @validation.schema(ECHO_V1_0)
    def echo(self, context: pe_context.RequestContext, text: str,
             repeat: int = 1) -> dict:
        """Return ``text`` ``repeat`` times: a call with checked arguments."""
        return {'echo': [text] * repeat, 'request_id': context.request_id}
