"""The RPC service life cycle: an RPC server, its periodic tasks, launch
and graceful stop.

Plain threads, no eventlet: oslo.messaging's threading executor runs
the RPC calls, and the periodic tasks run on futurist
(:mod:`placement_ext.background`), so stopping never waits for an
interval to end. The same classes run a service in its own process
(:mod:`placement_ext.cmd.rpc_service`) and inside another program
(:mod:`placement_ext.embedded`). Loading the configuration is
:mod:`placement_ext.configuration`'s; serving HTTP,
:mod:`placement_ext.api.server`'s.
"""

import functools
import signal
import threading
from collections.abc import Callable
from collections.abc import Iterable

import oslo_messaging
from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import background
from placement_ext import context as pe_context
from placement_ext import rpc
from placement_ext import rpc_server
from placement_ext.db import api as db_api
from placement_ext.db import migration as db_migration
from placement_ext.objects import service as service_obj

LOG = logging.getLogger(__name__)

# How a service module builds its service: (conf, transport, host,
# database); see launch().
ServiceFactory = Callable[
    [cfg.ConfigOpts, oslo_messaging.Transport, str, object], 'RPCService']


class PeriodicTask(background.PeriodicTask):
    """Call ``func(context)`` every ``interval`` seconds in a thread
    (:class:`placement_ext.background.PeriodicTask`: at once first, a
    failed run logged and the schedule kept). Each run gets a fresh
    admin context, so its log lines carry their own request id.
    """

    def __init__(self, name: str, interval: float,
                 func: Callable[[pe_context.RequestContext], None],
                 conf: cfg.ConfigOpts | None = None) -> None:
        super().__init__(name, interval,
                         functools.partial(_in_admin_context, conf, func))


def _in_admin_context(conf: cfg.ConfigOpts | None,
                      func: Callable[[pe_context.RequestContext], None]
                      ) -> None:
    func(pe_context.get_admin_context(conf, overwrite=True))


class RPCService:
    """One service: an RPC server for ``topic`` plus its periodic tasks."""

    def __init__(self, conf: cfg.ConfigOpts,
                 transport: oslo_messaging.Transport, name: str, topic: str,
                 endpoints: list, host: str) -> None:
        self.name = name
        self.topic = topic
        self.host = host
        self.endpoints = endpoints
        self.periodic_tasks: list[PeriodicTask] = []
        self._conf = conf
        self._recorded_in: db_api.Database | None = None
        self._server = rpc_server.get_server(conf, transport, topic,
                                             endpoints, host)

    def add_periodic_task(
            self, name: str, interval: float,
            func: Callable[[pe_context.RequestContext], None]) -> None:
        """Run ``func(context)`` every ``interval`` s while started."""
        self.periodic_tasks.append(
            PeriodicTask(name, interval, func, conf=self._conf))

    def record_in(self, database: db_api.Database) -> None:
        """Keep this service's row in the services table of ``database``
        (its code's version and a heartbeat every ``report_interval``
        s) while it runs; see :mod:`placement_ext.objects.service`."""
        self._recorded_in = database
        self.add_periodic_task(
            'service-heartbeat', self._conf.report_interval,
            lambda context: service_obj.heartbeat(
                database, self.name, self.host, self.topic))

    @property
    def executor_type(self) -> str:
        return self._server.executor_type

    def start(self) -> None:
        if self._recorded_in is not None:
            # before serving: a contract run from now on sees this version
            service_obj.register(self._recorded_in, self.name, self.host,
                                 self.topic)
        self._server.start()
        for task in self.periodic_tasks:
            task.start()
        LOG.info('%(name)s listening on topic %(topic)s as host %(host)s',
                 {'name': self.name, 'topic': self.topic, 'host': self.host})

    def stop(self) -> None:
        """Stop taking calls (those in progress go on); stop periodic tasks."""
        self._server.stop()
        for task in self.periodic_tasks:
            task.stop()

    def wait(self) -> None:
        """Wait for the calls in progress to finish after :meth:`stop`."""
        self._server.wait()
        for endpoint in self.endpoints:
            endpoint.stop()
        if self._recorded_in is not None:
            try:
                service_obj.remove(self._recorded_in, self.name, self.host)
            except Exception:
                # the row goes stale after service_down_time instead
                LOG.warning('Could not remove %s from the services table',
                            self.name, exc_info=True)
        LOG.info('%s stopped', self.name)


def for_endpoint(conf: cfg.ConfigOpts, transport: oslo_messaging.Transport,
                 host: str, endpoint: rpc_server.Endpoint) -> RPCService:
    """The service ``placement-ext-<SERVICE>`` serving ``endpoint``.

    It listens on the ``topic`` of the configuration group named like
    the endpoint's ``SERVICE``.
    """
    return RPCService(conf, transport, f'placement-ext-{endpoint.SERVICE}',
                      conf[endpoint.SERVICE].topic, [endpoint], host)


def launch(conf: cfg.ConfigOpts, transport: oslo_messaging.Transport,
           factories: Iterable[ServiceFactory], host: str) -> list:
    """Build and start one service per factory; stop them all on error.

    This is the one place where a process builds its services, so what
    every endpoint needs from the process is created here, once.
    """
    database = db_api.Database(conf)
    db_migration.ensure_current(conf, database)
    services = [factory(conf, transport, host, database)
                for factory in factories]
    if not rpc.is_in_process(conf):
        # in-process services (fake://) are the CLI's own, for one command
        for svc in services:
            svc.record_in(database)
    started = []
    try:
        for svc in services:
            svc.start()
            started.append(svc)
    except BaseException:
        stop_all(started)
        raise
    return services


def stop_all(services: list) -> None:
    """Stop services in the reverse order of their start, then wait.

    The waits run side by side: each lasts at least a second (the idle
    timeout of oslo.messaging's worker threads), so a process with two
    services stops in one second rather than two.
    """
    for svc in reversed(services):
        svc.stop()
    waiters = [threading.Thread(target=svc.wait, name=f'wait-{svc.name}')
               for svc in services]
    for waiter in waiters:
        waiter.start()
    for waiter in waiters:
        waiter.join()


def serve(services: list, stop: threading.Event | None = None) -> None:
    """Block until SIGTERM or SIGINT (or ``stop`` is set), then stop.

    Must run in the main thread when ``stop`` is not given (Python only
    delivers signals there). Calls in progress finish before it returns.
    """
    stop = stop or threading.Event()

    def _on_signal(signum: int, frame: object) -> None:
        LOG.info('Caught %s, stopping gracefully',
                 signal.Signals(signum).name)
        stop.set()

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            previous[signum] = signal.signal(signum, _on_signal)
    try:
        stop.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        stop_all(services)
