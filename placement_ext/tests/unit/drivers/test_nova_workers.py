"""NovaDriver.worker_servers and HeatDriver.stack_servers."""

from unittest import mock

import testtools

from placement_ext.drivers import heat
from placement_ext.drivers import nova


def fake_server(sid, name, host='cmp1', host_id='h' * 56, **addresses):
    server = mock.Mock(spec=['id', 'name', 'addresses', 'hostId'])
    server.id, server.name, server.hostId = sid, name, host_id
    server.addresses = {net: [{'addr': ip, 'version': 4}]
                        for net, ip in addresses.items()}
    if host is not None:
        setattr(server, 'OS-EXT-SRV-ATTR:host', host)
    return server


class TestWorkerServers(testtools.TestCase):

    def setUp(self):
        super().setUp()
        with mock.patch.object(nova.nova_client, 'Client'):
            self.driver = nova.NovaDriver(mock.Mock())
        self.client = self.driver._client

    def test_by_name_prefix_anchored_and_checked(self):
        self.client.servers.list.return_value = [
            fake_server('b', 'k8s-worker-1', net='10.0.0.2'),
            fake_server('x', 'other-k8s-worker', net='10.0.0.3')]
        servers = self.driver.worker_servers(name_prefix='k8s-worker')
        self.client.servers.list.assert_called_once_with(
            search_opts={'name': '^k8s\\-worker'})
        self.assertEqual(['b'], [s.id for s in servers])
        self.assertEqual(frozenset({'10.0.0.2'}), servers[0].addresses)
        self.assertEqual('cmp1', servers[0].host)

    def test_by_ids_without_admin_host(self):
        self.client.servers.get.side_effect = lambda sid: fake_server(
            sid, f'vm-{sid}', None, a='10.0.0.1', b='172.16.0.1')
        servers = self.driver.worker_servers(ids=['s2', 's1'])
        self.assertEqual(['s1', 's2'], [s.id for s in servers])
        self.assertIsNone(servers[0].host)
        self.assertEqual('h' * 56, servers[0].host_id)
        self.assertEqual(frozenset({'10.0.0.1', '172.16.0.1'}),
                         servers[0].addresses)


class TestStackServers(testtools.TestCase):

    def test_nested_servers(self):
        driver = heat.HeatDriver(mock.Mock())
        driver._client = mock.Mock()
        res = [mock.Mock(resource_type='OS::Nova::Server',
                         physical_resource_id=pid) for pid in ('s2', 's1')]
        res.append(mock.Mock(resource_type='OS::Nova::Server',
                             physical_resource_id=''))
        driver._client.resources.list.return_value = res
        self.assertEqual(['s1', 's2'], driver.stack_servers('vnf-1'))
        driver._client.resources.list.assert_called_once_with(
            'vnf-1', nested_depth=5, filters={'type': 'OS::Nova::Server'})
