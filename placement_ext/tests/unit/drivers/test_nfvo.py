"""The NFVO driver against a Grant endpoint over real local HTTP."""

import fixtures
import testtools

from placement_ext import conf as pe_conf
from placement_ext import exception
from placement_ext.drivers import nfvo as nfvo_driver
from placement_ext.tests.fixtures import nfvo
from placement_ext.tests.unit.conductor import test_lifecycle_regrant

REQUEST = test_lifecycle_regrant.GRANT_REQUEST


def granting(request):
    return nfvo.grant_document(request, {'res-1': 'AZ-3', 'res-2': 'AZ-2'})


def driver_for(test, auth_options, endpoint):
    """The driver as the conductor builds it, from an [nfvo] group."""
    path = test.useFixture(fixtures.TempDir()).join('pe.conf')
    with open(path, 'w', encoding='utf-8') as conf_file:
        conf_file.write(f'[nfvo]\n{auth_options}'
                        f'endpoint_override = {endpoint}\n')
    conf = pe_conf.new_conf(['--config-file', path])
    return nfvo_driver.NfvoDriver.from_conf(conf)


class TestNfvoDriver(testtools.TestCase):

    def _driver(self, answer, asynchronous=False, endpoint=None):
        self.nfvo = self.useFixture(nfvo.NfvoFixture(answer, asynchronous))
        return driver_for(self, 'auth_type = none\n',
                          endpoint or self.nfvo.endpoint)

    def test_synchronous_grant(self):
        grant = self._driver(granting).grant(REQUEST)
        self.assertEqual('AZ-3', grant.zone_name('res-1'))
        self.assertEqual([REQUEST], self.nfvo.requests)
        self.assertEqual([{'Version': '1.4.0'}], self.nfvo.headers)

    def test_asynchronous_grant_is_polled(self):
        grant = self._driver(granting, asynchronous=True).grant(REQUEST)
        self.assertEqual('AZ-2', grant.zone_name('res-2'))

    def test_forbidden_is_a_refusal_with_the_nfvos_detail(self):
        driver = self._driver(lambda request: (403, {
            'status': 403, 'detail': 'zone quota exhausted'}))
        error = self.assertRaises(exception.GrantRefused, driver.grant,
                                  REQUEST)
        self.assertIn('zone quota exhausted', error.detail)

    def test_other_status_is_a_service_error(self):
        driver = self._driver(lambda request: (500, {'title': 'boom'}))
        error = self.assertRaises(exception.ServiceError, driver.grant,
                                  REQUEST)
        self.assertIn('HTTP 500: boom', error.detail)

    def test_invalid_grant_is_a_service_error(self):
        driver = self._driver(lambda request: {'id': 'g'})
        error = self.assertRaises(exception.ServiceError, driver.grant,
                                  REQUEST)
        self.assertIn('its Grant is not valid', error.detail)

    def test_unreachable_nfvo(self):
        # port 1: nothing listens there
        driver = self._driver(granting, endpoint='http://127.0.0.1:1')
        self.assertRaises(exception.ServiceUnavailable, driver.grant,
                          REQUEST)


class TestOAuth2ClientCredentials(testtools.TestCase):
    """auth_type = oauth2_client_credentials against the stand-in's own
    token endpoint."""

    def _oauth2_driver(self, secret='s3cret', token_lifetime=3600):
        self.nfvo = self.useFixture(nfvo.NfvoFixture(
            granting, client=('vnfm', 's3cret'),
            token_lifetime=token_lifetime))
        endpoint = self.nfvo.endpoint
        return driver_for(self, f'auth_type = oauth2_client_credentials\n'
                                f'token_endpoint = {endpoint}/token\n'
                                f'client_id = vnfm\n'
                                f'client_secret = {secret}\n', endpoint)

    def test_bearer_token_is_fetched_once_and_reused(self):
        driver = self._oauth2_driver()
        driver.grant(REQUEST)
        driver.grant(REQUEST)
        self.assertEqual(1, self.nfvo.tokens_issued)
        self.assertEqual(2, len(self.nfvo.requests))

    def test_token_without_expires_in_is_kept_until_a_401(self):
        driver = self._oauth2_driver(token_lifetime=None)
        driver.grant(REQUEST)
        driver.grant(REQUEST)
        self.assertEqual(1, self.nfvo.tokens_issued)
        self.nfvo.revoke_tokens()
        driver.grant(REQUEST)
        self.assertEqual(2, self.nfvo.tokens_issued)

    def test_token_about_to_expire_is_fetched_again(self):
        # a lifetime inside the renewal margin counts as expired already
        driver = self._oauth2_driver(token_lifetime=10)
        driver.grant(REQUEST)
        driver.grant(REQUEST)
        self.assertEqual(2, self.nfvo.tokens_issued)

    def test_revoked_token_is_replaced_after_a_401(self):
        driver = self._oauth2_driver()
        driver.grant(REQUEST)
        self.nfvo.revoke_tokens()
        driver.grant(REQUEST)
        self.assertEqual(2, self.nfvo.tokens_issued)

    def test_wrong_secret_names_the_token_endpoint(self):
        driver = self._oauth2_driver(secret='wrong')
        error = self.assertRaises(exception.ServiceError, driver.grant,
                                  REQUEST)
        self.assertIn('OAuth 2.0 token endpoint', error.detail)
        self.assertIn('invalid_client', error.detail)
