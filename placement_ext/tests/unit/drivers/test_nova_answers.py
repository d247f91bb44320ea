"""Nova and Heat answers their clients cannot read become one clear
ServiceError.

Before, Nova (or a proxy in front of it) answering ``{"error": "..."}``
made novaclient raise AttributeError ('str' object has no attribute
'get'), which crossed RPC as an unexpected error and the CLI printed a
3 KB server traceback; heatclient's error for the same body fails in
``str()``. The real clients talk to a small HTTP server.
"""

import http.server
import json
import threading

import testtools
from keystoneauth1 import noauth as ks_noauth
from keystoneauth1 import session as ks_session

from placement_ext import exception
from placement_ext.drivers import heat
from placement_ext.drivers import nova


class _Handler(http.server.BaseHTTPRequestHandler):
    status = 500
    body = {'error': 'database gone'}

    def do_GET(self):  # noqa: N802 (http.server's name)
        data = json.dumps(self.body).encode()
        self.send_response(self.status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        pass


class TestUnreadableAnswers(testtools.TestCase):

    def _driver(self, status: int, body: object,
                kind: type = nova.NovaDriver) -> object:
        handler = type('H', (_Handler,), {'status': status, 'body': body})
        server = http.server.HTTPServer(('127.0.0.1', 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        session = ks_session.Session(auth=ks_noauth.NoAuth())
        return kind(session, adapter_kwargs={
            'endpoint_override': f'http://127.0.0.1:{server.server_port}'})

    def test_error_body_that_is_a_string(self):
        for status in (500, 400, 200):
            driver = self._driver(status, {'error': 'database gone'})
            exc = self.assertRaises(exception.ServiceError,
                                    driver.hypervisor, 'compute-1')
            self.assertIn('Nova failed: search hypervisors: ', exc.detail)
            self.assertLess(len(exc.detail), 300)

    def test_heat_error_body_that_is_a_string(self):
        for status in (500, 400):
            driver = self._driver(status, {'error': 'engine gone'},
                                  heat.HeatDriver)
            exc = self.assertRaises(exception.ServiceError,
                                    driver.find_stack, 'vnf-1')
            self.assertIn(f"Heat failed: show stack: HTTP {status}: ",
                          exc.detail)
            self.assertIn('engine gone', exc.detail)
