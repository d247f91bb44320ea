import testtools
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from oslo_config import cfg
from oslo_config import fixture as config_fixture

from placement_ext import conf as pe_conf
from placement_ext import exception
from placement_ext.drivers.placement import client as pclient
from placement_ext.tests.fixtures import placement_api as fakes

RP = '/resource_providers/x'


def _client(routes=None, max_version='1.39', **kwargs):
    adapter = fakes.FakeAdapter(routes, max_version=max_version)
    return pclient.PlacementClient(adapter, **kwargs), adapter


class TestMicroversions(testtools.TestCase):

    def test_negotiated_once_from_the_version_document(self):
        client, adapter = _client(max_version='1.36')
        self.assertEqual((1, 36), client.max_version)
        self.assertEqual((1, 36), client.max_version)
        self.assertEqual(['/'], adapter.paths())
        self.assertIsNone(adapter.sent[0].microversion)

    def test_newer_server_is_capped_at_the_known_version(self):
        client, _ = _client(max_version='1.45')
        self.assertEqual((1, 45), client.server_max_version)
        self.assertEqual(pclient.KNOWN_MAX_VERSION, client.max_version)

    def test_max_version_pins_lower(self):
        pinned = pclient.PlacementClient(fakes.FakeAdapter(),
                                         max_version='1.30')
        self.assertEqual((1, 30), pinned.max_version)
        self.assertEqual((1, 39), pinned.server_max_version)

    def test_version_document_without_microversions_is_1_0(self):
        client, _ = _client({('GET', '/'): (200, {'versions': [{}]})})
        self.assertEqual((1, 0), client.max_version)

    def test_too_old_names_the_version_found_and_the_feature(self):
        client, _ = _client(max_version='1.30')
        err = self.assertRaises(pclient.PlacementTooOld, client.require,
                                (1, 31), 'in_tree')
        self.assertIn('in_tree needs Placement microversion 1.31', str(err))
        self.assertIn('supports at most 1.30', str(err))
        self.assertIn(fakes.ENDPOINT, str(err))
        self.assertIsInstance(err, exception.ServiceError)
        client.require((1, 30), 'anything at 1.30')

    def test_bad_max_version(self):
        err = self.assertRaises(exception.InvalidInput,
                                pclient.PlacementClient,
                                fakes.FakeAdapter(), max_version='latest')
        self.assertEqual('max_version', err.field)

    def test_microversion_sent_per_call(self):
        client, adapter = _client({('GET', RP): (200, {})})
        client.request('GET', RP, what='/resource_providers/{uuid}',
                       microversion=(1, 31))
        self.assertEqual('1.31', adapter.sent[-1].microversion)
        self.assertEqual({'GET /resource_providers/{uuid}': 1},
                         dict(client.calls))


class TestErrors(testtools.TestCase):
    """Placement's errors as placement_ext exceptions."""

    def _raise(self, status, body, expected):
        client, _ = _client({('PUT', RP): (status, body)})
        return self.assertRaises(
            expected, client.request, 'PUT', RP, what='/rp/{uuid}',
            microversion=(1, 29), kind='resource provider', id='x')

    def test_404_is_not_found(self):
        err = self._raise(404, fakes.error_body(404, 'No such provider'),
                          exception.NotFound)
        self.assertEqual({'kind': 'resource provider', 'id': 'x'},
                         err.kwargs)
        self.assertIn('No such provider', str(err))

    def test_generation_conflict_is_concurrent_update(self):
        err = self._raise(409, fakes.error_body(
            409, 'resource provider generation conflict',
            'placement.concurrent_update'), exception.ConcurrentUpdate)
        self.assertEqual('placement.concurrent_update', err.placement_code)

    def test_other_conflict_keeps_detail_and_code(self):
        err = self._raise(409, fakes.error_body(
            409, 'Inventory in use.', 'placement.inventory.inuse'),
            exception.Conflict)
        self.assertNotIsInstance(err, exception.ConcurrentUpdate)
        self.assertEqual('placement.inventory.inuse', err.placement_code)
        self.assertIn('Inventory in use.', str(err))
        self.assertNotIn('Generic explanation', str(err))

    def test_503_is_unavailable(self):
        self._raise(503, None, exception.ServiceUnavailable)

    def test_400_is_service_error_with_detail_and_code(self):
        err = self._raise(400, fakes.error_body(
            400, "'in_tree' does not match", 'placement.query.bad_value'),
            exception.ServiceError)
        self.assertIn('HTTP 400', str(err))
        self.assertIn("'in_tree' does not match", str(err))
        self.assertIn('placement.query.bad_value', str(err))

    def test_500_without_json(self):
        client, _ = _client()
        client._adapter.routes[('GET', RP)] = (500, None)
        err = self.assertRaises(exception.ServiceError, client.request,
                                'GET', RP, what=RP)
        self.assertIsNone(err.placement_code)

    def test_connection_refused_is_unavailable(self):
        client, _ = _client({('GET', RP): ks_exc.ConnectFailure('refused')})
        err = self.assertRaises(exception.ServiceUnavailable,
                                client.request, 'GET', RP, what=RP)
        self.assertIn('refused', str(err))

    def test_other_keystoneauth_failure_is_service_error(self):
        client, _ = _client({('GET', RP): ks_exc.EndpointNotFound()})
        self.assertRaises(exception.ServiceError, client.request,
                          'GET', RP, what=RP)


class TestConstruction(testtools.TestCase):

    def test_from_conf_uses_the_placement_group(self):
        conf = cfg.ConfigOpts()
        pe_conf.register_opts(conf)
        fixture = self.useFixture(config_fixture.Config(conf))
        conf([], default_config_files=[])
        fixture.config(group='placement',
                       endpoint_override='http://placement.conf:8778')
        client = pclient.PlacementClient.from_conf(conf)
        self.assertEqual('http://placement.conf:8778', client.endpoint)

    def test_from_session(self):
        session = ks_session.Session()
        client = pclient.PlacementClient.from_session(
            session, endpoint_override=fakes.ENDPOINT, region_name='R1')
        self.assertIs(session, client._adapter.session)
        self.assertEqual('placement', client._adapter.service_type)
        self.assertEqual('R1', client._adapter.region_name)
        self.assertEqual(fakes.ENDPOINT, client.endpoint)

    def test_from_endpoint_sends_the_noauth2_token(self):
        client = pclient.PlacementClient.from_endpoint(fakes.ENDPOINT)
        self.assertEqual(fakes.ENDPOINT, client.endpoint)
        self.assertEqual(
            'admin', client._adapter.session.get_token())
