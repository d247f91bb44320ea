"""NovaDriver.with_token: the same Nova, called with another user's token
(a reservation's server group is made in the lease owner's project)."""

import testtools
from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint

from placement_ext.drivers import nova

ENDPOINT = 'http://nova.example:8774/v2.1'


class TestWithToken(testtools.TestCase):

    def test_same_endpoint_other_token(self):
        service = nova.NovaDriver(ks_session.Session(
            auth=token_endpoint.Token(ENDPOINT, 'service-token')))
        owner = service.with_token('owner-token')
        self.assertIsInstance(owner, nova.NovaDriver)
        session = owner._client.client.session
        self.assertEqual('owner-token', session.auth.get_token(session))
        self.assertEqual(ENDPOINT, owner._client.client.get_endpoint())
