"""The SOL 003 NFVO interfaces of placement-ext-nfvo, as WSGI calls,
with tokens and Grants in a real (SQLite) database."""

import base64
import io
import json
import urllib.parse

import testtools
from oslo_utils import fixture as utils_fixture

from placement_ext import exception
from placement_ext.api import nfvo
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import nfvo as fake_nfvo

CLIENT = ('vnfm', 's3cret')
REQUEST = {
    'vnfInstanceId': 'inst-1', 'vnfLcmOpOccId': 'occ-1', 'vnfdId': 'vnfd-1',
    'flavourId': 'simple', 'operation': 'INSTANTIATE',
    'isAutomaticInvocation': False,
    'addResources': [{'id': 'r1', 'type': 'COMPUTE',
                      'resourceTemplateId': 'VDU1'}],
    '_links': {'vnfLcmOpOcc': {'href': 'o'}, 'vnfInstance': {'href': 'i'}}}


class TestNfvoApp(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.decided = []
        self.refuse = None
        self.clock = self.useFixture(utils_fixture.TimeFixture())
        self.database = self.useFixture(db_fixture.Database()).db
        self.app = self.make_app()

    def make_app(self):
        return nfvo.NfvoApp(self._decide, fake_nfvo.FakePackages(),
                            self.database, client_id=CLIENT[0],
                            client_secret=CLIENT[1], token_lifetime=60)

    def _decide(self, request, grant_id, href):
        if self.refuse:
            raise exception.GrantRefused(reason=self.refuse)
        self.decided.append(request)
        return {'id': grant_id, '_links': {'self': {'href': href}}}

    def call(self, method, path, body=b'', headers=None):
        environ = {'REQUEST_METHOD': method, 'PATH_INFO': path,
                   'CONTENT_LENGTH': str(len(body)),
                   'wsgi.input': io.BytesIO(body),
                   'wsgi.url_scheme': 'http', 'HTTP_HOST': 'nfvo:9891'}
        for name, value in (headers or {}).items():
            environ['HTTP_' + name.upper().replace('-', '_')] = value
        out = {}

        def start(status, headers):
            out['status'] = int(status.split()[0])
            out['headers'] = dict(headers)

        raw = b''.join(self.app(environ, start))
        ctype = out['headers']['Content-Type']
        return out['status'], out['headers'], (
            raw if ctype == 'application/zip' else json.loads(raw))

    def token(self, client=CLIENT):
        basic = base64.b64encode(':'.join(client).encode()).decode()
        return self.call('POST', '/token', b'grant_type=client_credentials',
                         {'Authorization': f'Basic {basic}'})

    def bearer(self):
        return {'Authorization': 'Bearer ' + self.token()[2]['access_token']}

    def test_client_credentials_get_a_bearer_token(self):
        status, _, body = self.token()
        self.assertEqual(200, status)
        self.assertEqual(('Bearer', 60), (body['token_type'],
                                          body['expires_in']))

    def test_credentials_in_the_form_are_accepted(self):
        status, _, _ = self.call(
            'POST', '/token', b'grant_type=client_credentials&client_id=vnfm'
            b'&client_secret=s3cret')
        self.assertEqual(200, status)

    def test_a_wrong_secret_or_grant_type_is_refused(self):
        status, headers, body = self.token(('vnfm', 'nope'))
        self.assertEqual((401, 'invalid_client'), (status, body['error']))
        self.assertIn('WWW-Authenticate', headers)
        status, _, body = self.call('POST', '/token', b'grant_type=password')
        self.assertEqual((400, 'unsupported_grant_type'),
                         (status, body['error']))

    def test_a_grant_needs_a_live_token(self):
        status, headers, body = self.call('POST', nfvo.GRANTS,
                                          json.dumps(REQUEST).encode())
        self.assertEqual(401, status)
        self.assertEqual('application/problem+json', headers['Content-Type'])
        self.assertEqual(401, body['status'])
        auth = self.bearer()
        self.clock.advance_time_seconds(61)
        status, _, _ = self.call('POST', nfvo.GRANTS,
                                 json.dumps(REQUEST).encode(), auth)
        self.assertEqual(401, status)

    def test_a_grant_is_created_and_can_be_read_back(self):
        auth = self.bearer()
        status, headers, grant = self.call(
            'POST', nfvo.GRANTS, json.dumps(REQUEST).encode(), auth)
        self.assertEqual(201, status)
        self.assertEqual(f'http://nfvo:9891{nfvo.GRANTS}/{grant["id"]}',
                         headers['Location'])
        self.assertEqual('vnfd-1', self.decided[0].vnfd_id)
        status, _, again = self.call(
            'GET', urllib.parse.urlsplit(headers['Location']).path, b'', auth)
        self.assertEqual((200, grant), (status, again))

    def test_a_refusal_is_403_problem_details(self):
        self.refuse = 'AZ-1 is full'
        status, headers, body = self.call(
            'POST', nfvo.GRANTS, json.dumps(REQUEST).encode(), self.bearer())
        self.assertEqual(403, status)
        self.assertEqual('application/problem+json', headers['Content-Type'])
        self.assertIn('AZ-1 is full', body['detail'])

    def test_a_bad_request_names_the_field(self):
        bad = dict(REQUEST)
        del bad['vnfdId']
        status, _, body = self.call('POST', nfvo.GRANTS,
                                    json.dumps(bad).encode(), self.bearer())
        self.assertEqual(400, status)
        self.assertIn('vnfdId', body['detail'])
        status, _, _ = self.call('POST', nfvo.GRANTS, b'{', self.bearer())
        self.assertEqual(400, status)

    def test_packages_are_served_by_vnfd_id(self):
        auth = self.bearer()
        base = '/vnfpkgm/v2/onboarded_vnf_packages/vnfd-1'
        status, _, info = self.call('GET', base, b'', auth)
        self.assertEqual((200, 'pkg-1'), (status, info['id']))
        self.assertEqual(f'{base}/package_content',
                         info['_links']['packageContent']['href'])
        self.assertEqual(b'PK zip', self.call(
            'GET', f'{base}/package_content', b'', auth)[2])
        self.assertEqual(b'PK vnfd', self.call(
            'GET', f'{base}/vnfd', b'', auth)[2])
        status, _, body = self.call(
            'GET', '/vnfpkgm/v2/onboarded_vnf_packages/other', b'', auth)
        self.assertEqual(404, status)

    def test_wrong_method_and_unknown_path(self):
        auth = self.bearer()
        status, headers, _ = self.call('GET', nfvo.GRANTS, b'', auth)
        self.assertEqual((405, 'POST'), (status, headers['Allow']))
        self.assertEqual(404, self.call('GET', '/nothing', b'', auth)[0])
