"""The embedded cloud's own tooling: idempotent up, status, host sizes.

Its topology parser is unit-tested (tests/unit/tools/).
"""

import json

from placement_ext.tests.functional.cloud import base
from placement_ext.tests.functional.cloud import fixture


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
