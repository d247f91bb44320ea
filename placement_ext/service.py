"""Process side of a service: an RPC server, periodic tasks, shutdown.

Plain threads, no eventlet: oslo.messaging's threading executor runs
the RPC calls, and each periodic task is a thread that sleeps on an
``Event``, so stopping never waits for a sleep to end. The same classes
run a service in its own process (``placement-ext-conductor``) and
inside another program (:mod:`placement_ext.embedded`).
"""

import glob
import os
import re
import signal
import sys
import threading
from collections.abc import Callable
from collections.abc import Iterable

import oslo_messaging
from oslo_config import cfg
from oslo_log import log as logging
from pbr import version as pbr_version

from placement_ext import conf as pe_conf
from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import rpc
from placement_ext.api import server as http_server
from placement_ext.conf import paths
from placement_ext.db import api as db_api
from placement_ext.db import migration as db_migration

LOG = logging.getLogger(__name__)

# How a service module builds its service: (conf, transport, host,
# database); see launch().
ServiceFactory = Callable[
    [cfg.ConfigOpts, oslo_messaging.Transport, str, object], 'RPCService']


class PeriodicTask:
    """Call ``func(context)`` every ``interval`` seconds in a thread.

    The first run starts at once. An exception is logged and the task
    keeps its schedule: one failed run must not stop lease handling for
    good. Each run gets a fresh admin context, so its log lines carry
    their own request id.
    """

    def __init__(self, name: str, interval: float,
                 func: Callable[[pe_context.RequestContext], None],
                 conf: cfg.ConfigOpts | None = None) -> None:
        self.name = name
        self.interval = interval
        self._func = func
        self._conf = conf
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> None:
        ctx = pe_context.get_admin_context(self._conf, overwrite=True)
        try:
            self._func(ctx)
        except Exception:
            LOG.exception('Periodic task %s failed; next run in %s s',
                          self.name, self.interval)

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._loop, name=f'periodic-{self.name}', daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop scheduling; wait for a run in progress to finish."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.run_once()
            self._stop.wait(self.interval)


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
        self._server = rpc.get_server(conf, transport, topic, endpoints,
                                      host)

    def add_periodic_task(
            self, name: str, interval: float,
            func: Callable[[pe_context.RequestContext], None]) -> None:
        """Run ``func(context)`` every ``interval`` s while started."""
        self.periodic_tasks.append(
            PeriodicTask(name, interval, func, conf=self._conf))

    @property
    def executor_type(self) -> str:
        return self._server.executor_type

    def start(self) -> None:
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
        LOG.info('%s stopped', self.name)


def for_endpoint(conf: cfg.ConfigOpts, transport: oslo_messaging.Transport,
                 host: str, endpoint: rpc.Endpoint) -> RPCService:
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


def version() -> str:
    return pbr_version.VersionInfo('placement-ext').version_string()


def load_config(args: list[str], prog: str | None = None,
                default_config_files: list[str] | None = None,
                ) -> cfg.ConfigOpts:
    """Build, parse and validate a ConfigOpts, with oslo.log's options.

    :raises: InvalidInput naming the bad option (``[group] name``), the
        reason and the file, in one line, for any configuration error.
    """
    conf = cfg.ConfigOpts()
    pe_conf.register_opts(conf)
    logging.register_options(conf)
    try:
        conf(args, project='placement_ext', prog=prog, version=version(),
             default_config_files=default_config_files)
        pe_conf.validate(conf)
    except cfg.ConfigFileValueError as exc:
        raise _invalid_value(conf, exc)
    except cfg.Error as exc:
        raise exception.InvalidInput(field='configuration', reason=str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        raise unreadable_config(args, default_config_files, exc)
    return conf


def unreadable_config(args: list[str],
                      default_config_files: list[str] | None,
                      exc: Exception) -> exception.InvalidInput:
    """Name the configuration file oslo.config could not read.

    oslo.config lets a directory given as ``--config-file`` (OSError) or a
    file that is not UTF-8 (UnicodeDecodeError, with no file name) escape
    as they are; the file may also be one of a ``--config-dir``'s (or of
    the default ``placement_ext.conf.d`` directories).
    """
    files = _option_values(args, '--config-file') + \
        list(default_config_files or ())
    candidates = [('--config-file', path) for path in files]
    for directory in _option_values(args, '--config-dir') + \
            cfg.find_config_dirs('placement_ext'):
        candidates += [('--config-dir', path) for path in
                       sorted(glob.glob(os.path.join(directory, '*.conf')))]
    for field, path in candidates:
        try:
            with open(path, encoding='utf-8') as stream:
                stream.read()
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else \
                f'not UTF-8 text ({error.reason} at byte {error.start})'
            return exception.InvalidInput(field=field,
                                          reason=f'{path}: {reason}')
    return exception.InvalidInput(field='configuration', reason=str(exc))


def _option_values(args: list[str], option: str) -> list[str]:
    """Values of ``option`` in ``args`` (``--opt V`` and ``--opt=V``)."""
    pairs = zip(args, args[1:], strict=False)
    values = [value for flag, value in pairs if flag == option]
    return values + [arg.split('=', 1)[1] for arg in args
                     if arg.startswith(option + '=')]


# oslo.config's text for a value its type refuses
_VALUE_ERROR = re.compile(
    r"Value for option (?P<name>\S+) from (?P<source>.*) is not valid: "
    r"(?P<reason>.*)", re.DOTALL)
_SOURCE_FILE = re.compile(r"detail='(?P<file>[^']*)'")


def _invalid_value(conf: cfg.ConfigOpts,
                   exc: cfg.ConfigFileValueError) -> exception.InvalidInput:
    """Name the option with its group, which oslo.config's text omits."""
    match = _VALUE_ERROR.match(str(exc))
    if match is None:
        return exception.InvalidInput(field='configuration', reason=str(exc))
    reason = match['reason'].strip()
    source = _SOURCE_FILE.search(match['source'])
    if source:
        reason = f"{reason} (in {source['file']})"
    return exception.InvalidInput(
        field=_failing_option(conf, match['name']), reason=reason)


def _failing_option(conf: cfg.ConfigOpts, name: str) -> str:
    """``[group] name`` of the option called ``name`` that fails to read."""
    for section in conf.list_all_sections():
        try:
            getattr(conf if section == 'DEFAULT' else conf[section], name)
        except cfg.ConfigFileValueError:
            return f'[{section}] {name}'
        except (cfg.Error, AttributeError):
            continue
    return name


def run_service(prog: str, factory: ServiceFactory,
                argv: list[str] | None = None) -> int:
    """Main of a service process: serve until SIGTERM/SIGINT.

    :returns: the exit status: 0 after a graceful stop, 1 when the
        configuration is invalid (one line on stderr, no traceback).
    """
    try:
        conf = load_config(sys.argv[1:] if argv is None else argv, prog)
        if conf.log_file:
            # oslo.log would create it world-readable (umask 022); a
            # missing directory is oslo.log's error to report
            paths.private_file(os.path.join(conf.log_dir or '',
                                            conf.log_file), make_dirs=False)
        logging.setup(conf, 'placement_ext', version=version())
        transport = rpc.get_transport(conf)
    except exception.InvalidInput as exc:
        return _refuse(prog, exc.detail)
    except OSError as exc:
        return _refuse(prog, f'cannot open the log file: {exc}')
    # the start-up lines carry a request id of their own
    pe_context.get_admin_context(conf, overwrite=True)
    LOG.info('Starting %(prog)s %(version)s',
             {'prog': prog, 'version': version()})
    if rpc.is_in_process(conf):
        LOG.warning('transport_url is %s: only this process can reach the '
                    'service; set transport_url to a message broker',
                    conf.transport_url)
    try:
        # bounded: oslo.messaging would retry an unreachable broker for ever
        rpc.wait_for_broker(conf, conf.broker_wait_timeout)
        services = launch(conf, transport, [factory], conf.host)
    except Exception as exc:
        # typically the broker refusing us (credentials, vhost): one line
        # for the operator (oslo.log appends the error), the traceback
        # only at debug level
        transport.cleanup()
        LOG.error('%s could not start', prog)
        LOG.debug('Start-up failure', exc_info=True)
        if conf.log_file:
            return _refuse(prog, f'could not start: {exc}')
        return 1
    try:
        serve(services)
    finally:
        transport.cleanup()
    LOG.info('%s exited', prog)
    return 0


def _refuse(prog: str, message: str) -> int:
    sys.stderr.write(f'{prog}: {message}\n')
    return 1


def serve_wsgi(app: Callable, host: str, port: int, prog: str,
               opts: cfg.ConfigOpts | object,
               services: list | None = None) -> int:
    """Serve ``app`` on ``host:port`` with an
    :class:`~placement_ext.api.server.HttpServer` sized by
    ``opts`` (the service's option group: ``api_workers``,
    ``api_connection_limit``, ``api_client_timeout``,
    ``api_max_body_size``) until SIGTERM or SIGINT; 1 when the address
    cannot be listened on. ``services`` (started already) are stopped
    after the server, in reverse order."""
    try:
        server = http_server.HttpServer(
            app, host, port, workers=opts.api_workers,
            connection_limit=opts.api_connection_limit,
            client_timeout=opts.api_client_timeout,
            max_body_size=opts.api_max_body_size, ident=prog)
    except OSError as exc:
        sys.stderr.write(f'{prog}: cannot listen on {host}:{port}: '
                         f'{exc.strerror}\n')
        stop_all(services or [])
        return 1
    LOG.info('%s listening on %s:%s', prog, host, server.port)
    thread = threading.Thread(target=server.run, name='http-server',
                              daemon=True)
    thread.start()
    try:
        serve([], threading.Event())
    finally:
        server.stop()
        thread.join()
        stop_all(services or [])
    LOG.info('%s exited', prog)
    return 0
