"""The WSGI server of both APIs on a real socket: what a client can hold
before the application runs (time, connections, threads, memory)."""

import concurrent.futures
import socket
import threading
import types

import fixtures
import testtools

from placement_ext.api import server as api_server
from placement_ext.api import server as http_server

MAX_BODY = 64 * 1024


class TestHttpServer(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.calls = []
        self.server = http_server.HttpServer(
            self.app, '127.0.0.1', 0, workers=2, connection_limit=10,
            client_timeout=1, max_body_size=MAX_BODY, ident='test')
        thread = threading.Thread(target=self.server.run, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 30)
        self.addCleanup(self.server.stop)

    def app(self, environ, start_response):
        self.calls.append(environ['PATH_INFO'])
        body = environ['wsgi.input'].read(
            int(environ.get('CONTENT_LENGTH') or 0))
        start_response('200 OK', [('Content-Length', str(len(body)))])
        return [body]

    def connect(self):
        sock = socket.create_connection(('127.0.0.1', self.server.port), 30)
        self.addCleanup(sock.close)
        return sock

    def exchange(self, request):
        sock = self.connect()
        sock.sendall(request)
        return _read_all(sock)

    def test_an_idle_connection_is_closed(self):
        sock = self.connect()
        # nothing sent: the server closes it (client_timeout=1), the
        # read returns end of stream instead of waiting for ever
        self.assertEqual(b'', sock.recv(1))

    def test_a_request_that_stops_arriving_is_closed(self):
        sock = self.connect()
        sock.sendall(b'POST /token HTTP/1.1\r\nHost: x\r\n')
        self.assertEqual(b'', _read_all(sock))
        self.assertEqual([], self.calls)

    def test_idle_connections_take_no_thread_each(self):
        before = threading.active_count()
        for _ in range(50):
            self.connect()
        self.assertLess(threading.active_count() - before, 5)

    def test_a_negative_content_length_is_refused_unread(self):
        answer = self.exchange(b'POST /token HTTP/1.1\r\nHost: x\r\n'
                               b'Content-Length: -1\r\n\r\n' + b'x' * 1000)
        self.assertTrue(answer.startswith(b'HTTP/1.1 400'), answer[:100])
        self.assertEqual([], self.calls)

    def test_a_body_above_the_limit_is_refused_before_the_app(self):
        answer = self.exchange(
            b'POST /token HTTP/1.1\r\nHost: x\r\nContent-Length: '
            + str(200 * 1024 * 1024).encode() + b'\r\n\r\n')
        self.assertTrue(answer.startswith(b'HTTP/1.1 413'), answer[:100])
        self.assertEqual([], self.calls)

    def test_a_chunked_stream_above_the_limit_is_refused(self):
        sock = self.connect()
        sock.sendall(b'POST /token HTTP/1.1\r\nHost: x\r\n'
                     b'Transfer-Encoding: chunked\r\n\r\n')
        chunk = b'%x\r\n%s\r\n' % (16 * 1024, b'x' * 16 * 1024)
        try:
            for _ in range(64):  # 1 MiB, 16 times the limit
                sock.sendall(chunk)
        except OSError:
            pass  # the server answered and closed: what we want
        answer = _read_all(sock)
        self.assertTrue(answer.startswith(b'HTTP/1.1 413'), answer[:100])
        self.assertEqual([], self.calls)

    def test_many_concurrent_clients_are_all_answered(self):
        # 50 clients on 10 connections and 2 workers: the others wait in
        # the listen backlog, none is reset
        def one(n):
            return self.exchange(b'POST /grant HTTP/1.1\r\nHost: x\r\n'
                                 b'Connection: close\r\n'
                                 b'Content-Length: 5\r\n\r\nhello')

        with concurrent.futures.ThreadPoolExecutor(50) as pool:
            answers = list(pool.map(one, range(50)))
        self.assertEqual(50, sum(a.startswith(b'HTTP/1.1 200')
                                 for a in answers))
        self.assertEqual(50, len(self.calls))


def _read_all(sock):
    data = b''
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk


class TestServeWsgi(testtools.TestCase):

    def test_an_address_in_use_is_one_line_and_exit_1(self):
        taken = socket.socket()
        self.addCleanup(taken.close)
        taken.bind(('127.0.0.1', 0))
        taken.listen(1)
        stderr = self.useFixture(fixtures.StringStream('stderr'))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr.stream))
        opts = types.SimpleNamespace(
            api_workers=1, api_connection_limit=1, api_client_timeout=1,
            api_max_body_size=1024)
        self.assertEqual(1, api_server.serve(
            lambda environ, start: [], '127.0.0.1',
            taken.getsockname()[1], 'prog', opts))
        self.assertIn('prog: cannot listen on 127.0.0.1:',
                      stderr.getDetails()['stderr'].as_text())
