"""Our Placement client against the real service: config, versions, errors."""

import os
import socket
import uuid

import testtools

from placement_ext import conf as pe_conf
from placement_ext import exception
from placement_ext.drivers.placement import client as pclient
from placement_ext.drivers.placement import driver as pdriver
from placement_ext.tests import backends
from placement_ext.tests.fixtures import placement as placement_fixture
from placement_ext.tests.functional.placement import base


class TestClient(base.PlacementServerTestCase):

    def _conf_file(self, text):
        path = os.path.join(self.server.workdir, 'placement_ext.conf')
        with open(path, 'w') as f:
            f.write(text)
        return path

    def test_from_conf_with_keystoneauth_admin_token(self):
        path = self._conf_file(
            f'[placement]\nauth_type = admin_token\n'
            f'endpoint = {self.server.endpoint}\ntoken = admin\n')
        conf = pe_conf.new_conf(['--config-file', path])
        client = pclient.PlacementClient.from_conf(conf)
        self.assertEqual(pclient.KNOWN_MAX_VERSION, client.max_version)
        rp = base.create_provider(client, 'cn1')
        self.assertEqual(rp, client.request(
            'GET', f'/resource_providers/{rp}', what='get',
            microversion=(1, 14)).json()['uuid'])

    def test_negotiated_from_the_real_version_document(self):
        self.assertEqual((1, 39), self.client.server_max_version)
        self.assertEqual({'GET /': 1}, dict(self.client.calls))

    def test_unknown_provider_is_not_found(self):
        missing = str(uuid.uuid4())
        err = self.assertRaises(
            exception.NotFound, self.client.request, 'GET',
            f'/resource_providers/{missing}', what='get',
            microversion=(1, 29), kind='resource provider', id=missing)
        self.assertEqual({'kind': 'resource provider', 'id': missing},
                         err.kwargs)

    def test_stale_generation_is_concurrent_update(self):
        rp = base.create_provider(self.client, 'cn1')
        base.set_inventory(self.client, rp, VCPU=4)
        self.assertRaises(
            exception.ConcurrentUpdate, self.client.request, 'PUT',
            f'/resource_providers/{rp}/inventories', what='put',
            microversion=(1, 29),
            json={'resource_provider_generation': 0,
                  'inventories': {'VCPU': {'total': 8}}})

    def test_bad_request_keeps_placements_detail(self):
        err = self.assertRaises(
            exception.ServiceError, self.client.request, 'GET',
            '/allocation_candidates', what='get', microversion=(1, 30),
            params={'resources': 'VCPU:1', 'in_tree': str(uuid.uuid4())})
        self.assertIn('HTTP 400', str(err))
        self.assertIn('in_tree', str(err))

    def test_refused_connection_is_unavailable(self):
        with socket.socket() as sock:      # a port nobody listens on
            sock.bind(('127.0.0.1', 0))
            port = sock.getsockname()[1]
        client = pclient.PlacementClient.from_endpoint(
            f'http://127.0.0.1:{port}')
        self.assertRaises(exception.ServiceUnavailable,
                          lambda: client.max_version)


class TestOnMariaDB(testtools.TestCase):

    def test_threaded_server_on_a_fresh_database(self):
        backends.require(self, 'mysql')
        server = self.useFixture(placement_fixture.PlacementServer('mysql'))
        self.assertTrue(server.connection.startswith('mysql+pymysql://'))
        client = server.client()
        rp = base.create_provider(client, 'cn1')
        base.set_inventory(client, rp, VCPU=4)
        driver = pdriver.PlacementDriver(client)
        self.assertEqual(2, driver.capacity_on_host(rp, {'VCPU': 2}))
