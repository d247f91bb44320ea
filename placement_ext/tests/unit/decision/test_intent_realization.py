"""Realising a deployment intent in a Heat template."""

import copy

import testtools

from placement_ext import exception
from placement_ext.decision import homing
from placement_ext.decision import intent_realization as ir
from placement_ext.schemas import homing as schema

TEMPLATE = {
    'heat_template_version': '2021-04-16',
    'parameters': {'vgw_flavor': {'type': 'string', 'default': 'm1.vgw'}},
    'resources': {
        'vgw': {'type': 'OS::Heat::ResourceGroup', 'properties': {
            'count': 3,
            'resource_def': {'type': 'OS::Nova::Server', 'properties': {
                'flavor': {'get_param': 'vgw_flavor'}, 'image': 'cirros'}}}},
        'vgw-mgmt': {'type': 'OS::Nova::Server', 'properties': {
            'flavor': 'm1.vgw', 'image': 'cirros',
            'scheduler_hints': {'different_host': ['x']}}},
        'vdns': {'type': 'OS::Nova::Server', 'properties': {
            'flavor': 'm1.small', 'image': 'cirros'}},
        'tagged': {'type': 'OS::Nova::Server', 'properties': {
            'flavor': 'm1.vgw', 'metadata': {'vnfc': 'vgw'}}},
        'net': {'type': 'OS::Neutron::Net'},
    },
}
FLAVORS = [
    ir.Flavor('m1.small', 1, 512, 1),
    ir.Flavor('m1.vgw', 4, 4096, 10),
    ir.Flavor('vgw.guaranteed', 4, 4096, 10, {
        'quota:cpu_reservation_percent': '100',
        'quota:memory_reservation_percent': '100'}),
    ir.Flavor('vgw.burst25', 4, 4096, 10, {
        'quota:cpu_reservation_percent': '80',
        'quota:memory_reservation_percent': '80'}),
    ir.Flavor('big.burst25', 8, 8192, 20, {
        ir.OVERSUBSCRIPTION_SPEC: '25'}),
    ir.Flavor('tiny.burst50', 1, 512, 1, {ir.OVERSUBSCRIPTION_SPEC: '50'}),
]


def intent(vnfc='vgw', **kw):
    return homing.Intent(cost_evaluation=False, vnfc=vnfc, **kw)


HA = intent(high_availability=True)


class TestOversubscription(testtools.TestCase):

    def test_from_reservation_percentages(self):
        for specs, expected in (
                ({}, None),
                ({'quota:cpu_reservation_percent': '80'}, None),
                ({'quota:cpu_reservation_percent': '100',
                  'quota:memory_reservation_percent': '100'}, 0),
                ({'quota:cpu_reservation_percent': '80',
                  'quota:memory_reservation_percent': '100'}, 25),
                ({'quota:cpu_reservation_percent': '50',
                  'quota:memory_reservation_percent': '50'}, 100),
                ({'quota:cpu_reservation_percent': '0',
                  'quota:memory_reservation_percent': '100'}, None),
                ({'quota:cpu_reservation_percent': 'lots',
                  'quota:memory_reservation_percent': '100'}, None),
                ({ir.OVERSUBSCRIPTION_SPEC: '50',
                  'quota:cpu_reservation_percent': '100',
                  'quota:memory_reservation_percent': '100'}, 50)):
            self.assertEqual(expected,
                             ir.Flavor('f', 1, 1, 1, specs)
                             .oversubscription(), specs)


class TestHighAvailability(testtools.TestCase):

    def test_every_server_of_the_vnfc_joins_one_anti_affinity_group(self):
        result = ir.realize(TEMPLATE, HA)
        resources = result.template['resources']
        self.assertEqual(
            {'type': 'OS::Nova::ServerGroup',
             'properties': {'name': 'vgw_anti_affinity',
                            'policies': ['anti-affinity']}},
            resources['vgw_anti_affinity'])
        group = {'get_resource': 'vgw_anti_affinity'}
        member = resources['vgw']['properties']['resource_def']
        self.assertEqual({'group': group},
                         member['properties']['scheduler_hints'])
        self.assertEqual({'different_host': ['x'], 'group': group},
                         resources['vgw-mgmt']['properties'][
                             'scheduler_hints'])
        self.assertEqual(group, resources['tagged']['properties'][
            'scheduler_hints']['group'])
        self.assertNotIn('scheduler_hints',
                         resources['vdns']['properties'])
        self.assertEqual(4, len(result.changes))

    def test_the_rest_of_the_template_is_unchanged(self):
        original = copy.deepcopy(TEMPLATE)
        result = ir.realize(TEMPLATE, HA)
        self.assertEqual(original, TEMPLATE)  # input not modified
        resources = dict(result.template['resources'])
        del resources['vgw_anti_affinity']
        for name in ('vgw', 'vgw-mgmt', 'tagged'):
            self.assertIsNotNone(resources.pop(name))
        self.assertEqual({k: v for k, v in original['resources'].items()
                          if k in resources}, resources)
        self.assertEqual(original['parameters'],
                         result.template['parameters'])

    def test_realising_twice_changes_nothing_more(self):
        once = ir.realize(TEMPLATE, HA)
        twice = ir.realize(once.template, HA)
        self.assertEqual(once.template, twice.template)
        self.assertEqual((), twice.changes)

    def test_without_a_vnfc_every_server_is_spread(self):
        result = ir.realize(TEMPLATE, intent(vnfc=None,
                                             high_availability=True))
        self.assertIn('vnf_anti_affinity', result.template['resources'])
        self.assertIn('scheduler_hints', result.template['resources'][
            'vdns']['properties'])

    def test_a_server_in_another_group_is_refused(self):
        template = copy.deepcopy(TEMPLATE)
        template['resources']['vgw-mgmt']['properties'][
            'scheduler_hints'] = {'group': 'other'}
        error = self.assertRaises(exception.IntentUnrealisable, ir.realize,
                                  template, HA)
        self.assertIn("vgw-mgmt is already in server group 'other'",
                      error.detail)

    def test_a_clashing_resource_name_is_refused(self):
        template = copy.deepcopy(TEMPLATE)
        template['resources']['vgw_anti_affinity'] = {
            'type': 'OS::Neutron::Port'}
        self.assertRaises(exception.IntentUnrealisable, ir.realize,
                          template, HA)

    def test_no_server_of_the_vnfc(self):
        error = self.assertRaises(exception.IntentUnrealisable, ir.realize,
                                  TEMPLATE, intent(vnfc='vlb',
                                                   high_availability=True))
        self.assertIn('no OS::Nova::Server for VNFC vlb', error.detail)

    def test_not_a_heat_template(self):
        for bad, field in (({'resources': {}}, 'template'),
                           ([], 'template'),
                           ({'heat_template_version': 1, 'resources': []},
                            'template.resources')):
            error = self.assertRaises(exception.InvalidInput, ir.realize,
                                      bad, HA)
            self.assertEqual(field, error.field)


class TestIsolation(testtools.TestCase):

    def test_guaranteed_qos_picks_the_same_size_without_oversubscription(
            self):
        result = ir.realize(TEMPLATE, intent(
            isolation=schema.GUARANTEED_QOS), FLAVORS)
        self.assertEqual('vgw.guaranteed', result.flavor)
        resources = result.template['resources']
        self.assertEqual('vgw.guaranteed', resources['vgw']['properties'][
            'resource_def']['properties']['flavor'])
        self.assertEqual('vgw.guaranteed',
                         resources['vgw-mgmt']['properties']['flavor'])
        self.assertEqual('m1.small',
                         resources['vdns']['properties']['flavor'])

    def test_burstable_picks_the_flavor_that_says_its_percentage(self):
        result = ir.realize(TEMPLATE, intent(
            isolation=schema.BURSTABLE_QOS, oversubscription=25), FLAVORS)
        self.assertEqual('vgw.burst25', result.flavor)
        self.assertIn('Burstable QoS 25%', result.changes[0])

    def test_a_larger_flavor_when_no_same_size_one(self):
        flavors = [f for f in FLAVORS if f.name != 'vgw.burst25']
        result = ir.realize(TEMPLATE, intent(
            isolation=schema.BURSTABLE_QOS, oversubscription=25), flavors)
        self.assertEqual('big.burst25', result.flavor)

    def test_never_a_smaller_flavor(self):
        error = self.assertRaises(
            exception.IntentUnrealisable, ir.realize, TEMPLATE,
            intent(isolation=schema.BURSTABLE_QOS, oversubscription=50),
            FLAVORS)
        self.assertIn("no flavor of at least m1.vgw's size (4, 4096, 10)",
                      error.detail)
        self.assertIn('Burstable QoS 50%', error.detail)

    def test_flavors_are_needed(self):
        self.assertRaises(exception.IntentUnrealisable, ir.realize,
                          TEMPLATE, intent(isolation=schema.GUARANTEED_QOS))

    def test_ha_and_isolation_together(self):
        result = ir.realize(TEMPLATE, intent(
            high_availability=True, isolation=schema.GUARANTEED_QOS),
            FLAVORS)
        props = result.template['resources']['vgw-mgmt']['properties']
        self.assertEqual('vgw.guaranteed', props['flavor'])
        self.assertIn('group', props['scheduler_hints'])
