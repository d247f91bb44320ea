"""HAS's zone and attribute constraints over our regions: table-driven,
no mocks."""

import testtools

from placement_ext import exception
from placement_ext.decision import has_constraints
from placement_ext.decision import homing


def region(region_id, zone=None, **fields):
    return homing.Region('Owner', region_id, 'OpenStack', 0, 0,
                         availability_zone=zone, **fields)


def ranked(*regions):
    return [homing.Ranked(r, 1.0, None, float(index),
                          homing.Capacity(1, 'fits'))
            for index, r in enumerate(regions)]


class TestAttributeRules(testtools.TestCase):

    REGION = {'region_id': 'r1', 'cloud_type': 'OpenStack',
              'complex_name': 'Dallas', 'cloud_region_version': '4.0'}

    def reasons(self, evaluate):
        return [rule.reason(self.REGION) for rule in
                has_constraints.attribute_rules('c', {'evaluate': evaluate},
                                                'f')]

    def test_rules(self):
        cases = [
            ({'complex': {'any': ['Dallas', 'Austin']}}, [None]),
            ({'complex': {'any': ['Austin']}}, [
                "attribute constraint c: complex is 'Dallas', not any of "
                "['Austin']"]),
            ({'complex': {'all': ['Dallas']}}, [None]),
            ({'cloud_version': '4.0', 'cloud_type': ['OpenStack']},
             [None, None]),
            ({'cloud-region': {'cloud-requests': ['r2']}}, [
                "attribute constraint c: cloud-region is 'r1', not any of "
                "['r2']"]),
            # OSDF sends every attribute of its policy, most of them null
            ({'hypervisor': None, 'network_roles': '', 'complex': None}, []),
        ]
        for evaluate, reasons in cases:
            self.assertEqual(reasons, self.reasons(evaluate), evaluate)

    def test_an_attribute_we_cannot_read_is_refused_by_name(self):
        for key in ('network_roles', 'country', 'region', 'hypervisor'):
            error = self.assertRaises(
                exception.InvalidInput, has_constraints.attribute_rules, 'c',
                {'evaluate': {key: {'any': ['x']}}}, 'f')
            self.assertEqual(f'f.evaluate.{key}', error.field)
        self.assertRaises(exception.InvalidInput,
                          has_constraints.attribute_rules, 'c', {}, 'f')


class TestZones(testtools.TestCase):

    def rule(self, category, qualifier, demands=('a', 'b')):
        return has_constraints.ZoneRule.parse(
            'z', {'category': category, 'qualifier': qualifier}, demands,
            'f')

    def test_allows(self):
        r1a, r1b, r2 = region('r1', 'AZ-1'), region('r1', 'AZ-2'), \
            region('r2')
        cases = [
            ('region', 'same', {'a': r1a, 'b': r1b}, True),
            ('region', 'same', {'a': r1a, 'b': r2}, False),
            ('region', 'different', {'a': r1a, 'b': r2}, True),
            ('region', 'different', {'a': r1a, 'b': r1b}, False),
            ('region', 'same', {'a': r1a}, True),  # b not chosen yet
            ('complex', 'same', {'a': region('x', complex_name='C'),
                                 'b': region('y', complex_name='C')}, True),
            # a region without a complex keeps no complex rule
            ('complex', 'different', {'a': region('x', complex_name='C'),
                                      'b': region('y')}, False),
        ]
        for category, qualifier, chosen, allowed in cases:
            self.assertEqual(allowed,
                             self.rule(category, qualifier).allows(chosen),
                             (category, qualifier, chosen))

    def test_unsupported_categories_and_qualifiers(self):
        for properties, field in (
                ({'category': 'disaster', 'qualifier': 'same'},
                 'f.category'),
                ({'category': 'region', 'qualifier': 'near'},
                 'f.qualifier')):
            error = self.assertRaises(
                exception.InvalidInput, has_constraints.ZoneRule.parse, 'z',
                properties, ['a'], 'f')
            self.assertEqual(field, error.field)

    def test_combine_in_rank_order(self):
        r1, r2, r3 = region('r1'), region('r2'), region('r3')
        demands = [('a', ranked(r1, r2)), ('b', ranked(r1, r3))]
        different = [self.rule('region', 'different')]
        found = has_constraints.combine(demands, different, 3)
        self.assertEqual([('r1', 'r3'), ('r2', 'r1'), ('r2', 'r3')],
                         [(c['a'].region.region_id, c['b'].region.region_id)
                          for c in found])
        same = [self.rule('region', 'same')]
        self.assertEqual([('r1', 'r1')], [
            (c['a'].region.region_id, c['b'].region.region_id)
            for c in has_constraints.combine(demands, same, 3)])
        self.assertEqual([], has_constraints.combine(
            [('a', ranked(r1)), ('b', ranked(r1))], different, 3))
