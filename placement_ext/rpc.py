"""RPC plumbing shared by every placement_ext service.

Each service (``conductor/``, ``manager/``) keeps the tacker
``conductor_rpc_v2`` shape: ``rpcapi.py`` (client, subclass of
:class:`ServiceAPI`), ``manager.py`` (endpoint, subclass of
:class:`Endpoint`) and ``service.py`` (wiring). This module holds what
they share: the transport, the context serializer, the client and server
factories, and the diagnostic methods every service answers.
"""

import functools
import importlib
import socket
import time
from collections.abc import Callable

import oslo_messaging
from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_log import log as logging
from sqlalchemy import exc as sa_exc

from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import polling
from placement_ext import validation
from placement_ext.schemas import validate as schema_validate

LOG = logging.getLogger(__name__)

# A remote exception from these modules is re-raised on the caller as the
# same class with the same kwargs (so ``detail`` and ``code`` survive);
# any other becomes oslo.messaging's RemoteError.
ALLOWED_EXMODS = [exception.__name__]

# NOTE: oslo.messaging 18.x registers these groups on the global cfg.CONF
# only (at import), yet every RPC call and dispatch reads them from the
# transport's conf: on any other ConfigOpts each call fails with
# NoSuchOptError. Register them on ours, as oslo_messaging.conffixture
# does for tests. (module, name of its option list and of the group)
_GLOBAL_ONLY_OPTS = (
    ('oslo_messaging._metrics.client', 'oslo_messaging_metrics'),
    ('oslo_messaging._tracing.client', 'oslo_messaging_tracing'),
)


def _register_global_only_opts(conf: cfg.ConfigOpts) -> None:
    for module_name, group in _GLOBAL_ONLY_OPTS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue  # a release without the feature does not read them
        conf.register_opts(getattr(module, group), group=group)


def get_transport(conf: cfg.ConfigOpts) -> oslo_messaging.Transport:
    """Return the RPC transport ``conf.transport_url`` names.

    The embedded default ``fake://`` only connects servers and clients
    that share this very transport object, in one process
    (:func:`placement_ext.embedded.embedded_services`).

    :raises: InvalidInput when the URL is malformed or names a transport
        that is not installed.
    """
    _register_global_only_opts(conf)
    try:
        return oslo_messaging.get_rpc_transport(
            conf, allowed_remote_exmods=ALLOWED_EXMODS)
    except (oslo_messaging.InvalidTransportURL,
            oslo_messaging.DriverLoadFailure) as exc:
        raise exception.InvalidInput(field='transport_url', reason=str(exc))


# oslo.messaging's drivers that talk to a broker over TCP, and its port
# when the URL names none
_BROKER_PORTS = {'rabbit': 5672, 'kombu': 5672, 'amqp': 5672}


def wait_for_broker(conf: cfg.ConfigOpts, timeout: float) -> None:
    """Return once a broker host of ``transport_url`` accepts TCP.

    oslo.messaging retries an unreachable broker for ever, even for a call
    with a timeout (the reply queue is declared first), so callers that
    must end check the broker themselves first. Transports without a
    broker (``fake://``) pass at once.

    :raises ServiceUnavailable: no host accepted within ``timeout`` s.
    """
    url = oslo_messaging.TransportURL.parse(conf, conf.transport_url)
    default_port = _BROKER_PORTS.get(url.transport)
    if default_port is None or not url.hosts:
        return
    addresses = [(h.hostname or 'localhost', h.port or default_port)
                 for h in url.hosts]
    errors = []
    # one connection attempt never outlasts a short total wait
    connect_timeout = min(5.0, max(timeout, 0.5))

    def accepted() -> bool | None:
        for address in addresses:
            try:
                socket.create_connection(address,
                                         timeout=connect_timeout).close()
                return True
            except OSError as exc:
                errors.append(exc)
        return None

    if not polling.until(accepted, timeout=timeout, interval=1.0):
        where = ', '.join(f'{host}:{port}' for host, port in addresses)
        raise exception.ServiceUnavailable(
            service='message broker',
            reason=f'{where} did not accept a connection within '
                   f'{timeout:g} s ({errors[-1]})')


def is_in_process(conf: cfg.ConfigOpts) -> bool:
    """True when the transport only reaches servers of this process."""
    url = oslo_messaging.TransportURL.parse(conf, conf.transport_url)
    return url.transport == 'fake'


class RequestContextSerializer(oslo_messaging.Serializer):
    """Send the caller's RequestContext (and its request id) with a call.

    On the server the context is rebuilt with ``overwrite=True``, which
    makes it the handling thread's current context: oslo.log then prints
    the caller's request id on every line the endpoint logs.
    """

    def __init__(self, conf: cfg.ConfigOpts | None = None) -> None:
        self._conf = conf
        # entities go through jsonutils on both transports, so fake://
        # accepts exactly what a real broker accepts
        self._base = oslo_messaging.JsonPayloadSerializer()

    def serialize_entity(self, ctxt: object, entity: object) -> object:
        return self._base.serialize_entity(ctxt, entity)

    def deserialize_entity(self, ctxt: object, entity: object) -> object:
        return self._base.deserialize_entity(ctxt, entity)

    def serialize_context(self, ctxt: pe_context.RequestContext) -> dict:
        return ctxt.to_dict()

    def deserialize_context(self, ctxt: dict) -> pe_context.RequestContext:
        return pe_context.RequestContext.from_dict(ctxt, config=self._conf)


def get_client(conf: cfg.ConfigOpts, transport: oslo_messaging.Transport,
               topic: str, version: str,
               version_cap: str | None = None) -> oslo_messaging.RPCClient:
    """Build an RPC client for ``topic`` speaking API ``version``.

    ``version_cap`` pins the newest version this client may send, for
    rolling upgrades: new methods check ``client.can_send_version()``.
    """
    target = oslo_messaging.Target(topic=topic, version=version)
    return oslo_messaging.get_rpc_client(
        transport, target, version_cap=version_cap,
        serializer=RequestContextSerializer(conf))


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
        serializer=RequestContextSerializer(conf),
        access_policy=SchemaAccessPolicy)


class ServiceAPI:
    """Client side of one service's RPC API; the client is built once.

    Subclasses set ``SERVICE`` (also the name of the configuration group
    holding the service's ``topic``) and ``VERSION``, and add one-line
    methods calling :meth:`_call` (or ``self.client.prepare(...).cast``).
    ``version_cap`` pins the newest API version sent while older servers
    still run (rolling upgrades).
    """

    SERVICE = 'service'
    VERSION = '1.0'

    def __init__(self, conf: cfg.ConfigOpts,
                 transport: oslo_messaging.Transport,
                 version_cap: str | None = None) -> None:
        self._conf = conf
        self.topic = conf[self.SERVICE].topic
        self.client = get_client(conf, transport, self.topic, self.VERSION,
                                 version_cap=version_cap)
        self._broker_seen = False
        # time.monotonic() by which every call must be answered: set by a
        # caller whose whole run is bounded (the CLI's --timeout), and
        # that budget's seconds, which a timeout names (not what was left
        # of it, which the caller never asked for)
        self.deadline: float | None = None
        self.allowed: float | None = None

    def can_send_version(self, version: str) -> bool:
        return self.client.can_send_version(version)

    def ping(self, context: pe_context.RequestContext,
             timeout: float | None = None) -> dict:
        return self._call(context, 'ping', timeout=timeout)

    def wait_until_up(self, context: pe_context.RequestContext,
                      timeout: float = 60, every: float = 2) -> dict:
        """Ping until the service answers; its pong.

        A call sent before a starting server has bound its queue is
        dropped by the broker, so one long ping can wait in vain; short
        ones are repeated instead.

        :raises ServiceUnavailable: no answer within ``timeout`` seconds.
        """
        return polling.until(
            functools.partial(self.ping, context, timeout=every),
            timeout=timeout, retry_on=(exception.ServiceUnavailable,))

    def echo(self, context: pe_context.RequestContext, text: str,
             repeat: int = 1) -> dict:
        return self._call(context, 'echo', text=text, repeat=repeat)

    def _call(self, context: pe_context.RequestContext, method: str,
              timeout: float | None = None, version: str | None = None,
              **kwargs: object) -> object:
        """Call ``method`` and turn messaging failures into our errors.

        ``version`` is the API version that introduced ``method`` (check
        ``can_send_version(version)`` first while a cap is set). Our own
        exceptions pass through unchanged (same class, same ``code`` and
        ``detail``, see ALLOWED_EXMODS).
        """
        # what cannot travel (too deep for the JSON encoder, which
        # overflows at about 450 levels; not valid Unicode) is refused
        # before sending, as the endpoint's schema would refuse it
        schema_validate.check_arguments(kwargs)
        timeout = self._timeout(method, timeout)
        if not self._broker_seen:
            wait_for_broker(self._conf, timeout)
            self._broker_seen = True
        cctxt = self.client.prepare(timeout=timeout,
                                    version=version or self.VERSION)
        try:
            return cctxt.call(context, method, **kwargs)
        except oslo_messaging.MessagingTimeout:
            waited = f'{round(self.allowed or timeout, 1):g}'
            raise exception.ServiceUnavailable(
                service=self.SERVICE,
                reason=f'no reply to {method} on topic {self.topic} '
                       f'within {waited} s; is it running?')
        except oslo_messaging.RemoteError as exc:
            # an unexpected server failure, or (on a broker) a method or
            # version the server does not have
            raise exception.ServiceError(
                service=self.SERVICE, reason=f'{exc.exc_type}: {exc.value}')
        except oslo_messaging.RPCDispatcherError as exc:
            # the same refusal on fake://, which passes exceptions as is
            raise exception.ServiceError(
                service=self.SERVICE,
                reason=f'{type(exc).__name__}: {exc}')
        except (oslo_messaging.ClientSendError,
                oslo_messaging.MessageDeliveryFailure) as exc:
            raise exception.ServiceUnavailable(service=self.SERVICE,
                                               reason=str(exc))

    def _timeout(self, method: str, timeout: float | None) -> float:
        """Seconds ``method`` may wait: its own (or ``rpc_response_timeout``),
        or, with a :attr:`deadline`, what is left of it: the caller's
        budget for its whole run replaces the per-call defaults.

        :raises ServiceUnavailable: the deadline has passed.
        """
        timeout = timeout or self._conf.rpc_response_timeout
        if self.deadline is None:
            return timeout
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise exception.ServiceUnavailable(
                service=self.SERVICE,
                reason=f'the time allowed ran out before {method} could be '
                       f'sent')
        return left


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
