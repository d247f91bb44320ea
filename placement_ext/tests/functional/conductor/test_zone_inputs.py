"""Candidate zones and zone capacity from the real Nova and Placement, as
an admin and as a member (no admin rights) sees them."""

import openstack
import testtools

from placement_ext.conductor import zone_inputs
from placement_ext.drivers import nova as nova_driver
from placement_ext.drivers import placement as placement_driver
from placement_ext.testing import vnf_template
from placement_ext.tests.functional.cloud import fixture as cloud_fixture


def _drivers(clouds_yaml, cloud):
    config = openstack.config.OpenStackConfig(config_files=[clouds_yaml])
    session = config.get_one(cloud).get_session()
    nova = nova_driver.NovaDriver(session)
    placement = placement_driver.PlacementDriver(
        placement_driver.PlacementClient.from_session(session))
    return nova, placement


class TestZoneInputs(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = cloud_fixture.use_cloud(self)

    def test_admin_sees_zones_hosts_and_capacity(self):
        nova, placement = _drivers(self.cloud.clouds_yaml, 'admin')
        listing = nova.compute_zones()
        self.assertTrue(listing.detailed)
        self.assertEqual(sorted(self.cloud.zones), list(listing.zones))
        self.assertEqual(
            sorted(h['host'] for h in self.cloud.zones['AZ-1']),
            list(listing.hosts['AZ-1']))
        self.cloud.fill_zone('AZ-1')
        source = zone_inputs.ZoneSource(nova, placement)
        request = {'flavors': {'VDU1': vnf_template.VDU_SMALL}}
        capacity = source.capacity(list(listing.zones), request, 'VDU1-0')
        self.assertEqual(0, capacity['AZ-1'])
        self.assertEqual(self.cloud.capacity('AZ-2'), capacity['AZ-2'])

    def test_member_falls_back_to_the_plain_zone_list(self):
        nova, placement = _drivers(self.cloud.clouds_yaml, 'demo')
        listing = nova.compute_zones()
        self.assertFalse(listing.detailed)
        self.assertEqual(sorted(self.cloud.zones), list(listing.zones))
        self.assertIn('forbidden for this account', listing.note)
        # without aggregates, capacity is unknown rather than an error
        source = zone_inputs.ZoneSource(nova, placement)
        self.assertIsNone(source.capacity(
            list(listing.zones), {'flavors': {'VDU1': vnf_template.VDU_SMALL}},
            'VDU1-0'))
