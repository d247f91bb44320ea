"""Going back to Blazar's own plugins under live leases (doc/source/
blazar.rst, "Uninstall: back to Blazar's own plugins"), on the real
blazar-manager and blazar-api: the steps of the doc, in order.

With our plugins: an active host lease with a server of its project, an
active instance lease (affinity True, so a server group) with one server
booted into it, a pending instance lease. blazar-manager stopped,
``placement-ext-blazar-handback`` run (twice: the second run finds
nothing left), ``[manager] plugins`` set to upstream's two, blazar-manager
and blazar-api restarted. Then, under upstream's plugins: the active
lease takes one more server and refuses the one beyond its amount; each
lease ends (its end event brought forward, as time would) deleting its
own servers only, leaving no flavor, aggregate, resource class,
inventory or server group; the pending lease starts, takes a server and
ends the same way. What stays: the ``blazar_<host>`` providers (upstream's
host plugin owns them) and the free pool.

The swap restarts blazar-manager and blazar-api twice each: a slow case
(slow_cases.txt). The regular run has the cheap case: ``--check`` on live
leases. ``tox -e functional-blazar15 -- test_swap_out`` runs both on the
oldest release (Blazar 15).
"""

import os
import pathlib
import signal
import subprocess

from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.blazar import host_leases
from placement_ext.tests.functional.blazar import test_plugin
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.reservation import test_cloud

UPSTREAM = 'physical.host.plugin,virtual.instance.plugin'
_borrowed = test_cloud.CloudReservationTestCase
_isolation = host_leases.HostLeaseTestCase


class TestSwapOut(base.BlazarTestCase):

    faults = _borrowed.faults
    hosts_of = _borrowed.hosts_of
    _nothing_of_ours_left = test_plugin.TestBlazarPlugin.assert_nothing_left
    # Blazar's leased host leaves its named zone for the test
    # (test_isolation says why)
    _out_of_zone = _isolation._out_of_zone
    _back_to_zone = _isolation._back_to_zone

    def test_leases_continue_under_upstreams_plugins(self):
        demo = self.cloud.demo
        # a host lease of the demo project, active, with its server
        self.host = self.pool[0]
        self._out_of_zone(self.host)
        host_lease = self.create_lease(
            cloud_fixture.unique_name('host'), None, reservation={
                'resource_type': 'physical:host', 'min': 1, 'max': 1,
                'hypervisor_properties':
                f'["=", "$hypervisor_hostname", "{self.host}"]',
                'resource_properties': ''})
        self.lease_status(host_lease['id'], 'ACTIVE')
        host_res = host_lease['reservations'][0]['id']
        status, leased_host, on_host = self.server(
            demo, zone=f'blazar_{host_res}', hints={'reservation': host_res})
        self.assertEqual(('ACTIVE', self.host), (status, leased_host))
        # an active instance lease (two slots, affinity: a server group)
        # on the other host, one server in it
        active = self.create_lease(cloud_fixture.unique_name('active'), 2,
                                   affinity='True')
        self.lease_status(active['id'], 'ACTIVE')
        res = self.admin.lease.get(active['id'])['reservations'][0]
        group = res['server_group_id']
        self.assertIsNotNone(group)
        first = self.booted(res['flavor_id'], group)
        # a pending instance lease, tomorrow
        pending = self.create_lease(cloud_fixture.unique_name('pending'), 1,
                                    days_ahead=1)
        pending_res = pending['reservations'][0]
        # a server of another project elsewhere: never deleted
        other_zone = sorted(self.cloud.zones)[0]
        bystander = self.cloud.boot_server(other_zone, conn=self.cloud.admin)
        self.addCleanup(self.cloud.admin.compute.delete_server, bystander,
                        ignore_missing=True)
        self.assertEqual('ACTIVE', bystander.status)

        # the uninstall steps: stop blazar-manager, hand back, swap
        self.stop_manager()
        self.addCleanup(self.ensure_manager)
        report = self.handback()
        self.assertEqual(0, report.returncode, report.stdout + report.stderr)
        self.assertIn(f'lease {active["id"]} reservation {res["id"]}: '
                      f'handed back: active', report.stdout)
        self.assertIn(f'lease {pending["id"]} reservation '
                      f'{pending_res["id"]}: handed back: pending',
                      report.stdout)
        again = self.handback()
        self.assertEqual((0, 'No lease of ours left: nothing to hand '
                             'back.\n'), (again.returncode, again.stdout))
        row, = self.blazar_sql(
            'SELECT aggregate_id, server_group_id FROM instance_reservations '
            'WHERE reservation_id = :r', r=res['id'])
        self.assertEqual(group, row[1])
        self.assertIsNotNone(row[0])
        with self.manager_plugins(UPSTREAM):
            self.restart_api()
            self.addCleanup(self.restart_api)
            self.under_upstream(active['id'], res, group, first,
                                host_lease, on_host, leased_host, pending,
                                bystander)

    def test_check_names_what_upstreams_end_would_delete(self):
        """The cheap case (regular run): ``--check`` on live leases of
        ours changes nothing and keeps a lease whose flavor has a server
        of another project."""
        active = self.create_lease(cloud_fixture.unique_name('active'), 1)
        pending = self.create_lease(cloud_fixture.unique_name('pending'), 1,
                                    days_ahead=1)
        self.lease_status(active['id'], 'ACTIVE')
        res = self.admin.lease.get(active['id'])['reservations'][0]
        # the admin project may boot with any flavor
        status, _host, stranger = self.server(self.cloud.admin,
                                              res['flavor_id'])
        self.assertEqual('ACTIVE', status)
        report = self.handback('--check')
        self.assertEqual(1, report.returncode, report.stderr)
        self.assertIn(f'lease {active["id"]} reservation {res["id"]}: kept: '
                      f'upstream\'s end would delete servers of its flavor '
                      f'that the lease did not admit: {stranger.id} '
                      f'(project {stranger.project_id})', report.stdout)
        self.assertIn(f'lease {pending["id"]} reservation '
                      f'{pending["reservations"][0]["id"]}: ready: pending',
                      report.stdout)
        row, = self.blazar_sql(
            'SELECT aggregate_id FROM instance_reservations WHERE '
            'reservation_id = :r', r=res['id'])
        self.assertEqual((None,), tuple(row))
        # still ours: its end frees the slot once the stranger is gone
        self.cloud.admin.compute.delete_server(stranger)
        self.cloud.admin.compute.wait_for_delete(stranger, wait=base.TIMEOUT)

    def under_upstream(self, active_id, res, group, first, host_lease, on_host,
                       leased_host, pending, bystander):
        admin = self.cloud.admin
        # the active lease: one more server, not a third (amount 2)
        second = self.booted(res['flavor_id'], group)
        beyond = self.booted(res['flavor_id'], group, status='ERROR')
        hosts = self.hosts_of([first, second])
        self.assertEqual(1, len(set(hosts)), hosts)   # affinity True
        self.assertNotIn(leased_host, hosts)
        # its end: its servers only, nothing of it left
        self.expire(active_id)
        self.assert_nothing_left(res, [first, second, beyond], group)
        for kept in (on_host, bystander):
            self.assertIsNotNone(admin.compute.find_server(
                kept.id, ignore_missing=True, all_projects=True))
        # the host lease's end: its project's server goes, not the other
        self.expire(host_lease['id'])
        self.assertIsNone(admin.compute.find_server(
            on_host.id, ignore_missing=True, all_projects=True))
        self.assertIsNotNone(admin.compute.find_server(
            bystander.id, ignore_missing=True, all_projects=True))
        # the pending lease starts under upstream's plugin, takes its
        # server, refuses a second, and ends
        pending_res = self.admin.lease.get(pending['id'])['reservations'][0]
        self.blazar_sql(
            "UPDATE events SET time = UTC_TIMESTAMP() - INTERVAL 1 MINUTE "
            "WHERE lease_id = :l AND event_type = 'start_lease'",
            l=pending['id'])
        self.lease_status(pending['id'], 'ACTIVE')
        servers = [self.booted(pending_res['flavor_id']),
                   self.booted(pending_res['flavor_id'], status='ERROR')]
        self.expire(pending['id'])
        self.assert_nothing_left(pending_res, servers)
        self.assertIsNotNone(admin.compute.find_server(
            bystander.id, ignore_missing=True, all_projects=True))
        # upstream's host plugin keeps using our reservation providers
        for host in self.pool:
            self.assertIsNotNone(self.res.placement.reservation_provider(host))

    # -- steps -----------------------------------------------------------

    def stop_manager(self):
        os.killpg(self.pid('blazar-manager'), signal.SIGTERM)
        self.wait_for(lambda: not self._alive(self.pid('blazar-manager')),
                      'blazar-manager stopped')

    def ensure_manager(self):
        """blazar-manager runs again (a step failed before the swap)."""
        if not self._alive(self.pid('blazar-manager')):
            self.restart_manager()

    @staticmethod
    def _alive(pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    def handback(self, *options):
        etc = pathlib.Path(self.addon['etc'])
        return subprocess.run(
            [os.path.join(self.addon['venv'], 'bin',
                          'placement-ext-blazar-handback'),
             '--config-file', str(etc / 'blazar.conf'),
             '--config-dir', str(etc / 'blazar.conf.d'), *options],
            capture_output=True, text=True, timeout=base.TIMEOUT,
            check=False)

    def restart_api(self):
        result = cloud_fixture.run_minicloud('addon', 'restart', 'blazar',
                                             'blazar-api')
        self.assertEqual(0, result.returncode, result.stderr)
        self.wait_for(self._manager_answers, 'blazar-api answers')

    def booted(self, flavor_id, group=None, status='ACTIVE'):
        """A demo server of the flavor (in the group), waited for."""
        got, _host, server = self.server(
            self.cloud.demo, flavor_id, hints={'group': group} if group
            else None)
        self.assertEqual(status, got, self.faults([server]))
        return server

    def assert_nothing_left(self, res, servers, group=None):
        """What test_plugin checks, and the aggregate and group."""
        self._nothing_of_ours_left(res, servers)
        admin = self.cloud.admin
        self.assertNotIn(res['id'], [a.name for a in
                                     admin.compute.aggregates()])
        if group:
            self.assertIsNone(admin.compute.find_server_group(
                group, ignore_missing=True))
