"""A one-host pool for ``physical:host`` leases, on the real Blazar and
Nova.

Blazar moves a leased host into an aggregate whose availability zone is
``blazar_<reservation>``; Nova refuses that for a host already in a named
zone, so the test takes the pool's host out of its zone for the time of
the test (Blazar's hosts sit in the default zone, as in a devstack), and
puts it back, with its servers and leases' aggregates gone, at its end.
"""

from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.cloud import fixture as cloud_fixture


class HostLeaseTestCase(base.BlazarTestCase):

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
