"""The HTTP layer both APIs share: what is checked before credentials,
bounded body reads, deep JSON, the status of each error of ours."""

import base64
import io
import json

import testtools
import webob
from oslo_context import context as oslo_context

from placement_ext import exception
from placement_ext.api import wsgi
from placement_ext.tests.unit.api import gabbi_fixtures

# deeper than Python's recursion limit, within the fixtures' 64 KiB
DEEP = b'[' * 30_000 + b']' * 30_000


class Unreadable(io.RawIOBase):
    """A request stream that fails the test when it is read."""

    def readable(self):
        return True

    def readinto(self, buffer):
        raise AssertionError('the body was read')


class Endless(io.RawIOBase):
    """A chunked body that never ends; counts what was read."""

    def __init__(self):
        self.read_bytes = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        buffer[:] = b'x' * len(buffer)
        self.read_bytes += len(buffer)
        return len(buffer)


class ApiCase(testtools.TestCase):

    fixture_class = None

    def setUp(self):
        super().setUp()
        fixture = self.fixture_class()
        fixture.start_fixture()
        self.addCleanup(fixture.stop_fixture)
        self.app = gabbi_fixtures.current_app()

    def call(self, path, body=None, method='POST', **headers):
        request = webob.Request.blank(path, method=method)
        for name, value in headers.items():
            request.headers[name.replace('_', '-')] = value
        if isinstance(body, (bytes, io.IOBase)):
            request.body_file_raw = io.BytesIO(body) \
                if isinstance(body, bytes) else body
            if isinstance(body, bytes):
                request.environ['CONTENT_LENGTH'] = str(len(body))
        response = request.get_response(self.app)
        return response.status_int, response.json_body \
            if response.body else None


class HttpLayerTests:
    """Run for each API; ``PATH`` is a route that needs credentials."""

    PATH = None

    def test_a_negative_content_length_is_400_before_credentials(self):
        status, _ = self.call(self.PATH, Unreadable(), Content_Length='-1')
        self.assertEqual(400, status)

    def test_a_declared_200_mb_body_is_413_unread_before_credentials(self):
        status, _ = self.call(self.PATH, Unreadable(),
                              Content_Length=str(200 * 1024 * 1024))
        self.assertEqual(413, status)

    def test_a_chunked_stream_is_read_to_the_limit_only(self):
        stream = Endless()
        request = webob.Request.blank(self.PATH, method='POST')
        request.environ['wsgi.input'] = stream
        request.environ.pop('CONTENT_LENGTH', None)
        request.headers['Transfer-Encoding'] = 'chunked'
        self.app_authenticates(request)
        response = request.get_response(self.app)
        self.assertEqual(413, response.status_int)
        self.assertLessEqual(stream.read_bytes, 2 * 64 * 1024)

    def test_a_path_that_is_not_utf8_is_400(self):
        request = webob.Request.blank('/')
        # what a WSGI server makes of %FF in the URL
        request.environ['PATH_INFO'] = self.PATH + '/\xff'
        self.app_authenticates(request)
        self.assertEqual(400, request.get_response(self.app).status_int)

    def test_a_30k_deep_document_is_400(self):
        request = webob.Request.blank(self.PATH, method='POST', body=DEEP)
        self.app_authenticates(request)
        response = request.get_response(self.app)
        self.assertEqual(400, response.status_int)
        self.assertIn('nested too deeply', response.text)


class TestNfvo(HttpLayerTests, ApiCase):

    fixture_class = gabbi_fixtures.NfvoFixture
    PATH = '/grant/v1/grants'

    def app_authenticates(self, request):
        status, body = self.call(
            '/token', b'grant_type=client_credentials&client_id=vnfm'
                      b'&client_secret=s3cret')
        request.headers['Authorization'] = f'Bearer {body["access_token"]}'

    def test_a_token_request_above_8_kib_is_413_unread(self):
        status, body = self.call('/token', Unreadable(),
                                 Content_Length=str(8 * 1024 + 1))
        self.assertEqual(413, status)

    def test_a_token_is_valid_in_another_process(self):
        # a second application on the same database: a second
        # placement-ext-nfvo behind a load balancer, or after a restart
        status, body = self.call(
            '/token', b'grant_type=client_credentials&client_id=vnfm'
                      b'&client_secret=s3cret')
        fixture = gabbi_fixtures.NfvoFixture()
        other = fixture.build(gabbi_fixtures.ACTIVE['database'])
        request = webob.Request.blank('/grant/v1/grants/nope')
        request.headers['Authorization'] = f'Bearer {body["access_token"]}'
        self.assertEqual(404, request.get_response(other).status_int)


class TestHas(HttpLayerTests, ApiCase):

    fixture_class = gabbi_fixtures.HasFixture
    PATH = '/v1/plans'

    def app_authenticates(self, request):
        request.headers['Authorization'] = 'Basic ' + base64.b64encode(
            b'osdf:s3cret').decode()


class TestStatus(testtools.TestCase):

    def test_each_error_of_ours_has_its_status(self):
        for error, status in (
                (exception.InvalidInput(field='f'), 400),
                (exception.GrantRefused(reason='r'), 403),
                (exception.NotFound(kind='k', id='i'), 404),
                (exception.Conflict(reason='r'), 409),
                (exception.ServiceUnavailable(service='s', reason='r'), 503),
                (exception.ServiceError(service='s', reason='r'), 502),
                (exception.Forbidden(service='s', reason='r'), 502),
                (exception.StackFailed(reason='r'), 500)):
            self.assertEqual(status, wsgi.ApiError.of(error).status, error)

    def test_an_unexpected_error_is_500_without_detail(self):
        def boom(request):
            raise KeyError('secret detail')

        app = wsgi.Api([wsgi.Route('^/$', GET=boom)], style=wsgi.PROBLEM,
                       max_body=10)
        response = webob.Request.blank('/').get_response(app)
        self.assertEqual(500, response.status_int)
        self.assertNotIn('secret', response.text)
        self.assertEqual('application/problem+json', response.content_type)
        self.assertEqual(500, json.loads(response.body)['status'])


class TestRequestId(testtools.TestCase):
    """oslo.middleware's request id: in the answer and current while the
    request is handled, so oslo.log writes it on every line."""

    def test_the_id_answered_is_the_one_the_handler_logs_with(self):
        seen = []

        def handler(request):
            seen.append(oslo_context.get_current().request_id)
            return wsgi.json_response(200, {})

        app = wsgi.Api([wsgi.Route(r'^/$', GET=handler)], style=wsgi.HAS,
                       max_body=1024)
        first = webob.Request.blank('/').get_response(app)
        second = webob.Request.blank('/').get_response(app)
        self.assertEqual([first.headers['x-openstack-request-id'],
                          second.headers['x-openstack-request-id']], seen)
        self.assertNotEqual(seen[0], seen[1])
