"""What an admin and a plain user may read about zones and hosts.

Tacker's zone reselection reads ``os-availability-zone/detail`` (admin
only) and a server's ``OS-EXT-SRV-ATTR:host`` (admin only).
"""

from placement_ext.tests.functional.cloud import base


def _zone_hosts(body: dict) -> dict:
    """zone -> hosts running nova-compute, from os-availability-zone."""
    return {z['zoneName']: sorted(h for h, svcs in (z['hosts'] or {}).items()
                                  if 'nova-compute' in svcs)
            for z in body['availabilityZoneInfo']}


class TestZonesAndHosts(base.CloudTestCase):

    def test_admin_reads_server_host(self):
        server = self.cloud.boot_server('AZ-2', conn=self.cloud.demo)
        self.assertEqual('ACTIVE', server.status)
        admin_view = self.cloud.admin.compute.get(
            f'/servers/{server.id}').json()['server']
        az2_hosts = [h['host'] for h in self.cloud.zones['AZ-2']]
        self.assertIn(admin_view['OS-EXT-SRV-ATTR:host'], az2_hosts)
        self.assertEqual('AZ-2', admin_view['OS-EXT-AZ:availability_zone'])
        demo_view = self.cloud.demo.compute.get(
            f'/servers/{server.id}').json()['server']
        self.assertNotIn('OS-EXT-SRV-ATTR:host', demo_view)

    def test_admin_reads_zone_detail(self):
        resp = self.cloud.admin.compute.get('/os-availability-zone/detail')
        self.assertEqual(200, resp.status_code)
        expected = {zone: sorted(h['host'] for h in hosts)
                    for zone, hosts in self.cloud.zones.items()}
        zones = _zone_hosts(resp.json())
        self.assertEqual([], zones.pop('internal'))   # conductor, scheduler
        self.assertEqual(expected, zones)

    def test_demo_gets_403_for_zone_detail(self):
        detail = self.cloud.demo.compute.get('/os-availability-zone/detail')
        self.assertEqual(403, detail.status_code)
        # the plain list stays readable: the fallback for non-admins
        plain = self.cloud.demo.compute.get('/os-availability-zone')
        self.assertEqual(200, plain.status_code)
        names = {z['zoneName']
                 for z in plain.json()['availabilityZoneInfo']}
        self.assertEqual(set(self.cloud.zones), names)
