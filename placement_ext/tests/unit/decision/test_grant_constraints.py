"""VNFM side: placement constraints from VNFD policies."""

import testtools

from placement_ext import exception
from placement_ext.decision import grant_constraints as gc
from placement_ext.sol import grant_request

AFF = gc.AFFINITY_RULE
ANTI = gc.ANTI_AFFINITY_RULE


def policy(kind, targets, scope='zone', **properties):
    return {'type': kind, 'targets': targets,
            'properties': {'scope': scope, **properties}}


GROUPS = {'pg1': {'type': gc.PLACEMENT_GROUP, 'members': ['VDU1', 'VDU2']}}


def new(*pairs):
    return [gc.NewVnfc(vdu, rid) for vdu, rid in pairs]


def existing(*pairs):
    return [gc.ExistingVnfc(vdu, rid, 'vim-1') for vdu, rid in pairs]


def wire(result):
    return [c.to_dict() for c in result.constraints]


def ref(id_type, rid, vim=None):
    out = {'idType': id_type, 'resourceId': rid}
    if vim:
        out['vimConnectionId'] = vim
    return out


class TestBuild(testtools.TestCase):

    def test_instantiate_zone_and_nfvi_node(self):
        policies = [{'aff': policy(AFF, ['VDU1'])},
                    {'anti': policy(ANTI, ['VDU2'], 'nfvi_node')}]
        result = gc.build(policies, {}, new(('VDU1', 'a'), ('VDU1', 'b'),
                                            ('VDU2', 'c'), ('VDU2', 'd')))
        self.assertEqual([
            {'affinityOrAntiAffinity': 'AFFINITY', 'scope': 'ZONE',
             'resource': [ref('GRANT', 'a'), ref('GRANT', 'b')],
             'fallbackBestEffort': False},
            {'affinityOrAntiAffinity': 'ANTI_AFFINITY', 'scope': 'NFVI_NODE',
             'resource': [ref('GRANT', 'c'), ref('GRANT', 'd')],
             'fallbackBestEffort': False}], wire(result))
        self.assertEqual(('aff', 'anti'), result.policy_names)
        self.assertEqual((), result.skipped)

    def test_scale_out_adds_existing_vnfcs_as_res_mgmt(self):
        result = gc.build({'anti': policy(ANTI, ['VDU1'])}, {},
                          new(('VDU1', 'n2')),
                          existing(('VDU1', 'srv-0'), ('VDU1', 'srv-1'),
                                   ('VDU2', 'srv-9')), True)
        self.assertEqual([ref('GRANT', 'n2'), ref('RES_MGMT', 'srv-0',
                                                  'vim-1'),
                          ref('RES_MGMT', 'srv-1', 'vim-1')],
                         wire(result)[0]['resource'])
        self.assertTrue(result.constraints[0].fallback_best_effort)

    def test_heal_new_vnfc_against_the_survivors(self):
        # heal VDU1-1: re-created as addResources 'h1', VDU1-0 survives
        result = gc.build({'anti': policy(ANTI, ['VDU1'])}, {},
                          new(('VDU1', 'h1')), existing(('VDU1', 'srv-0')))
        self.assertEqual([ref('GRANT', 'h1'), ref('RES_MGMT', 'srv-0',
                                                  'vim-1')],
                         wire(result)[0]['resource'])

    def test_placement_group_members_expand(self):
        result = gc.build({'anti': policy(ANTI, ['pg1', 'VDU1'])}, GROUPS,
                          new(('VDU1', 'a'), ('VDU2', 'b'), ('VDU3', 'c')))
        self.assertEqual(['a', 'b'],
                         list(result.constraints[0].resource_ids))

    def test_skips_are_reported_and_do_not_stop_later_policies(self):
        policies = [
            {'nothing_new': policy(ANTI, ['VDU9'])},
            {'one_only': policy(ANTI, ['VDU1'])},
            {'group_scope': policy(ANTI, ['VDU2'], 'zone_group')},
            {'no_scope': {'type': ANTI, 'targets': ['VDU2']}},
            {'scaling': {'type': 'tosca.policies.nfv.ScalingAspects',
                         'properties': {}}},
            {'kept': policy(ANTI, ['VDU2'])},
        ]
        result = gc.build(policies, {}, new(('VDU1', 'a'), ('VDU2', 'b'),
                                            ('VDU2', 'c')))
        self.assertEqual(('kept',), result.policy_names)
        reasons = {s.name: s.reason for s in result.skipped}
        self.assertEqual({'nothing_new', 'one_only', 'group_scope',
                          'no_scope'}, set(reasons))
        self.assertIn('no new VNFC of VDU9', reasons['nothing_new'])
        self.assertIn('at least two', reasons['one_only'])
        self.assertIn("'zone_group' is not supported", reasons['group_scope'])
        self.assertEqual('no properties.scope', reasons['no_scope'])

    def test_fallback_precedence(self):
        policies = {'a': policy(ANTI, ['VDU1']),
                    'b': policy(ANTI, ['VDU1'], fallback_best_effort=True),
                    'c': policy(ANTI, ['VDU1'], fallback_best_effort=True)}
        result = gc.build(policies, {}, new(('VDU1', 'x'), ('VDU1', 'y')),
                          default_fallback_best_effort=False,
                          overrides={'c': False})
        self.assertEqual([False, True, False], [
            c.fallback_best_effort for c in result.constraints])


class TestBadInput(testtools.TestCase):

    def _field(self, *args, **kwargs):
        exc = self.assertRaises(exception.InvalidInput, gc.build, *args,
                                **kwargs)
        return exc.field

    def test_fields(self):
        vnfcs = new(('VDU1', 'x'))
        self.assertEqual('policies[0]', self._field([{}], {}, vnfcs))
        self.assertEqual('policies.p', self._field({'p': 'x'}, {}, vnfcs))
        self.assertEqual('policies.p.targets', self._field(
            {'p': {'type': ANTI, 'targets': 'VDU1'}}, {}, vnfcs))
        self.assertEqual('groups.pg.members', self._field(
            {'p': policy(ANTI, ['pg'])},
            {'pg': {'type': gc.PLACEMENT_GROUP}}, vnfcs))
        self.assertEqual('policies.p.properties.fallback_best_effort',
                         self._field({'p': policy(
                             ANTI, ['VDU1'], fallback_best_effort='yes')},
                             {}, vnfcs))
        self.assertEqual('placementFallbackBestEffort.p', self._field(
            {}, {}, vnfcs, overrides={'p': 'true'}))


class TestNewVnfcs(testtools.TestCase):

    def test_from_add_resources(self):
        resources = [grant_request.ResourceDefinition.from_dict(d) for d in (
            {'id': 'a', 'type': 'COMPUTE', 'resourceTemplateId': 'VDU1'},
            {'id': 'b', 'type': 'STORAGE', 'resourceTemplateId': 'VS1'},
            {'id': 'c', 'type': 'COMPUTE', 'vduId': 'VDU2',
             'resourceTemplateId': 'VDU2'})]
        self.assertEqual((gc.NewVnfc('VDU1', 'a'), gc.NewVnfc('VDU2', 'c')),
                         gc.new_vnfcs_from(resources))
        self.assertEqual((), gc.new_vnfcs_from(None))
