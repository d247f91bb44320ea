"""A host Blazar's monitor marks failed, then recovered, on the real
blazar-manager (polling monitor on) and Nova: while its compute service
is disabled our plugin offers it to no new slot, and once Blazar marks
it reservable again our plugin offers it again; blazar-manager's log
says both."""

import pathlib

from placement_ext.tests.functional.blazar import base

MONITOR = ('[physical:host]\nenable_polling_monitor = true\n'
           'polling_interval = 2\n')


class TestHostRecovery(base.BlazarTestCase):

    def compute_service(self, host):
        (service,) = self.cloud.admin.compute.services(
            host=host, binary='nova-compute')
        return service

    def set_enabled(self, host, enabled):
        service = self.compute_service(host)
        if enabled:
            self.cloud.admin.compute.enable_service(service)
        else:
            self.cloud.admin.compute.disable_service(
                service, disabled_reason='placement_ext recovery test')

    def blazar_reservable(self, host, value):
        self.wait_for(lambda: self.blazar_host(host)['reservable'] is value,
                      f'Blazar marks {host} reservable={value}', timeout=60)

    def manager_log(self):
        return pathlib.Path(self.cloud_base(), 'log',
                            'blazar-manager.log').read_text()

    def test_a_recovered_host_is_offered_again(self):
        host, other = self.pool
        # the log of earlier runs is kept: only what follows counts
        start = len(self.manager_log())
        with self.manager_conf('monitor', MONITOR):
            self.set_enabled(host, False)
            self.addCleanup(self.set_enabled, host, True)
            self.blazar_reservable(host, False)
            # two one-vCPU slots per 2-vCPU host: the failed one is out
            exc = self.refused(base.cloud_fixture.unique_name('four'), 4,
                               days_ahead=1)
            self.assertIn('not enough capacity', str(exc))
            lease = self.create_lease(base.cloud_fixture.unique_name('two'),
                                      2, days_ahead=1)
            self.assertEqual({other}, {
                name for (name,) in self.blazar_sql(
                    'SELECT h.hypervisor_hostname FROM '
                    'computehost_allocations a JOIN computehosts h ON '
                    'h.id = a.compute_host_id WHERE a.reservation_id = :r',
                    r=lease['reservations'][0]['id'])})
            self._delete_leases()
            self.assertIn(f'Host {host} failed', self.manager_log()[start:])
            self.set_enabled(host, True)
            self.blazar_reservable(host, True)
            # the plugin's periodic round offers it again, before any
            # lease create looks
            self.wait_for(lambda: f'Host {host} is reservable again' in
                          self.manager_log()[start:], 'recovery logged',
                          timeout=60)
            # four slots fit on the two hosts again
            self.create_lease(base.cloud_fixture.unique_name('four'), 4,
                              days_ahead=1)
