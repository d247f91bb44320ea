"""The embedded cloud's own tooling: idempotent up, status, host sizes."""

import importlib.util
import json

import testtools

from placement_ext.tests.functional.cloud import base
from placement_ext.tests.functional.cloud import fixture


def _load_topology():
    # tools/ is not a package of the project: load the module by path
    path = fixture.MINICLOUD.parent / 'topology.py'
    spec = importlib.util.spec_from_file_location('mc_topology', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


topology = _load_topology()


class TestTopology(testtools.TestCase):
    """Parsing only: needs no cloud."""

    def test_default_spec(self):
        spec = topology.build_spec(3, 2, topology.DEFAULT_SIZE)
        hosts = topology.parse(spec)
        self.assertEqual(
            {'AZ-1': ['az1-h1', 'az1-h2'], 'AZ-2': ['az2-h1', 'az2-h2'],
             'AZ-3': ['az3-h1', 'az3-h2']}, topology.zones(hosts))
        self.assertEqual({(2, 8192, 1028)},
                         {(h.vcpus, h.memory_mb, h.disk_gb) for h in hosts})

    def test_sizes_per_zone(self):
        hosts = topology.parse('AZ-1=1x4/16384/100 edge=3x1/2048/10')
        self.assertEqual(
            [('az1-h1', 'AZ-1', 4, 16384, 100), ('edge-h1', 'edge', 1, 2048,
                                                 10),
             ('edge-h2', 'edge', 1, 2048, 10),
             ('edge-h3', 'edge', 1, 2048, 10)],
            [(h.name, h.zone, h.vcpus, h.memory_mb, h.disk_gb)
             for h in hosts])

    def test_bad_specs_say_why(self):
        for spec, why in [('AZ-1=2x2/8192', 'NAME=COUNTxVCPU'),
                          ('AZ-1=0x2/8192/10', '>= 1'),
                          ('AZ-1=1x1/1/1 az1=1x1/1/1', 'same host names'),
                          ('', 'no zone')]:
            exc = self.assertRaises(topology.TopologyError,
                                    topology.parse, spec)
            self.assertIn(why, str(exc))


class TestMinicloudCommands(base.CloudTestCase):

    def _status(self):
        result = fixture.run_minicloud('status', '--json')
        self.assertEqual(0, result.returncode, result.stdout)
        return json.loads(result.stdout)

    def test_second_up_changes_nothing(self):
        pids = {s['name']: s['detail'] for s in self._status()['services']}
        result = fixture.run_minicloud('up')
        self.assertEqual(0, result.returncode, result.stdout + result.stderr)
        self.assertIn('already up and healthy', result.stdout)
        self.assertEqual(
            pids, {s['name']: s['detail'] for s in self._status()['services']})

    def test_status_names_every_service_and_log(self):
        status = self._status()
        self.assertTrue(status['healthy'])
        names = {s['name'] for s in status['services']}
        for name in ('mariadb', 'rabbitmq', 'keystone', 'placement',
                     'glance', 'neutron', 'nova-api', 'nova-conductor',
                     'nova-scheduler', 'heat-api', 'heat-engine'):
            self.assertIn(name, names)
        hosts = [h['host'] for hs in status['zones'].values() for h in hs]
        self.assertEqual(len(hosts), status['hypervisors'])
        for host in hosts:
            self.assertIn(f'nova-compute-{host}', names)
        for svc in status['services']:
            self.assertTrue(svc['log'].endswith(f'/{svc["name"]}.log'))

    def test_placement_inventory_is_the_topology_size(self):
        placement = self.cloud.admin.placement
        sizes = {h['host']: h for hs in self.cloud.zones.values()
                 for h in hs}
        # the compute nodes: reservation providers (blazar_<host>, kept
        # by earlier tests) are their children
        nodes = [rp for rp in placement.resource_providers()
                 if rp.parent_provider_id is None]
        self.assertEqual(sorted(sizes), sorted(rp.name for rp in nodes))
        for rp in nodes:
            inv = {i.resource_class: i for i in
                   placement.resource_provider_inventories(rp)}
            host = sizes[rp.name]
            self.assertEqual(
                (host['vcpus'], host['memory_mb'], host['disk_gb']),
                (inv['VCPU'].total, inv['MEMORY_MB'].total,
                 inv['DISK_GB'].total))
            self.assertEqual(0, inv['MEMORY_MB'].reserved)
