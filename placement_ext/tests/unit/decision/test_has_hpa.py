"""HAS's hpa constraint: flavors matched by HPA features (the shapes of
HAS's CSIT plans and A&AI's flavors)."""

import testtools

from placement_ext import exception
from placement_ext.decision import has_hpa


def feature(name, mandatory, attributes, score=None, **extra):
    entry = dict({'hpa-feature': name, 'hpa-version': 'v1',
                  'architecture': 'generic', 'mandatory': mandatory,
                  'directives': [],
                  'hpa-feature-attributes': [
                      dict({'hpa-attribute-key': key,
                            'hpa-attribute-value': value, 'operator': op},
                           **({'unit': unit} if unit else {}))
                      for key, value, op, unit in attributes]}, **extra)
    if score is not None:
        entry['score'] = score
    return entry


def vnfc(vnfc_id, label, *features):
    return {'id': vnfc_id, 'type': 'vnfc', 'directives': [
        {'type': 'flavor_directives', 'attributes': [
            {'attribute_name': label, 'attribute_value': ''}]}],
        'flavorProperties': list(features)}


def flavor(name, *capabilities):
    return {'flavor-name': name, 'flavor-id': f'{name}-id',
            'hpa-capabilities': {'hpa-capability': [
                {'hpa-feature': feat, 'hpa-version': 'v1',
                 'architecture': 'generic', 'hpa-feature-attributes': [
                     {'hpa-attribute-key': key, 'hpa-attribute-value': value}
                     for key, value in attributes]}
                for feat, attributes in capabilities]}}


BASIC_8_16 = ('basicCapabilities', [('numVirtualCpu', '{value: 8}'),
                                    ('virtualMemSize',
                                     '{value: 16, unit: "GB"}')])
BASIC_4_4 = ('basicCapabilities', [('numVirtualCpu', '{value: 4}'),
                                   ('virtualMemSize',
                                    '{value: 4096, unit: "MB"}')])
DPDK = ('ovsDpdk', [('dataProcessingAccelerationLibrary',
                     '{value: v18.02}')])
AT_LEAST_8 = [('numVirtualCpu', '8', '>=', None),
              ('virtualMemSize', '16', '>=', 'GB')]


def parse(*vnfcs):
    return has_hpa.parse({'evaluate': list(vnfcs)}, 'hpa')


class TestMatch(testtools.TestCase):

    def test_mandatory_features_choose_the_flavor(self):
        vnfcs = parse(vnfc('vg_1', 'label_1',
                           feature('basicCapabilities', 'True', AT_LEAST_8)))
        for flavors, expected in (
                ([flavor('small', BASIC_4_4), flavor('big', BASIC_8_16)],
                 'big'),
                ([flavor('small', BASIC_4_4)], None),
                # MB and GB compare as bytes: 4096 MB = 4 GB
                ([flavor('big', BASIC_8_16, DPDK)], 'big')):
            found = has_hpa.match_region(vnfcs, flavors)
            if expected is None:
                self.assertEqual('hpa: no flavor of the region has the '
                                 'mandatory features of VNFC vg_1 '
                                 '(basicCapabilities)', found)
            else:
                self.assertEqual({'label_1': expected}, found.flavor_map)

    def test_optional_features_score_and_the_best_score_wins(self):
        vnfcs = parse(vnfc(
            'vg_1', 'label_1',
            feature('basicCapabilities', 'False', AT_LEAST_8, score='5'),
            feature('ovsDpdk', 'False', [
                ('dataProcessingAccelerationLibrary', 'v18.02', '=', None)],
                score='7')))
        found = has_hpa.match_region(vnfcs, [
            flavor('plain', BASIC_4_4), flavor('big', BASIC_8_16),
            flavor('dpdk', BASIC_8_16, DPDK), flavor('dpdk2', DPDK)])
        self.assertEqual(({'label_1': 'dpdk'}, 12),
                         (found.flavor_map, found.score))

    def test_two_vnfcs_and_has_directives(self):
        vnfcs = parse(
            vnfc('vg_1', 'label_1', feature('ovsDpdk', 'True', [])),
            vnfc('vg_2', 'label_2',
                 feature('basicCapabilities', 'True', AT_LEAST_8)))
        found = has_hpa.match_region(vnfcs, [flavor('dpdk', DPDK),
                                             flavor('big', BASIC_8_16)])
        self.assertEqual(('dpdk', 'big'), found.flavors)
        self.assertEqual({'directives': [
            {'id': 'vg_1', 'type': 'vnfc', 'directives': [
                {'type': 'flavor_directives', 'attributes': [
                    {'attribute_name': 'label_1', 'attribute_value': 'dpdk'},
                    {'attribute_name': 'flavorId',
                     'attribute_value': 'dpdk-id'}]}]},
            {'id': 'vg_2', 'type': 'vnfc', 'directives': [
                {'type': 'flavor_directives', 'attributes': [
                    {'attribute_name': 'label_2', 'attribute_value': 'big'},
                    {'attribute_name': 'flavorId',
                     'attribute_value': 'big-id'}]}]}]},
            found.directives())

    def test_operators(self):
        for op, wanted, offered, matches in (
                ('=', '8', '{value: 8}', True),
                ('=', 'v1', '{value: v1}', True),
                ('<', '8', '{value: 4}', True),
                ('>', '8', '{value: 4}', False),
                ('<=', 'x', '{value: 4}', False),
                ('ALL', ['a', 'b'], {'value': ['a', 'b', 'c']}, True),
                ('ALL', ['a', 'z'], {'value': ['a', 'b', 'c']}, False),
                ('=', '8', 'not: [yaml', False)):
            vnfcs = parse(vnfc('v', 'l', feature('f', 'True', [
                ('k', wanted, op, None)])))
            found = has_hpa.match_region(vnfcs, [
                {'flavor-name': 'x', 'hpa-capabilities': {'hpa-capability': [
                    {'hpa-feature': 'f', 'hpa-version': 'v1',
                     'architecture': 'generic', 'hpa-feature-attributes': [
                         {'hpa-attribute-key': 'k',
                          'hpa-attribute-value': offered}]}]}}])
            self.assertEqual(matches, not isinstance(found, str),
                             (op, wanted, offered))

    def test_a_region_without_flavors_is_dropped(self):
        vnfcs = parse(vnfc('v', 'l', feature('f', 'True', [])))
        self.assertIn('lists no flavors', has_hpa.match_region(vnfcs, None))

    def test_bad_constraints_are_refused_by_field(self):
        good = vnfc('v', 'l', feature('f', 'True', []))
        for item, field, reason in (
                (dict(good, directives=[]), 'hpa.evaluate[0].directives',
                 'flavor_directives'),
                (dict(good, flavorProperties=[]),
                 'hpa.evaluate[0].flavorProperties', 'must list'),
                (vnfc('v', 'l', feature('f', 'maybe', [])),
                 'hpa.evaluate[0].flavorProperties[0].mandatory', 'True'),
                (vnfc('v', 'l', feature('f', 'True', [('k', '1', '!=',
                                                       None)])),
                 'hpa.evaluate[0].flavorProperties[0]'
                 '.hpa-feature-attributes[0].operator', "'!=' is not one"),
                (vnfc('v', 'l', feature('f', 'True', [('k', '1', '=',
                                                       'PB')])),
                 'hpa.evaluate[0].flavorProperties[0]'
                 '.hpa-feature-attributes[0].unit', "'PB' is not one")):
            error = self.assertRaises(exception.InvalidInput, parse, item)
            self.assertEqual(field, error.field)
            self.assertIn(reason, error.reason)
