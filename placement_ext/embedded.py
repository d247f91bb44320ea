"""All-in-one mode: the conductor and the manager inside this process.

With the embedded default transport ``fake://`` an RPC server only
hears clients of the same process that share its transport object, so
a program that calls the services (the operator CLI, a demo, a test)
runs them in its own threads for as long as it needs them.
"""

import contextlib
from collections.abc import Iterator

import oslo_messaging
from oslo_config import cfg

from placement_ext import rpc
from placement_ext import service
from placement_ext.conductor import service as conductor_service
from placement_ext.manager import service as manager_service

FACTORIES = (conductor_service.create_service,
             manager_service.create_service)


@contextlib.contextmanager
def embedded_services(
        conf: cfg.ConfigOpts,
        transport: oslo_messaging.Transport | None = None,
        host: str | None = None) -> Iterator[oslo_messaging.Transport]:
    """Run conductor and manager RPC servers in threads until exit.

    Yields the transport that reaches them; build clients on it. Without
    ``transport`` one is built from ``conf`` and cleaned up on exit.
    Calls in progress finish before the block exits.
    """
    own_transport = transport is None
    if own_transport:
        transport = rpc.get_transport(conf)
    try:
        services = service.launch(conf, transport, FACTORIES,
                                  host or conf.host)
        try:
            yield transport
        finally:
            service.stop_all(services)
    finally:
        if own_transport:
            transport.cleanup()
