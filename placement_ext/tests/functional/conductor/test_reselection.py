"""Zone reselection against real Heat, Nova and Placement.

The Heat texts asserted here are the ones the embedded cloud produces;
the conductor classifies them with the default
``[v2_vnfm] placement_az_resource_error``.
"""

from placement_ext import errors
from placement_ext.testing import vnf_template
from placement_ext.tests.functional.conductor import base
from placement_ext.vocabulary import states

ANTI_AFFINITY = {
    'affinityOrAntiAffinity': 'ANTI_AFFINITY', 'scope': 'ZONE',
    'resource': [{'idType': 'GRANT', 'resourceId': 'VDU2-0'},
                 {'idType': 'GRANT', 'resourceId': 'VDU2-1'}]}


class TestInstantiate(base.ConductorCloudTestCase):

    def test_full_zone_reselects_to_a_zone_with_room(self):
        self.cloud.fill_zone('AZ-1')
        op = self.run_operation(self.request(
            'INSTANTIATE', {'VDU1-0': 'AZ-1'}, ['VDU1-0']))

        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        first, second = op.attempts
        self.assertEqual(('VDU1-0', 'AZ-1', 'insufficient_capacity'),
                         (first.vdu_id, first.zone, first.outcome))
        self.assertIn('resources.VDU1-0.resources.VDU', first.error_text)
        self.assertIn('No valid host was found', first.error_text)
        self.assertEqual('success', second.outcome)
        # capacity from Placement: the zone chosen had room for it
        self.assertGreater(second.decision['capacity'][second.zone], 0)
        self.assertEqual(0, second.decision['capacity']['AZ-1'])
        _, zone = self.server_zones()['VDU1-0']
        self.assertEqual(op.placement['VDU1-0'], zone)
        self.assertNotEqual('AZ-1', zone)

    def test_anti_affinity_vdus_end_in_different_zones(self):
        self.cloud.fill_zone('AZ-1')
        op = self.run_operation(self.request(
            'INSTANTIATE', {'VDU2-0': 'AZ-1', 'VDU2-1': 'AZ-1'},
            ['VDU2-0', 'VDU2-1'], constraints=[ANTI_AFFINITY]))

        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        zones = {vnfc: zone for vnfc, (_, zone) in self.server_zones().items()}
        self.assertEqual(op.placement, zones)
        self.assertNotEqual(zones['VDU2-0'], zones['VDU2-1'])
        self.assertNotIn('AZ-1', zones.values())
        self.assertEqual([], op.attempts[-1].decision['broken'])

    def test_non_capacity_error_fails_at_once_with_heats_text(self):
        failing = {'broken': {'type': 'OS::Heat::TestResource',
                              'properties': {'fail': True}}}
        body = self.request('INSTANTIATE', {'VDU1-0': 'AZ-2'}, ['VDU1-0'])
        body['template'] = vnf_template.template(['VDU1-0'], failing)
        op = self.run_operation(body)

        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        self.assertEqual(errors.STACK_FAILED, op.error['code'])
        self.assertIn('resources.broken', op.error['detail'])
        self.assertEqual(['error'], [a.outcome for a in op.attempts])

    def test_all_zones_full_fails_listing_what_was_tried(self):
        for zone in ('AZ-1', 'AZ-2', 'AZ-3'):
            self.cloud.fill_zone(zone)
        op = self.run_operation(self.request(
            'INSTANTIATE', {'VDU1-0': 'AZ-1'}, ['VDU1-0']))

        self.assertEqual(states.STATE_FAILED, op.state)
        self.assertEqual(errors.ZONES_EXHAUSTED, op.error['code'])
        self.assertEqual(['AZ-1', 'AZ-2', 'AZ-3'],
                         sorted(op.failed_zones['VDU1-0']))
        for zone in ('AZ-1', 'AZ-2', 'AZ-3'):
            self.assertIn(zone, op.error['detail'])
        self.assertIn('No valid host was found', op.error['detail'])


class TestScaleAndHeal(base.ConductorCloudTestCase):

    def _instantiate(self, placement):
        op = self.run_operation(self.request(
            'INSTANTIATE', placement, sorted(placement)))
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        return self.server_zones()

    def test_scale_out_reselects_only_the_new_vnfc(self):
        before = self._instantiate({'VDU1-0': 'AZ-2'})
        self.cloud.fill_zone('AZ-2')
        op = self.run_operation(self.request(
            'SCALE', {'VDU1-0': 'AZ-2', 'VDU1-1': 'AZ-2'}, ['VDU1-1']))

        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        after = self.server_zones()
        self.assertEqual(before['VDU1-0'], after['VDU1-0'])   # not moved
        self.assertNotEqual('AZ-2', after['VDU1-1'][1])
        self.assertEqual({'VDU1-1'}, {a.vdu_id for a in op.attempts})

    def test_heal_reselects_only_its_target(self):
        before = self._instantiate({'VDU1-0': 'AZ-2', 'VDU1-1': 'AZ-3'})
        self.cloud.fill_zone('AZ-3')
        op = self.run_operation(self.request(
            'HEAL', {'VDU1-0': 'AZ-2', 'VDU1-1': 'AZ-3'}, ['VDU1-1'],
            heal_resources=['VDU1-1']))

        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        after = self.server_zones()
        self.assertEqual(before['VDU1-0'], after['VDU1-0'])
        self.assertNotEqual(before['VDU1-1'][0], after['VDU1-1'][0])
        self.assertNotEqual('AZ-3', after['VDU1-1'][1])
        self.assertEqual('AZ-3', op.attempts[0].zone)
