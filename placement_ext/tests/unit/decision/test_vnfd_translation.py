"""VNFD affinity rules into Nova server groups and scheduler hints."""

import copy

import testtools

from placement_ext import exception
from placement_ext.decision import vnfd_translation as tr
from placement_ext.sol import vnfd
from placement_ext.tests.unit.sol import test_vnfd

rule = test_vnfd.rule
GROUP = {'get_resource': 'a_group'}
FROM_PARAM = {'get_param': 'server_group'}


def flavour(policies, groups=None, **profiles):
    return vnfd.parse(test_vnfd.rules_document(policies, groups, **profiles))


def server(**properties):
    return {'type': tr.SERVER, 'properties': {'flavor': 'f', **properties}}


def hot(**resources):
    return {'heat_template_version': '2021-04-16', 'resources': resources}


def servers_top():
    """heat-translator's shape: one OS::Nova::Server per VDU."""
    return {'top.yaml': hot(VDU1=server(), VDU2=server())}


def tacker_v2():
    """Tacker v2 BaseHOT: an AutoScalingGroup per VDU, nested VDUn.yaml."""
    top = hot(**{vdu: {'type': tr.AUTO_SCALING_GROUP, 'properties': {
        'min_size': 1, 'max_size': 3,
        'resource': {'type': f'{vdu}.yaml',
                     'properties': {'flavor': 'f'}}}}
        for vdu in ('VDU1', 'VDU2')})
    nested = {f'{vdu}.yaml': dict(
        hot(**{vdu: server(), f'{vdu}_CP': {'type': 'OS::Neutron::Port'}}),
        parameters={'flavor': {'type': 'string'}})
        for vdu in ('VDU1', 'VDU2')}
    return {'top.yaml': top, **nested}


def hints(resource):
    return resource['properties'].get('scheduler_hints')


class TestHostScope(testtools.TestCase):

    def translate(self, policies, templates, **kwargs):
        return tr.translate(flavour(policies), templates, 'top.yaml',
                            **kwargs)

    def test_vdu_targets_on_top_level_servers(self):
        templates = servers_top()
        result = self.translate({'a': rule(['VDU1', 'VDU2'])}, templates)
        top = result.templates['top.yaml']['resources']
        self.assertEqual({'type': tr.SERVER_GROUP, 'properties': {
            'name': 'a_group', 'policies': ['anti-affinity']}},
            top['a_group'])
        self.assertEqual([{'group': GROUP}] * 2,
                         [hints(top['VDU1']), hints(top['VDU2'])])
        self.assertEqual(({'a': 'a_group'}, (), True),
                         (result.server_groups, result.warnings,
                          result.changed))
        self.assertEqual(servers_top(), templates)  # input untouched

    def test_placement_group_targets_in_autoscaling_groups_and_nested(self):
        result = self.translate({'a': rule(['pg'], anti=False)}, tacker_v2())
        top = result.templates['top.yaml']['resources']
        self.assertEqual(['affinity'],
                         top['a_group']['properties']['policies'])
        for vdu in ('VDU1', 'VDU2'):
            member = top[vdu]['properties']['resource']
            self.assertEqual({'flavor': 'f', 'server_group': GROUP},
                             member['properties'])
            nested = result.templates[f'{vdu}.yaml']
            self.assertEqual('string',
                             nested['parameters']['server_group']['type'])
            self.assertEqual({'group': FROM_PARAM},
                             hints(nested['resources'][vdu]))
            self.assertNotIn('properties', nested['resources'][f'{vdu}_CP'])
        self.assertEqual(['top.yaml', 'VDU1.yaml', 'VDU2.yaml'],
                         list(result.templates))

    def test_soft_variants(self):
        for anti, policy in ((True, 'soft-anti-affinity'),
                             (False, 'soft-affinity')):
            result = self.translate(
                {'a': rule(['pg'], anti=anti, fallback_best_effort=True)},
                servers_top())
            self.assertEqual([policy], result.templates['top.yaml'][
                'resources']['a_group']['properties']['policies'])
        result = self.translate({'a': rule(['pg'])}, servers_top(),
                                soft={'a': True})
        self.assertEqual(['soft-anti-affinity'], result.templates[
            'top.yaml']['resources']['a_group']['properties']['policies'])

    def test_resource_group_member_server_and_existing_hints(self):
        templates = {'top.yaml': hot(
            VDU1={'type': tr.RESOURCE_GROUP, 'properties': {
                'count': 2, 'resource_def': server(
                    scheduler_hints={'different_host': ['x']})}},
            VDU2=server())}
        result = self.translate({'a': rule(['VDU1'])}, templates)
        member = result.templates['top.yaml']['resources']['VDU1'][
            'properties']['resource_def']
        self.assertEqual({'different_host': ['x'], 'group': GROUP},
                         hints(member))
        self.assertIsNone(hints(result.templates['top.yaml']['resources'][
            'VDU2']))

    def test_per_vnfc_resources_and_two_levels_of_nesting(self):
        # StandardUserData's VDU1-0, VDU1-1 of one shared VDU.yaml, whose
        # server is itself in a nested template
        templates = {
            'top.yaml': hot(**{f'VDU1-{i}': {'type': 'VDU.yaml'}
                               for i in range(2)},
                            VDU2={'type': 'VDU.yaml'}),
            'VDU.yaml': hot(VDU={'type': 'server.yaml'}),
            'server.yaml': hot(VDU=server())}
        result = self.translate({'a': rule(['pg'])}, templates)
        out = result.templates
        for name in ('VDU1-0', 'VDU1-1', 'VDU2'):
            self.assertEqual({'server_group': GROUP},
                             out['top.yaml']['resources'][name]['properties'])
        self.assertEqual({'server_group': FROM_PARAM},
                         out['VDU.yaml']['resources']['VDU']['properties'])
        self.assertEqual({'group': FROM_PARAM},
                         hints(out['server.yaml']['resources']['VDU']))

    def test_members_without_properties(self):
        templates = {'top.yaml': hot(
            VDU1={'type': tr.AUTO_SCALING_GROUP, 'properties': {
                'resource': {'type': 'VDU1.yaml', 'properties': None}}},
            VDU2={'type': tr.SERVER})}
        templates['VDU1.yaml'] = hot(VDU1={'type': tr.SERVER})
        result = self.translate({'a': rule(['pg'])}, templates)
        top = result.templates['top.yaml']['resources']
        self.assertEqual({'server_group': GROUP}, top['VDU1']['properties'][
            'resource']['properties'])
        self.assertEqual({'scheduler_hints': {'group': GROUP}},
                         top['VDU2']['properties'])

    def test_idempotent(self):
        policies = {'a': rule(['pg'], fallback_best_effort=True),
                    'z': rule(['VDU1'], scope='zone')}
        first = self.translate(policies, tacker_v2())
        again = self.translate(policies, first.templates)
        self.assertEqual((first.templates, False),
                         (again.templates, again.changed))
        self.assertEqual(first.warnings, again.warnings)

    def test_a_changed_rule_updates_its_group(self):
        first = self.translate({'a': rule(['pg'])}, servers_top())
        again = self.translate({'a': rule(['pg'], anti=False)},
                               first.templates)
        self.assertTrue(again.changed)
        self.assertEqual(['affinity'], again.templates['top.yaml'][
            'resources']['a_group']['properties']['policies'])


class TestOtherScopes(testtools.TestCase):

    def test_zone_scope_is_left_to_the_grant_with_a_warning(self):
        result = tr.translate(flavour(
            {'z': rule(['pg'], scope='zone', anti=False)}), servers_top(),
            'top.yaml')
        self.assertEqual((servers_top(), False, {}),
                         (result.templates, result.changed,
                          result.server_groups))
        self.assertEqual(
            ("z: scope zone (affinity of VDU1, VDU2) is not a Nova server "
             "group; it is left to the Grant's ZONE placement constraint "
             "(placement-ext grant request) and to zone reselection",),
            result.warnings)

    def test_other_scope_warns(self):
        result = tr.translate(flavour({'p': rule(['pg'], scope='nfvi_pop')}),
                              servers_top(), 'top.yaml')
        self.assertEqual(
            ("p: scope 'nfvi_pop' is not translated (only nfvi_node becomes "
             "a server group); nothing added",), result.warnings)
        self.assertFalse(result.changed)


class TestRefused(testtools.TestCase):

    def assertRefused(self, field, reason, policies, templates,
                      top='top.yaml', **kwargs):
        error = self.assertRaises(exception.InvalidInput, tr.translate,
                                  flavour(policies), templates, top,
                                  **kwargs)
        self.assertEqual(f'Invalid {field}: {reason}', str(error))

    def test_unknown_target(self):
        self.assertRefused(
            'policies.a.targets', "'VDU3' is neither a VDU nor a "
            'tosca.groups.nfv.PlacementGroup of the VNFD',
            {'a': rule(['VDU3'])}, servers_top())

    def test_vdu_in_two_host_rules(self):
        self.assertRefused(
            'policies.b.targets', "VDU 'VDU1' is already in the nfvi_node "
            "rule 'a': Nova puts a server in one server group only",
            {'a': rule(['VDU1']), 'b': rule(['pg'], anti=False)},
            servers_top())

    def test_vdu_without_a_resource(self):
        self.assertRefused(
            'policies.a', "VDU 'VDU2' has no resource in the top template "
            "'top.yaml' (a resource named VDU2, or VDU2-<n> per VNFC)",
            {'a': rule(['pg'])}, {'top.yaml': hot(VDU1=server())})

    def test_server_in_another_group(self):
        templates = servers_top()
        templates['top.yaml']['resources']['VDU2'] = server(
            scheduler_hints={'group': {'get_resource': 'srvgroup'}})
        self.assertRefused(
            'policies.a', "the server of VDU 'VDU2' is already in the "
            "server group {'get_resource': 'srvgroup'}: Nova puts a server "
            'in one group only', {'a': rule(['pg'])}, templates)

    def test_nested_template_shared_with_a_non_member(self):
        templates = {'top.yaml': hot(VDU1={'type': 'VDU.yaml'},
                                     VDU2={'type': 'VDU.yaml'}),
                     'VDU.yaml': hot(VDU=server())}
        self.assertRefused(
            'policies.a', "'VDU.yaml' now puts its server in a server "
            "group, but resource 'VDU2' of 'top.yaml' uses it too and is "
            'in no nfvi_node rule; give its VDU its own nested template',
            {'a': rule(['VDU1'])}, templates)

    def test_unknown_resource_type_and_no_server(self):
        self.assertRefused(
            'policies.a', "the resource of VDU 'VDU1' in 'top.yaml' has "
            "type 'missing.yaml': neither OS::Nova::Server, an "
            'OS::Heat::AutoScalingGroup or OS::Heat::ResourceGroup, nor a '
            'template given', {'a': rule(['VDU1'])},
            {'top.yaml': hot(VDU1={'type': 'missing.yaml'})})
        self.assertRefused(
            'policies.a', "the nested template 'n.yaml' of VDU 'VDU1' has 2 "
            'servers and none named VDU1', {'a': rule(['VDU1'])},
            {'top.yaml': hot(VDU1={'type': 'n.yaml'}),
             'n.yaml': hot(A=server(), B=server())})

    def test_group_name_taken(self):
        templates = servers_top()
        templates['top.yaml']['resources']['a_group'] = {
            'type': 'OS::Heat::None'}
        self.assertRefused(
            'policies.a', "the top template already has a resource "
            "'a_group' that is not an OS::Nova::ServerGroup",
            {'a': rule(['pg'])}, templates)

    def test_not_templates(self):
        self.assertRefused('templates', "no top template 'x.yaml'",
                           {}, servers_top(), top='x.yaml')
        self.assertRefused(
            'templates.top.yaml', 'must be a Heat template (a map with a '
            'resources map)', {}, {'top.yaml': ['x']})


class TestHostCount(testtools.TestCase):
    """VDU1: min_number_of_instances 2; VDU2: none, its initial 1."""

    def translate(self, policies, hosts):
        return tr.translate(flavour(policies), servers_top(), 'top.yaml',
                            hosts=hosts)

    def test_enough_hosts(self):
        self.assertTrue(self.translate({'a': rule(['pg'])}, 3).changed)
        self.assertTrue(self.translate({'a': rule(['pg'])},
                                       {'AZ-1': 2, 'AZ-2': 1}).changed)

    def test_fewer_hosts_than_members_is_refused(self):
        error = self.assertRaises(exception.InvalidInput, self.translate,
                                  {'a': rule(['pg'])}, 2)
        self.assertEqual(
            'Invalid policies.a: anti-affinity needs 3 different hosts for '
            'min_number_of_instances (VDU1: 2, VDU2: 1); the cloud has 2 '
            'usable compute hosts', str(error))

    def test_affinity_and_zone_scope_are_not_counted(self):
        self.assertTrue(self.translate({'a': rule(['pg'], anti=False)},
                                       1).changed)
        self.assertFalse(self.translate({'a': rule(['pg'], scope='zone')},
                                        1).changed)

    def test_soft_anti_affinity_short_of_hosts_warns(self):
        result = self.translate(
            {'a': rule(['pg'], fallback_best_effort=True)}, 1)
        self.assertEqual(
            ('a: soft-anti-affinity needs 3 different hosts for '
             'min_number_of_instances (VDU1: 2, VDU2: 1); the cloud has 1 '
             'usable compute host; soft, so Nova will put some of them '
             'together',), result.warnings)

    def test_per_zone_when_a_zone_affinity_rule_keeps_them_together(self):
        policies = {'a': rule(['pg']),
                    'z': rule(['pg'], scope='zone', anti=False)}
        error = self.assertRaises(exception.InvalidInput, self.translate,
                                  policies, {'AZ-1': 2, 'AZ-2': 2})
        self.assertIn('3 different hosts for min_number_of_instances '
                      '(VDU1: 2, VDU2: 1); the largest zone (AZ-2; z keeps '
                      'them in one zone) has 2 usable compute hosts',
                      str(error))
        self.assertTrue(self.translate(policies,
                                       {'AZ-1': 3, 'AZ-2': 1}).changed)
        # a soft zone affinity may spread them: all hosts count
        soft_zone = dict(policies, z=rule(['pg'], scope='zone', anti=False,
                                          fallback_best_effort=True))
        self.assertTrue(self.translate(soft_zone,
                                       {'AZ-1': 2, 'AZ-2': 2}).changed)


class TestSkeleton(testtools.TestCase):

    def test_tacker_v2_shape_then_translated(self):
        parsed = vnfd.parse(test_vnfd.rules_document(
            {'a': rule(['pg'])},
            VDU1={'min_number_of_instances': 1, 'max_number_of_instances': 3},
            VDU2={}))
        templates = tr.skeleton(parsed)
        self.assertEqual(['top.yaml', 'VDU1.yaml', 'VDU2.yaml'],
                         list(templates))
        asg = templates['top.yaml']['resources']['VDU1']
        self.assertEqual((tr.AUTO_SCALING_GROUP, 1, 3, 'VDU1.yaml'),
                         (asg['type'], asg['properties']['min_size'],
                          asg['properties']['max_size'],
                          asg['properties']['resource']['type']))
        self.assertEqual(
            {'get_param': ['nfv', 'VDU', 'VDU1', 'desired_capacity']},
            asg['properties']['desired_capacity'])
        self.assertEqual(tr.SERVER, templates['VDU2.yaml']['resources'][
            'VDU2']['type'])
        original = copy.deepcopy(templates)
        result = tr.translate(parsed, templates, 'top.yaml')
        self.assertEqual(original, templates)
        self.assertEqual({'group': FROM_PARAM}, hints(
            result.templates['VDU2.yaml']['resources']['VDU2']))


    def test_desired_capacity_default_within_min_and_max(self):
        # min 2, one initial instance: Heat refuses desired_capacity 1
        parsed = vnfd.parse(test_vnfd.rules_document(
            {}, VDU1={'min_number_of_instances': 2,
                      'max_number_of_instances': 4},
            VDU2={'min_number_of_instances': 3}))
        top = tr.skeleton(parsed)['top.yaml']
        self.assertEqual({'VDU': {'VDU1': {'desired_capacity': 2},
                                  'VDU2': {'desired_capacity': 3}}},
                         top['parameters']['nfv']['default'])
        sizes = {vdu: (r['properties']['min_size'],
                       r['properties']['max_size'])
                 for vdu, r in top['resources'].items()}
        self.assertEqual({'VDU1': (2, 4), 'VDU2': (3, 3)}, sizes)


class TestPodAffinityExample(testtools.TestCase):
    """Tacker's hardware-aware pod affinity example: anti-affinity over a
    PlacementGroup of the master and worker VDUs (3 instances each at
    least), Tacker's pod-affinity BaseHOT shape (AutoScalingGroups of
    nested templates)."""

    def flavour(self, groups):
        document = test_vnfd.rules_document(
            {'policy_antiaffinity_group': rule(['antiAffinityGroup'])},
            groups,
            masterNode={'min_number_of_instances': 3,
                        'max_number_of_instances': 5},
            workerNode={'min_number_of_instances': 3,
                        'max_number_of_instances': 5})
        return vnfd.parse(document)

    GROUPS = {'antiAffinityGroup': {'type': vnfd.PLACEMENT_GROUP,
                                    'members': ['masterNode', 'workerNode']}}

    def templates(self):
        top = hot(**{vdu: {'type': tr.AUTO_SCALING_GROUP, 'properties': {
            'min_size': 3, 'max_size': 5, 'desired_capacity': 3,
            'resource': {'type': f'{vdu}.yaml'}}}
            for vdu in ('masterNode', 'workerNode')})
        return {'top.yaml': top,
                'masterNode.yaml': hot(masterNode=server()),
                'workerNode.yaml': hot(workerNode=server())}

    def test_one_anti_affinity_group_for_masters_and_workers(self):
        result = tr.translate(self.flavour(self.GROUPS), self.templates(),
                              'top.yaml', hosts={'AZ-1': 4, 'nova': 2})
        top = result.templates['top.yaml']['resources']
        self.assertEqual(['anti-affinity'], top[
            'policy_antiaffinity_group_group']['properties']['policies'])
        for vdu in ('masterNode', 'workerNode'):
            self.assertEqual({'group': FROM_PARAM}, hints(
                result.templates[f'{vdu}.yaml']['resources'][vdu]))

    def test_six_members_on_five_hosts_refused(self):
        error = self.assertRaises(
            exception.InvalidInput, tr.translate, self.flavour(self.GROUPS),
            self.templates(), 'top.yaml', hosts=5)
        self.assertEqual(
            'Invalid policies.policy_antiaffinity_group: anti-affinity needs '
            '6 different hosts for min_number_of_instances (masterNode: 3, '
            'workerNode: 3); the cloud has 5 usable compute hosts',
            str(error))

    def test_the_seeds_misindented_group_is_an_unknown_target(self):
        # the spec's YAML puts type and members beside the group's name
        groups = {'antiAffinityGroup': None,
                  'type': vnfd.PLACEMENT_GROUP,
                  'members': ['masterNode', 'workerNode']}
        error = self.assertRaises(exception.InvalidInput, tr.translate,
                                  self.flavour(groups), self.templates(),
                                  'top.yaml')
        self.assertEqual(
            "Invalid policies.policy_antiaffinity_group.targets: "
            "'antiAffinityGroup' is neither a VDU nor a "
            'tosca.groups.nfv.PlacementGroup of the VNFD', str(error))
