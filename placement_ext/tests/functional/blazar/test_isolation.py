"""Host isolation and the end of a host lease, on the real Blazar, Nova
and our ReservationFilter, with two projects sharing the cloud.

Blazar moves a leased host into an aggregate whose availability zone is
``blazar_<reservation>``; Nova refuses that for a host already in a named
zone, so the test takes the pool's first host out of its zone for the
time of the test (Blazar's hosts sit in the default zone, as in a
devstack). A boot into the lease's zone is a boot on a one-host cloud
(the leased host is its only host); a boot without a zone one on the
whole multi-host cloud.
"""

from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.cloud import fixture as cloud_fixture

UPSTREAM_HOSTS = 'physical.host.plugin,placement_ext.instance.plugin'


class TestHostIsolation(base.BlazarTestCase):

    POOL_SIZE = 1   # the leased host

    def setUp(self):
        super().setUp()
        self.host = self.pool[0]
        self.demo_project = self.cloud.demo.current_project_id
        self._out_of_zone(self.host)

    def _out_of_zone(self, host):
        compute = self.cloud.admin.compute
        zone_agg = next(a for a in compute.aggregates()
                        if host in (a.hosts or ())
                        and a.availability_zone
                        and a.name != 'freepool')
        compute.remove_host_from_aggregate(zone_agg, host)
        self.addCleanup(self._back_to_zone, zone_agg, host)

    def _back_to_zone(self, zone_agg, host):
        """The host back in the free pool and its zone: its servers
        deleted, its leases' aggregates (one kept closed) removed."""
        compute = self.cloud.admin.compute
        servers = list(compute.servers(all_projects=True, host=host))
        for server in servers:
            compute.delete_server(server, ignore_missing=True)
        for server in servers:
            compute.wait_for_delete(server, wait=base.TIMEOUT)
        self._delete_leases()
        for agg in compute.aggregates():
            if host in (agg.hosts or ()) and str(
                    agg.availability_zone).startswith('blazar_'):
                compute.remove_host_from_aggregate(agg, host)
                compute.delete_aggregate(agg)
        freepool = compute.find_aggregate('freepool', ignore_missing=False)
        if host not in (compute.get_aggregate(freepool).hosts or ()):
            compute.add_host_to_aggregate(freepool, host)
        compute.add_host_to_aggregate(zone_agg, host)

    def host_lease(self, client):
        """A lease of ``self.host`` from now, for ``client``'s project."""
        lease = client.lease.create(
            cloud_fixture.unique_name('hosts'), 'now',
            (base.datetime.datetime.utcnow() + base.datetime.timedelta(
                hours=1)).strftime(base.DATE),
            [{'resource_type': 'physical:host', 'min': 1, 'max': 1,
              'hypervisor_properties':
              f'["=", "$hypervisor_hostname", "{self.host}"]',
              'resource_properties': ''}], [])
        self.lease_status(lease['id'], 'ACTIVE')
        return lease, lease['reservations'][0]['id']

    def expire(self, lease_id):
        self.blazar_sql(
            "UPDATE events SET time = UTC_TIMESTAMP() - INTERVAL 1 MINUTE "
            "WHERE lease_id = :l AND event_type = 'end_lease'", l=lease_id)
        self.lease_status(lease_id, 'TERMINATED')

    def gone(self, server):
        return self.cloud.admin.compute.find_server(
            server.id, ignore_missing=True, all_projects=True) is None

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

