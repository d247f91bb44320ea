"""The client side of a service's RPC API: :class:`ServiceAPI`, the
base of each service's ``rpcapi.py``, and the client factory."""

import functools
import time

import oslo_messaging
from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_log import log as logging
from sqlalchemy import exc as sa_exc

from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import polling
from placement_ext import rpc
from placement_ext.conf import upgrade_levels
from placement_ext.db import api as db_api
from placement_ext.objects import service as service_obj
from placement_ext.schemas import validate as schema_validate
from placement_ext.vocabulary import service_versions

LOG = logging.getLogger(__name__)


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
        serializer=rpc.RequestContextSerializer(conf))


def pinned_version(conf: cfg.ConfigOpts, service: str) -> str | None:
    """The newest ``service`` API version to send: ``[upgrade_levels]
    <service>``, with ``auto`` resolved from the services table."""
    pinned = conf.upgrade_levels[service]
    if pinned != upgrade_levels.AUTO:
        return pinned
    binary = f'placement-ext-{service}'
    database = db_api.Database(conf, create=False)
    try:
        oldest = service_obj.minimum_version(database, binary,
                                             conf.service_down_time)
    except (sa_exc.SQLAlchemyError, db_exc.DBError) as exc:
        LOG.warning('[upgrade_levels] %(service)s = auto: cannot read the '
                    'services table (%(exc)s); sending the newest version',
                    {'service': service, 'exc': exc})
        return None
    finally:
        database.dispose()
    cap = auto_cap(service, oldest)
    LOG.info('[upgrade_levels] %(service)s = auto: oldest live %(binary)s '
             'is version %(oldest)s, capping the API at %(cap)s',
             {'service': service, 'binary': binary, 'oldest': oldest,
              'cap': cap or 'none'})
    return cap


def auto_cap(service: str, oldest: int | None) -> str | None:
    """The API version of ``service`` that a service of version
    ``oldest`` serves (None, no cap: no live service, or one newer than
    this code)."""
    history = service_versions.RPC_HISTORY
    if oldest is None or oldest >= max(history):
        return None
    known = [version for version in history if version <= oldest]
    return history[max(known) if known else min(history)][service]


class ServiceAPI:
    """Client side of one service's RPC API; the client is built once.

    Subclasses set ``SERVICE`` (also the name of the configuration group
    holding the service's ``topic``) and ``VERSION``, and add one-line
    methods calling :meth:`_call` (or ``self.client.prepare(...).cast``).
    ``version_cap`` pins the newest API version sent while older servers
    still run (rolling upgrades); by default ``[upgrade_levels]
    <SERVICE>`` (:func:`pinned_version`).
    """

    SERVICE = 'service'
    VERSION = '1.0'

    def __init__(self, conf: cfg.ConfigOpts,
                 transport: oslo_messaging.Transport,
                 version_cap: str | None = None) -> None:
        self._conf = conf
        self.topic = conf[self.SERVICE].topic
        if version_cap is None:
            version_cap = pinned_version(conf, self.SERVICE)
        self.version_cap = version_cap
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
        return self._call(context, 'ping', timeout=timeout, version='1.0')

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
        return self._call(context, 'echo', text=text, repeat=repeat,
                          version='1.0')

    def _call(self, context: pe_context.RequestContext, method: str,
              timeout: float | None = None, version: str | None = None,
              **kwargs: object) -> object:
        """Call ``method`` and turn messaging failures into our errors.

        ``version`` is the API version that introduced ``method`` (check
        ``can_send_version(version)`` first while a cap is set). Our own
        exceptions pass through unchanged (same class, same ``code`` and
        ``detail``, see ``rpc.ALLOWED_EXMODS``).
        """
        # what cannot travel (too deep for the JSON encoder, which
        # overflows at about 450 levels; not valid Unicode) is refused
        # before sending, as the endpoint's schema would refuse it
        schema_validate.check_arguments(kwargs)
        timeout = self._timeout(method, timeout)
        if not self._broker_seen:
            rpc.wait_for_broker(self._conf, timeout)
            self._broker_seen = True
        cctxt = self.client.prepare(timeout=timeout,
                                    version=version or self.VERSION)
        try:
            return cctxt.call(context, method, **kwargs)
        except oslo_messaging.RPCVersionCapError:
            raise exception.ServiceError(
                service=self.SERVICE,
                reason=f'{method} needs API version '
                       f'{version or self.VERSION}, and [upgrade_levels] '
                       f'{self.SERVICE} caps this client '
                       f'at {self.version_cap} while older services run; '
                       f'finish the upgrade, then remove the cap')
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
