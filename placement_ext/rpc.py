"""RPC plumbing every placement_ext service and client shares: the
transport, the wait for the broker, and the context serializer.

Each service (``conductor/``, ``manager/``) keeps the tacker
``conductor_rpc_v2`` shape: ``rpcapi.py`` (client, subclass of
:class:`placement_ext.rpc_client.ServiceAPI`), ``manager.py`` (endpoint,
subclass of :class:`placement_ext.rpc_server.Endpoint`) and
``service.py`` (wiring).
"""

import importlib
import socket

import oslo_messaging
from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import polling

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
