"""The WSGI server of placement-ext-nfvo and placement-ext-homing-api,
and :func:`serve`, their process's serving until SIGTERM or SIGINT."""

import sys
import threading
from collections.abc import Callable

from oslo_config import cfg
from oslo_log import log as logging
from waitress import server as waitress_server

from placement_ext import service
from placement_ext.conf import api_server as api_server_conf

LOG = logging.getLogger(__name__)


class HttpServer:
    """A WSGI application served by waitress, as OpenStack serves APIs.

    Why waitress: a production WSGI server on the standard library alone
    (no eventlet, no C extension), kept by the Pylons project, used by
    Placement-style deployments that do not front the API with Apache.
    It bounds what a client can hold before the application sees a
    request, which the ``wsgiref`` loop it replaces did not:

    - time: a connection that sends nothing for ``client_timeout``
      seconds is closed (idle, or a request that stopped arriving) at
      the next sweep (every ``IDLE_SWEEP_S`` s, in
      :mod:`placement_ext.conf.api_server`): ``connection_limit`` idle
      clients hold the server ``client_timeout`` + 1 s at most (11 s
      with the default options);
    - connections: at most ``connection_limit`` are open, further
      clients wait in the listen backlog (1024) instead of being reset;
      they are multiplexed on one I/O thread, not a thread each;
    - workers: ``workers`` threads run the application, the rest of the
      requests wait for one, fully read;
    - memory: a body (chunked or not) larger than ``max_body_size`` is
      answered 413 before the application runs; a body above 512 KiB is
      spooled to a temporary file while it arrives, not kept in memory;
      a ``Content-Length`` that is not a number is answered 400.

    cheroot would do as well; waitress needs no threads per connection.
    """

    def __init__(self, app: Callable, host: str, port: int, *,
                 workers: int, connection_limit: int, client_timeout: int,
                 max_body_size: int, ident: str) -> None:
        self._server = waitress_server.create_server(
            app, host=host, port=port, threads=workers,
            connection_limit=connection_limit,
            channel_timeout=client_timeout,
            cleanup_interval=api_server_conf.IDLE_SWEEP_S,
            max_request_body_size=max_body_size,
            ident=ident, expose_tracebacks=False,
            clear_untrusted_proxy_headers=True)

    @property
    def port(self) -> int:
        return self._server.effective_port

    def run(self) -> None:
        """Serve until :meth:`stop` (from another thread)."""
        self._server.run()

    def stop(self) -> None:
        """Stop taking connections, let the requests in progress end
        (up to 5 s), then close every connection; :meth:`run` returns."""
        server = self._server
        server.accepting = False
        server.task_dispatcher.shutdown(cancel_pending=False, timeout=5)
        while server._map:  # run() returns once nothing is left to poll
            for dispatcher in list(server._map.values()):
                dispatcher.close()


def serve(app: Callable, host: str, port: int, prog: str,
          opts: cfg.ConfigOpts | object,
          services: list | None = None) -> int:
    """Serve ``app`` on ``host:port`` with an
    :class:`HttpServer` sized by
    ``opts`` (the service's option group: ``api_workers``,
    ``api_connection_limit``, ``api_client_timeout``,
    ``api_max_body_size``) until SIGTERM or SIGINT; 1 when the address
    cannot be listened on. ``services`` (started already) are stopped
    after the server, in reverse order."""
    try:
        server = HttpServer(
            app, host, port, workers=opts.api_workers,
            connection_limit=opts.api_connection_limit,
            client_timeout=opts.api_client_timeout,
            max_body_size=opts.api_max_body_size, ident=prog)
    except OSError as exc:
        sys.stderr.write(f'{prog}: cannot listen on {host}:{port}: '
                         f'{exc.strerror}\n')
        service.stop_all(services or [])
        return 1
    LOG.info('%s listening on %s:%s', prog, host, server.port)
    thread = threading.Thread(target=server.run, name='http-server',
                              daemon=True)
    thread.start()
    try:
        service.serve([], threading.Event())
    finally:
        server.stop()
        thread.join()
        service.stop_all(services or [])
    LOG.info('%s exited', prog)
    return 0
