"""Host isolation and the end of a host lease, on the real Blazar, Nova
and our ReservationFilter, with two projects sharing the cloud.

The pool's one host is taken out of its zone for the test
(:mod:`~placement_ext.tests.functional.blazar.host_leases`). A boot into
the lease's zone is a boot on a one-host cloud
(the leased host is its only host); a boot without a zone one on the
whole multi-host cloud.
"""

from placement_ext.tests.functional.blazar import host_leases

UPSTREAM_HOSTS = 'physical.host.plugin,placement_ext.instance.plugin'


class TestHostIsolation(host_leases.HostLeaseTestCase):

    def test_two_projects_one_host_then_many(self):
        lease, reservation = self.host_lease(self.demo)
        admin, demo = self.cloud.admin, self.cloud.demo
        mine = {'reservation': reservation}
        zone = f'blazar_{reservation}'
        # the lease's zone: one host, leased by demo; the admin project
        # (no lease) lands there neither without the hint nor with it
        self.assertEqual('ERROR', self.server(admin, zone=zone)[0])
        self.assertEqual('ERROR', self.server(admin, zone=zone, hints=mine)[0])
        status, host, ours = self.server(demo, zone=zone, hints=mine)
        self.assertEqual(('ACTIVE', self.host), (status, host))
        # many hosts: an ordinary server lands off every Blazar host
        status, host, elsewhere = self.server(admin)
        self.assertEqual('ACTIVE', status)
        self.assertNotIn(host, self.pool)
        # an admin forces a server of its project onto the leased host
        status, host, forced = self.server(admin, zone=f'{zone}:{self.host}')
        self.assertEqual(('ACTIVE', self.host), (status, host))
        # the end deletes demo's server only, and says so on the lease;
        # the host stays in the lease's aggregate (Nova keeps a host with
        # servers in its zone), closed to every project
        self.expire(lease['id'])
        self.wait_for(lambda: self.gone(ours), 'demo server deleted')
        self.assertFalse(self.gone(forced))
        self.assertFalse(self.gone(elsewhere))
        self.assertTrue(self.admin.lease.get(lease['id'])['degraded'])
        self.assertEqual('ERROR', self.server(demo, zone=zone, hints=mine)[0])

    def test_upstream_host_plugin_deletes_another_projects_server(self):
        with self.manager_plugins(UPSTREAM_HOSTS):
            lease, res = self.host_lease(self.demo)
            _status, host, forced = self.server(
                self.cloud.admin, zone=f'blazar_{res}:{self.host}')
            self.assertEqual(self.host, host)
            self.expire(lease['id'])
            self.wait_for(lambda: self.gone(forced),
                          'admin server deleted by upstream')
            self.assertFalse(self.admin.lease.get(lease['id'])['degraded'])

