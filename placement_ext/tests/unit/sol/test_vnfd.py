"""A VNFD flavour: VDUs, initial deltas, policies, groups, ids."""

import copy
import os

import testtools
import yaml

from placement_ext import exception
from placement_ext.sol import vnfd

EXAMPLES = os.path.join(os.path.dirname(__file__), *['..'] * 4, 'doc',
                        'source', 'examples')

VDU = {'type': vnfd.VDU_COMPUTE, 'properties': {'name': 'x'}}

DOCUMENT = {
    'tosca_definitions_version': 'tosca_simple_yaml_1_2',
    'topology_template': {
        'substitution_mappings': {'node_type': 'my.VNF',
                                  'properties': {'flavour_id': 'small'}},
        'node_templates': {
            'VNF': {'type': 'my.VNF',
                    'properties': {'descriptor_id': 'vnfd-1'}},
            'VDU1': VDU, 'VDU2': VDU,
            'VirtualStorage': {
                'type': 'tosca.nodes.nfv.Vdu.VirtualBlockStorage'}},
        'groups': {'pg': {'type': 'tosca.groups.nfv.PlacementGroup',
                          'members': ['VDU1', 'VDU2']}},
        'policies': [
            {'VDU1_initial_delta': {
                'type': vnfd.VDU_INITIAL_DELTA, 'targets': ['VDU1'],
                'properties': {'initial_delta': {'number_of_instances': 3}}}},
            {'anti': {'type': 'tosca.policies.nfv.AntiAffinityRule',
                      'targets': ['pg'], 'properties': {'scope': 'zone'}}}],
    },
}


def document(**topology):
    doc = copy.deepcopy(DOCUMENT)
    doc['topology_template'].update(topology)
    return doc


class TestParse(testtools.TestCase):

    def test_flavour(self):
        flavour = vnfd.parse(DOCUMENT)
        self.assertEqual({'VDU1': 3, 'VDU2': 1}, flavour.vdus)
        self.assertEqual(['VDU1_initial_delta', 'anti'],
                         list(flavour.policies))
        self.assertEqual(['pg'], list(flavour.groups))
        self.assertEqual(('small', 'vnfd-1'),
                         (flavour.flavour_id, flavour.descriptor_id))
        self.assertEqual(('anti',), flavour.placement_policies(
            ('tosca.policies.nfv.AntiAffinityRule',)))

    def test_policies_as_one_map_and_absent_parts(self):
        doc = document(policies={'anti': {'type': 'x', 'targets': []}})
        del doc['topology_template']['groups']
        del doc['topology_template']['substitution_mappings']
        flavour = vnfd.parse(doc)
        self.assertEqual(['anti'], list(flavour.policies))
        self.assertEqual({}, flavour.groups)
        self.assertEqual({'VDU1': 1, 'VDU2': 1}, flavour.vdus)
        self.assertIsNone(flavour.flavour_id)
        self.assertEqual('vnfd-1', flavour.descriptor_id)

    def test_ids_from_node_templates_and_the_node_type_default(self):
        doc = document(substitution_mappings={'node_type': 'my.VNF'})
        nodes = doc['topology_template']['node_templates']
        nodes['VNF']['properties'] = {
            'flavour_id': {'get_input': 'selected_flavour'},
            'descriptor_id': {'get_input': 'x'}}
        self.assertEqual((None, None), (vnfd.parse(doc).flavour_id,
                                        vnfd.parse(doc).descriptor_id))
        nodes['VDU2'] = dict(VDU, properties={'flavour_id': 'big'})
        doc['node_types'] = {'my.VNF': {'properties': {
            'descriptor_id': {'type': 'string', 'default': 'vnfd-9'}}}}
        flavour = vnfd.parse(doc)
        self.assertEqual(('big', 'vnfd-9'),
                         (flavour.flavour_id, flavour.descriptor_id))

    def test_the_documented_example(self):
        path = os.path.join(EXAMPLES, 'vnfd_anti_affinity.yaml')
        with open(path, encoding='utf-8') as stream:
            flavour = vnfd.parse(yaml.safe_load(stream))
        self.assertEqual({'VDU1': 2, 'VDU2': 1}, flavour.vdus)
        self.assertEqual(('simple', 'b1bb0ce7-ebca-4fa7-95ed-4840d70a1177'),
                         (flavour.flavour_id, flavour.descriptor_id))
        self.assertEqual(['pg_vdu1_vdu2'], list(flavour.groups))


class TestBadInput(testtools.TestCase):

    def _field(self, doc):
        return self.assertRaises(exception.InvalidInput, vnfd.parse,
                                 doc).field

    def test_fields(self):
        self.assertEqual('VNFD', self._field(['a list']))
        self.assertEqual('topology_template', self._field({}))
        self.assertEqual('node_templates',
                         self._field(document(node_templates=None)))
        self.assertEqual('node_templates.VDU1', self._field(
            document(node_templates={'VDU1': 'x'})))
        self.assertEqual('policies', self._field(document(policies='x')))
        self.assertEqual('policies[0]', self._field(
            document(policies=[{'a': {}, 'b': {}}])))
        self.assertEqual('policies.a', self._field(
            document(policies=[{'a': {}}, {'a': {}}])))
        self.assertEqual('policies.a', self._field(
            document(policies=[{'a': 'x'}])))
        self.assertEqual('groups', self._field(document(groups=['pg'])))
        self.assertEqual('substitution_mappings', self._field(
            document(substitution_mappings='x')))

    def test_no_vdu(self):
        exc = self.assertRaises(exception.InvalidInput, vnfd.parse,
                                document(node_templates={'VNF': {}}))
        self.assertEqual('no node template of type '
                         'tosca.nodes.nfv.Vdu.Compute', exc.reason)

    def test_bad_initial_delta(self):
        def delta(count, targets=('VDU1',)):
            return document(policies=[{'d': {
                'type': vnfd.VDU_INITIAL_DELTA, 'targets': list(targets),
                'properties': {'initial_delta': {
                    'number_of_instances': count}}}}])

        field = 'policies.d.properties.initial_delta.number_of_instances'
        for count in (-1, '2', True, None):
            self.assertEqual(field, self._field(delta(count)))
        self.assertEqual('policies.d.targets',
                         self._field(delta(1, ['VDU9'])))
        self.assertEqual('policies.d.targets', self._field(delta(1, [])))
        self.assertEqual({'VDU1': 0, 'VDU2': 1}, vnfd.parse(delta(0)).vdus)


def rules_document(policies, groups=None, **vdu_profiles):
    nodes = {name: {'type': vnfd.VDU_COMPUTE,
                    'properties': {'vdu_profile': profile}}
             for name, profile in (vdu_profiles or {
                 'VDU1': {'min_number_of_instances': 2},
                 'VDU2': {}}).items()}
    return {'topology_template': {
        'node_templates': nodes, 'policies': policies,
        'groups': groups or {'pg': {'type': vnfd.PLACEMENT_GROUP,
                                    'members': ['VDU1', 'VDU2']}}}}


def rule(targets, scope='nfvi_node', anti=True, **properties):
    return {'type': vnfd.ANTI_AFFINITY_RULE if anti else vnfd.AFFINITY_RULE,
            'targets': targets, 'properties': dict(scope=scope, **properties)}


class TestAffinityRules(testtools.TestCase):

    def rules(self, policies, soft=None, groups=None):
        return vnfd.affinity_rules(vnfd.parse(rules_document(
            policies, groups)), soft)

    def test_vdu_and_group_targets_in_order(self):
        rules = self.rules({
            'scaling': {'type': 'tosca.policies.nfv.ScalingAspects'},
            'a': rule(['pg']),
            'b': rule(['VDU2', 'VDU1'], scope='zone', anti=False)})
        self.assertEqual(
            [vnfd.AffinityRule('a', True, 'nfvi_node', ('VDU1', 'VDU2')),
             vnfd.AffinityRule('b', False, 'zone', ('VDU2', 'VDU1'))],
            list(rules))
        self.assertEqual(['anti-affinity', 'affinity'],
                         [r.kind for r in rules])

    def test_group_and_its_member_count_once(self):
        self.assertEqual(('VDU1', 'VDU2'), self.rules(
            {'a': rule(['VDU1', 'pg'])})[0].vdus)

    def test_soft_from_the_property_or_the_override(self):
        policies = {'a': rule(['pg'], fallback_best_effort=True),
                    'b': rule(['VDU1'], scope='zone')}
        self.assertEqual([True, False],
                         [r.soft for r in self.rules(policies)])
        self.assertEqual([False, True], [r.soft for r in self.rules(
            policies, soft={'a': False, 'b': True})])

    def test_min_number_of_instances(self):
        flavour = vnfd.parse(rules_document({}))
        self.assertEqual({'VDU1': 2}, flavour.min_instances)
        # one initial instance, raised to the minimum Heat accepts
        self.assertEqual((1, 2, 1), (flavour.vdus['VDU1'],
                                     flavour.initial_capacity('VDU1'),
                                     flavour.initial_capacity('VDU2')))

    def test_min_above_max_refused(self):
        error = self.assertRaises(exception.InvalidInput, vnfd.parse,
                                  rules_document({}, VDU1={
                                      'min_number_of_instances': 3,
                                      'max_number_of_instances': 2}))
        self.assertEqual('Invalid node_templates.VDU1.properties.'
                         'vdu_profile: min_number_of_instances 3 exceeds '
                         'max_number_of_instances 2', str(error))

    def assertRefused(self, field, reason, policies, soft=None,
                      groups=None):
        error = self.assertRaises(exception.InvalidInput, self.rules,
                                  policies, soft, groups)
        self.assertEqual(f'Invalid {field}: {reason}', str(error))

    def test_unknown_target(self):
        self.assertRefused(
            'policies.a.targets', "'VDU9' is neither a VDU nor a "
            'tosca.groups.nfv.PlacementGroup of the VNFD',
            {'a': rule(['VDU1', 'VDU9'])})

    def test_group_of_another_type_is_unknown(self):
        self.assertRefused(
            'policies.a.targets', "'g' is neither a VDU nor a "
            'tosca.groups.nfv.PlacementGroup of the VNFD',
            {'a': rule(['g'])},
            groups={'g': {'type': 'tosca.groups.Root', 'members': ['VDU1']}})

    def test_group_member_not_a_vdu(self):
        self.assertRefused(
            'policies.a.targets', "group 'pg': member 'VL1' is not a VDU of "
            'the VNFD', {'a': rule(['pg'])},
            groups={'pg': {'type': vnfd.PLACEMENT_GROUP,
                           'members': ['VDU1', 'VL1']}})

    def test_no_targets_no_scope_bad_fallback(self):
        self.assertRefused(
            'policies.a.targets', 'must be a non-empty list of VDU or '
            'PlacementGroup names', {'a': rule([])})
        self.assertRefused(
            'policies.a.properties.scope', 'a rule needs a scope (nfvi_node, '
            'zone, ...)', {'a': {'type': vnfd.AFFINITY_RULE,
                                 'targets': ['VDU1']}})
        self.assertRefused(
            'policies.a.properties.fallback_best_effort',
            'must be true or false',
            {'a': rule(['VDU1'], fallback_best_effort='yes')})

    def test_override_of_no_rule(self):
        self.assertRefused('policies', 'no affinity or anti-affinity rule '
                           'named zz', {'a': rule(['VDU1'])}, {'zz': True})

    def test_bad_min_number_of_instances(self):
        error = self.assertRaises(
            exception.InvalidInput, vnfd.parse, rules_document(
                {}, VDU1={'min_number_of_instances': -1}))
        self.assertEqual(
            'Invalid node_templates.VDU1.properties.vdu_profile.'
            'min_number_of_instances: must be a whole number of at least '
            '0, not -1', str(error))
