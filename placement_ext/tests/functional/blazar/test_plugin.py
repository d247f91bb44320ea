"""Our instance plugin inside the real blazar-manager, through
python-blazarclient and blazar-api: reserved capacity is what Nova
grants, overlapping leases that upstream's plugin accepts are refused,
a lease deleted while active or ended leaves nothing, a manager
killed in the middle of a lease start finishes it after its restart, and
a host deleted from Blazar takes ordinary builds at once and can be
enrolled again (our ``physical:host`` plugin)."""

import os
import signal

from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.reservation import test_cloud
from placement_ext.vocabulary import reservation_names as names

UPSTREAM = 'placement_ext.host.plugin,virtual.instance.plugin'
HOST_RESERVATION = {'resource_type': 'physical:host', 'min': 1, 'max': 1,
                    'hypervisor_properties': '', 'resource_properties': ''}
_borrowed = test_cloud.CloudReservationTestCase


class TestBlazarPlugin(base.BlazarTestCase):

    boot = _borrowed.boot
    boot_all = _borrowed.boot_all
    faults = _borrowed.faults
    hosts_of = _borrowed.hosts_of
    _compute_rp = _borrowed._compute_rp
    _set_cpu_ratio = _borrowed._set_cpu_ratio

    def test_six_instances_on_two_hosts_then_delete_while_active(self):
        for host in self.pool:
            self._set_cpu_ratio(host, test_cloud.RATIO)
            self.addCleanup(self._set_cpu_ratio, host, 1.0)
        lease = self.create_lease(cloud_fixture.unique_name('six'), 6)
        res = lease['reservations'][0]
        self.assertEqual((6, None, res['id'], None, None),
                         (res['amount'], res['affinity'], res['flavor_id'],
                          res['aggregate_id'], res['server_group_id']))
        self.lease_status(lease['id'], 'ACTIVE')
        servers = self.boot_all(res['flavor_id'], 6)
        self.assertEqual(['ACTIVE'] * 6, [s.status for s in servers],
                         self.faults(servers))
        self.assertLessEqual(set(self.hosts_of(servers)), set(self.pool))
        seventh = self.boot_all(res['flavor_id'], 1)
        self.assertEqual(['ERROR'], [s.status for s in seventh])
        # an ordinary flavor stays off the reservable hosts
        ordinary = self.cloud.boot_server(self.zone, conn=self.cloud.demo)
        self.assertEqual('ERROR', ordinary.status)
        # while active: one more slot (8 fit), then one too many
        self.demo.lease.update(lease['id'], reservations=[
            {'id': res['id'], 'amount': 7}])
        self.lease_status(lease['id'], 'ACTIVE')
        self.assertEqual(7, self.admin.lease.get(
            lease['id'])['reservations'][0]['amount'])
        servers += self.boot_all(res['flavor_id'], 1)
        self.assertEqual('ACTIVE', servers[-1].status,
                         self.faults(servers))
        exc = self.assertRaises(
            base.blazar_exc.BlazarClientException, self.demo.lease.update,
            lease['id'], reservations=[{'id': res['id'], 'amount': 9}])
        self.assertIn('not enough capacity', str(exc))
        self.demo.lease.delete(lease['id'])
        self.wait_for(lambda: not self.admin.lease.list(), 'lease deleted')
        self.assert_nothing_left(res, servers)

    def test_host_delete_then_ordinary_build_at_once_and_re_enrol(self):
        host = self.pool[0]
        provider = self.res.placement.reservation_provider(host)
        self.admin.host.delete(self.blazar_host(host)['id'])
        self.addCleanup(self._enrol, self.pool)
        # kept, empty: nova-compute's cached tree stays valid
        kept = self.res.placement.reservation_provider(host)
        self.assertEqual(provider.uuid, kept.uuid)
        self.assertEqual({}, self.res.placement.inventories(kept.uuid)[1])
        # out of the free pool: an ordinary server lands on it at once
        server = self.cloud.boot_server(self.zone, conn=self.cloud.demo)
        self.addCleanup(self.cloud.demo.compute.delete_server, server,
                        ignore_missing=True)
        self.assertEqual('ACTIVE', server.status, self.faults([server]))
        self.assertEqual([host], self.hosts_of([server]))
        self.cloud.demo.compute.delete_server(server)
        self.cloud.demo.compute.wait_for_delete(server, wait=base.TIMEOUT)
        # enrolled again: the same provider, reservable again
        self.admin.host.create(host)
        self.assertEqual(provider.uuid,
                         self.res.placement.reservation_provider(host).uuid)
        lease = self.create_lease(cloud_fixture.unique_name('back'), 4)
        self.lease_status(lease['id'], 'ACTIVE')

    def assert_nothing_left(self, res, servers):
        admin = self.cloud.admin
        for server in servers:
            self.assertIsNone(admin.compute.find_server(
                server.id, ignore_missing=True, all_projects=True))
        self.assertIsNone(admin.compute.find_flavor(res['flavor_id'],
                                                    ignore_missing=True))
        rc = names.resource_class_for(res['id'])
        self.assertNotIn(rc, self.res.placement.reservation_classes())
        for host in self.pool:
            provider = self.res.placement.reservation_provider(host)
            _gen, inventories = self.res.placement.inventories(provider.uuid)
            self.assertNotIn(rc, inventories)
        self.assertEqual([], self.blazar_sql(
            'SELECT id FROM computehost_allocations WHERE reservation_id = '
            ':r', r=res['id']))

    def test_overlapping_leases_refused_where_upstream_overbooks(self):
        # a host reservation (upstream's physical.host.plugin) takes one
        # of the two hosts tomorrow: 4 instances no longer fit then
        self.create_lease(cloud_fixture.unique_name('host'), None,
                          days_ahead=1, reservation=HOST_RESERVATION)
        exc = self.refused(cloud_fixture.unique_name('a'), 4, days_ahead=1)
        self.assertIn('not enough capacity', str(exc))
        self._delete_leases()
        # 4 one-vCPU slots on two 2-vCPU hosts: all of them
        self.create_lease(cloud_fixture.unique_name('a'), 4, days_ahead=1)
        exc = self.refused(cloud_fixture.unique_name('b'), 2, days_ahead=1)
        self.assertIn('not enough capacity', str(exc))
        self._delete_leases()
        with self.upstream_plugin():
            self.create_lease(cloud_fixture.unique_name('a-up'), 4,
                              days_ahead=1)
            # upstream counts the first lease once per host: accepted,
            # 6 vCPUs promised on 4
            self.create_lease(cloud_fixture.unique_name('b-up'), 2,
                              days_ahead=1)
            self.assertEqual(2, len(self.admin.lease.list()))
            self._delete_leases()

    def upstream_plugin(self):
        """blazar-manager with upstream's virtual.instance.plugin."""
        return self.manager_plugins(UPSTREAM)

    def test_manager_killed_mid_start_converges_after_restart(self):
        lease = self.create_lease(cloud_fixture.unique_name('kill'), 2,
                                  days_ahead=1)
        placement = self.pid('placement')
        # Placement stalls: the start hangs in its first Placement call
        os.kill(placement, signal.SIGSTOP)
        self.addCleanup(os.kill, placement, signal.SIGCONT)
        self.blazar_sql(
            "UPDATE events SET time = UTC_TIMESTAMP() - INTERVAL 1 MINUTE "
            "WHERE lease_id = :l AND event_type = 'start_lease'",
            l=lease['id'])
        self.wait_for(lambda: self.blazar_sql(
            'SELECT status FROM leases WHERE id = :l',
            l=lease['id']) == [('STARTING',)], 'lease STARTING')
        self.kill_manager()
        os.kill(placement, signal.SIGCONT)
        self.restart_manager()
        self.lease_status(lease['id'], 'ACTIVE')
        res = self.admin.lease.get(lease['id'])['reservations'][0]
        rc = names.resource_class_for(res['id'])
        totals = 0
        for host in self.pool:
            provider = self.res.placement.reservation_provider(host)
            _gen, inventories = self.res.placement.inventories(provider.uuid)
            totals += inventories.get(rc, {}).get('total', 0)
        self.assertEqual(2, totals)
        # its end, when its time comes: nothing is left
        servers = self.boot_all(res['flavor_id'], 1)
        self.assertEqual(['ACTIVE'], [s.status for s in servers],
                         self.faults(servers))
        self.blazar_sql(
            "UPDATE events SET time = UTC_TIMESTAMP() - INTERVAL 1 MINUTE "
            "WHERE lease_id = :l AND event_type = 'end_lease'",
            l=lease['id'])
        self.lease_status(lease['id'], 'TERMINATED')
        self.assert_nothing_left(res, servers)
