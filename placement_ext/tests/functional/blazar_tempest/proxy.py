"""Devstack's Apache paths on port 80, for Blazar's gabbi tests.

blazar-tempest-plugin's API tests hard-code ``http://127.0.0.1/`` with
``reservation/...`` and ``compute/...`` (devstack serves every API under
a path prefix of port 80); the embedded cloud serves each on a port of
its own. This proxy strips the prefix and forwards to that port. It
listens on 127.0.0.1 only, for the length of one test.

It also keeps tempest's own users until the test's end: a ``DELETE`` whose
path matches ``deferred`` is answered 204 and not forwarded (tempest
deletes its users after each class; Blazar ends a lease through its
creator's trust, so a lease a failed test left must be deleted while its
creator still exists; the test deletes both afterwards).
"""

import http.client
import http.server
import re
import socketserver
import threading
import urllib.parse

import fixtures

PORT = 80
# hop-by-hop headers (RFC 9110 7.6.1) and the ones http.client sets
_NOT_FORWARDED = frozenset(('connection', 'keep-alive', 'transfer-encoding',
                            'te', 'trailer', 'upgrade', 'host',
                            'content-length'))


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    routes: dict[str, str]
    deferred: re.Pattern | None


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server: _Server

    def _forward(self) -> None:
        deferred = self.server.deferred
        if (self.command == 'DELETE' and deferred
                and deferred.match(self.path)):
            self.send_response(204)
            self.send_header('Content-Length', '0')
            self.end_headers()
            return
        prefix, _, rest = self.path.lstrip('/').partition('/')
        target = self.server.routes.get(prefix)
        if target is None:
            self.send_error(404, f'no service under /{prefix}')
            return
        url = urllib.parse.urlsplit(target)
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in _NOT_FORWARDED}
        conn = http.client.HTTPConnection(url.netloc, timeout=300)
        try:
            conn.request(self.command, f'{url.path}/{rest}', body, headers)
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        self.send_response(resp.status, resp.reason)
        for key, value in resp.getheaders():
            if key.lower() not in _NOT_FORWARDED:
                self.send_header(key, value)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _forward

    def log_message(self, format: str, *args) -> None:
        pass   # the services log every request themselves


class DevstackPaths(fixtures.Fixture):
    """``http://127.0.0.1/<prefix>/...`` -> ``routes[prefix] + '/...'``;
    a DELETE of a path matching ``deferred`` is not forwarded."""

    def __init__(self, routes: dict[str, str],
                 deferred: re.Pattern | None = None) -> None:
        super().__init__()
        self.routes = routes
        self.deferred = deferred

    def _setUp(self) -> None:
        server = _Server(('127.0.0.1', PORT), _Handler)
        server.routes = self.routes
        server.deferred = self.deferred
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
