"""NFVO side: the Grant for a GrantRequest, or the refusal and why."""

import itertools

import testtools
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from placement_ext import exception
from placement_ext.decision import cloud_zones
from placement_ext.decision import grant_evaluator as ge
from placement_ext.decision import placement_search as search
from placement_ext.sol import grant as grant_mod
from placement_ext.sol import grant_request as gr

SMALL = {'VCPU': 1}
LINKS = {'vnfLcmOpOcc': {'href': 'http://vnfm/lcm/op-1'},
         'vnfInstance': {'href': 'http://vnfm/inst-1'}}


def rule(kind, *members, scope='ZONE', fallback=None, id_type='GRANT'):
    out = {'affinityOrAntiAffinity': kind, 'scope': scope,
           'resource': [{'idType': id_type if m[0] != '@' else 'RES_MGMT',
                         'resourceId': m.lstrip('@')} for m in members]}
    if fallback is not None:
        out['fallbackBestEffort'] = fallback
    return out


def request(new, constraints=(), vdu='VDU1', **extra):
    doc = {'vnfInstanceId': 'inst-1', 'vnfLcmOpOccId': 'op-1',
           'vnfdId': 'vnfd-1', 'operation': 'INSTANTIATE',
           'isAutomaticInvocation': False, '_links': LINKS,
           'addResources': [{'id': rid, 'type': 'COMPUTE',
                             'resourceTemplateId': vdu} for rid in new],
           'placementConstraints': list(constraints), **extra}
    return gr.parse(doc)


def cloud(layout, existing=None, groups=None, pops=None, flavour=SMALL):
    """layout: {zone: [vcpus free per host]} hosts named <zone>-h<i>."""
    zones = []
    for zone, hosts in layout.items():
        entry = {'zoneId': zone, 'hosts': [
            {'name': f'{zone}-h{i}', 'free': {'VCPU': vcpus}}
            for i, vcpus in enumerate(hosts)]}
        if groups and zone in groups:
            entry['zoneGroup'] = groups[zone]
        if pops and zone in pops:
            entry['nfviPop'] = pops[zone]
        zones.append(entry)
    return cloud_zones.Cloud.from_dict({
        'vimConnectionId': 'vim-1', 'zones': zones,
        'flavours': {'VDU1': flavour}, 'existing': existing or {}})


def zones_of(decision):
    return {rid: zone for rid, (zone, _) in decision.hosts.items()}


class TestGranted(testtools.TestCase):

    def test_grant_document(self):
        req = request(['a', 'b'], [rule('ANTI_AFFINITY', 'a', 'b')],
                      removeResources=[{'id': 'old', 'type': 'COMPUTE',
                                        'resource': {'resourceId': 's-1'}}])
        decision = ge.evaluate(req, cloud({'AZ-1': [4], 'AZ-2': [4]}), 'g-1')
        self.assertTrue(decision.granted)
        doc = decision.grant.to_dict()
        self.assertEqual({
            'id': 'g-1', 'vnfInstanceId': 'inst-1', 'vnfLcmOpOccId': 'op-1',
            '_links': {'self': {'href': '/grant/v1/grants/g-1'}, **LINKS},
            'zones': [
                {'id': 'zone-0', 'zoneId': 'AZ-1',
                 'vimConnectionId': 'vim-1'},
                {'id': 'zone-1', 'zoneId': 'AZ-2',
                 'vimConnectionId': 'vim-1'}],
            'addResources': [
                {'resourceDefinitionId': 'a', 'vimConnectionId': 'vim-1',
                 'zoneId': 'zone-0'},
                {'resourceDefinitionId': 'b', 'vimConnectionId': 'vim-1',
                 'zoneId': 'zone-1'}],
            'removeResources': [{'resourceDefinitionId': 'old'}]}, doc)
        grant = grant_mod.parse(doc)  # zoneId refers to ZoneInfo.id
        self.assertEqual('AZ-2', grant.zone_name('b'))
        self.assertEqual((), decision.relaxed)

    def test_non_compute_and_temp_resources(self):
        req = request(['a'], tempResources=[
            {'id': 't', 'type': 'COMPUTE', 'resourceTemplateId': 'VDU1'}])
        req = gr.parse({**req.to_dict(), 'addResources': [
            {'id': 'a', 'type': 'COMPUTE', 'resourceTemplateId': 'VDU1'},
            {'id': 'vl', 'type': 'VL', 'resourceTemplateId': 'VL1'}]})
        doc = ge.evaluate(req, cloud({'AZ-1': [2]}), 'g').grant.to_dict()
        self.assertNotIn('zoneId', doc['addResources'][1])
        self.assertEqual('zone-0', doc['tempResources'][0]['zoneId'])

    def test_host_scopes(self):
        layout = {'AZ-1': [1, 1], 'AZ-2': [2]}
        anti_node = request(['a', 'b'], [rule('ANTI_AFFINITY', 'a', 'b',
                                              scope='NFVI_NODE')])
        decision = ge.evaluate(anti_node, cloud(layout), 'g')
        hosts = {host for _, host in decision.hosts.values()}
        self.assertEqual(2, len(hosts))
        aff_node = request(['a', 'b'], [rule('AFFINITY', 'a', 'b',
                                             scope='CIS_NODE')])
        decision = ge.evaluate(aff_node, cloud(layout), 'g')
        self.assertEqual({('AZ-2', 'AZ-2-h0')}, set(decision.hosts.values()))

    def test_spreads_without_constraints(self):
        decision = ge.evaluate(request(['a', 'b']),
                               cloud({'AZ-1': [5], 'AZ-2': [5]}), 'g')
        self.assertEqual({'a': 'AZ-1', 'b': 'AZ-2'}, zones_of(decision))

    def test_existing_resources_are_respected(self):
        layout = {'AZ-1': [4], 'AZ-2': [4]}
        existing = {'srv-0': {'zoneId': 'AZ-1', 'host': 'AZ-1-h0'}}
        req = request(['a'], [rule('ANTI_AFFINITY', 'a', '@srv-0')])
        decision = ge.evaluate(req, cloud(layout, existing), 'g')
        self.assertEqual({'a': 'AZ-2'}, zones_of(decision))
        req = request(['a'], [rule('AFFINITY', 'a', '@srv-0')])
        decision = ge.evaluate(req, cloud(layout, existing), 'g')
        self.assertEqual({'a': 'AZ-1'}, zones_of(decision))

    def test_zone_groups_and_pops(self):
        layout = {'AZ-1': [4], 'AZ-2': [4], 'AZ-3': [4]}
        groups = {'AZ-1': 'G1', 'AZ-2': 'G1', 'AZ-3': 'G2'}
        req = request(['a', 'b'], [rule('ANTI_AFFINITY', 'a', 'b',
                                        scope='ZONE_GROUP')])
        decision = ge.evaluate(req, cloud(layout, groups=groups), 'g')
        self.assertEqual({'a': 'AZ-1', 'b': 'AZ-3'}, zones_of(decision))
        self.assertEqual([{'zoneId': ['zone-0']}, {'zoneId': ['zone-1']}],
                         decision.grant.to_dict()['zoneGroups'])
        pops = {'AZ-1': 'P1', 'AZ-2': 'P2', 'AZ-3': 'P2'}
        for kind, expected in (('AFFINITY', {'a': 'AZ-1', 'b': 'AZ-1'}),
                               ('ANTI_AFFINITY', {'a': 'AZ-1', 'b': 'AZ-2'})):
            req = request(['a', 'b'], [rule(kind, 'a', 'b', scope='NFVI_POP')])
            decision = ge.evaluate(req, cloud(layout, pops=pops), 'g')
            self.assertEqual(expected, zones_of(decision), kind)
        # one VIM, no nfviPop: a single PoP, anti-affinity impossible
        req = request(['a', 'b'], [rule('ANTI_AFFINITY', 'a', 'b',
                                        scope='NFVI_POP')])
        self.assertFalse(ge.evaluate(req, cloud(layout), 'g').granted)

    def test_deterministic(self):
        req = request(['a', 'b', 'c'], [rule('ANTI_AFFINITY', 'a', 'b', 'c',
                                             fallback=True)])
        view = cloud({'AZ-1': [3], 'AZ-2': [3]})
        self.assertEqual(ge.evaluate(req, view, 'g'),
                         ge.evaluate(req, view, 'g'))


class TestBestEffort(testtools.TestCase):

    def test_relaxed_anti_affinity_still_spreads_and_is_reported(self):
        req = request(['a', 'b', 'c'], [
            rule('AFFINITY', 'a', 'b', scope='NFVI_NODE', fallback=False),
            rule('ANTI_AFFINITY', 'a', 'b', 'c', scope='ZONE_GROUP',
                 fallback=True),
            rule('ANTI_AFFINITY', 'b', 'c', fallback=True)])
        decision = ge.evaluate(req, cloud({'AZ-1': [2], 'AZ-2': [2]}), 'g')
        self.assertEqual([1], [r.index for r in decision.relaxed])
        zones = zones_of(decision)
        self.assertEqual(zones['a'], zones['b'])
        self.assertNotEqual(zones['b'], zones['c'])  # constraint 2 kept
        relaxed = decision.grant.to_dict()['additionalParams'][
            ge.RELAXED_PARAM]
        self.assertEqual(1, relaxed[0]['index'])
        self.assertEqual(req.to_dict()['placementConstraints'][1],
                         relaxed[0]['constraint'])
        self.assertIn('a, b share', relaxed[0]['reason'])

    def test_keeps_the_earlier_of_two_exclusive_constraints(self):
        req = request(['a', 'b'], [
            rule('AFFINITY', 'a', 'b', fallback=True),
            rule('ANTI_AFFINITY', 'a', 'b', fallback=True)])
        decision = ge.evaluate(req, cloud({'AZ-1': [2], 'AZ-2': [2]}), 'g')
        self.assertEqual([1], [r.index for r in decision.relaxed])
        self.assertIn('kept 1 of 2 placement constraint(s)',
                      decision.reasons)

    def test_drops_the_one_that_must_go_even_if_earlier(self):
        req = request(['a', 'b', 'c'], [
            rule('ANTI_AFFINITY', 'a', 'b', 'c', fallback=True),  # 2 zones
            rule('AFFINITY', 'a', 'b', fallback=True)])
        decision = ge.evaluate(req, cloud({'AZ-1': [3], 'AZ-2': [3]}), 'g')
        self.assertEqual([0], [r.index for r in decision.relaxed])

    def test_relaxed_affinity_reason(self):
        req = request(['a', 'b'], [rule('AFFINITY', 'a', 'b', fallback=True)])
        decision = ge.evaluate(req, cloud({'AZ-1': [1], 'AZ-2': [1]}), 'g')
        self.assertIn('spread over 2', decision.relaxed[0].reason)


class TestRefused(testtools.TestCase):

    def _refusal(self, req, view):
        decision = ge.evaluate(req, view, 'g')
        self.assertFalse(decision.granted)
        self.assertIsNone(decision.grant)
        return decision.refusal

    def test_not_enough_capacity(self):
        self.assertIn('insufficient capacity', self._refusal(
            request(['a', 'b', 'c']), cloud({'AZ-1': [1], 'AZ-2': [1]})))

    def test_anti_affinity_names_the_constraint(self):
        reason = self._refusal(
            request(['a', 'b', 'c'], [rule('ANTI_AFFINITY', 'a', 'b', 'c')]),
            cloud({'AZ-1': [3], 'AZ-2': [3]}))
        self.assertEqual(
            'placementConstraints[0] (ANTI_AFFINITY/ZONE [a, b, c]) cannot '
            'be honoured: it needs 3 different zones; 2 are usable', reason)

    def test_affinity_names_the_constraint(self):
        reason = self._refusal(
            request(['a', 'b'], [rule('AFFINITY', 'a', 'b',
                                      scope='NFVI_NODE', fallback=False)]),
            cloud({'AZ-1': [1, 1]}))
        self.assertIn('no single nfvi_node has room', reason)

    def test_constraints_together(self):
        reason = self._refusal(
            request(['a', 'b', 'c'], [rule('AFFINITY', 'a', 'b'),
                                      rule('AFFINITY', 'b', 'c')]),
            cloud({'AZ-1': [2], 'AZ-2': [1]}))
        self.assertIn('placementConstraints[0, 1] (fallbackBestEffort '
                      'false) cannot all be honoured together', reason)

    def test_existing_resources_already_break_it(self):
        existing = {'s1': {'zoneId': 'AZ-1'}, 's2': {'zoneId': 'AZ-2'}}
        reason = self._refusal(
            request(['a'], [rule('AFFINITY', 'a', '@s1', '@s2')]),
            cloud({'AZ-1': [2], 'AZ-2': [2]}, existing))
        self.assertIn('the allocated resources already break it', reason)

    def test_search_limit(self):
        reason = self._refusal(request(['a', 'b']), ge_cloud_2x2())
        self.assertIsNotNone(reason)
        decision = ge.evaluate(request(['a', 'b']), ge_cloud_2x2(), 'g',
                               budget_nodes=1)
        self.assertEqual('no placement was found within the search limit',
                         decision.refusal)


def ge_cloud_2x2():
    return cloud({'AZ-1': [0], 'AZ-2': [1]})


class TestBadInput(testtools.TestCase):

    def _field(self, func):
        return self.assertRaises(exception.InvalidInput, func).field

    def test_request_side(self):
        view = cloud({'AZ-1': [2]}, {'s1': {'zoneId': 'AZ-1'}})
        req = request(['a'], vdu='VDU9')
        self.assertEqual('addResources[0].resourceTemplateId',
                         self._field(lambda: ge.evaluate(req, view, 'g')))
        req = request(['a'], [rule('ANTI_AFFINITY', 'a', '@s9')])
        self.assertEqual('placementConstraints[0].resource[1].resourceId',
                         self._field(lambda: ge.evaluate(req, view, 'g')))
        req = request(['a'], [rule('ANTI_AFFINITY', 'a', '@s1',
                                   scope='NFVI_NODE')])
        self.assertEqual('existing.s1.host',
                         self._field(lambda: ge.evaluate(req, view, 'g')))

    def test_zones_document(self):
        base = {'zones': [{'zoneId': 'AZ-1', 'hosts': [
            {'name': 'h1', 'free': {'VCPU': 1}}]}]}
        cases = [
            ({'zones': base['zones'] * 2}, 'zones[1].zoneId'),
            ({'zones': base['zones'] + [{'zoneId': 'AZ-2', 'hosts': [
                {'name': 'h1', 'free': {}}]}]}, 'zones[1].hosts[0].name'),
            ({'existing': {'s': {'zoneId': 'AZ-9'}}}, 'existing.s.zoneId'),
            ({'existing': {'s': {'zoneId': 'AZ-1', 'host': 'h9'}}},
             'existing.s.host'),
            ({'zones': [{'zoneId': 'AZ-1'}]}, 'zones[0].hosts'),
            ({'flavours': {'VDU1': {'VCPU': -1}}}, 'flavours.VDU1.VCPU'),
        ]
        for change, field in cases:
            doc = {**base, **change}
            self.assertEqual(field, self._field(
                lambda doc=doc: cloud_zones.Cloud.from_dict(doc)))


# --- against brute force on small problems ------------------------------

KINDS = ('AFFINITY', 'ANTI_AFFINITY')
SCOPES = ('ZONE', 'NFVI_NODE')


@st.composite
def problems(draw):
    new = ['a', 'b', 'c', 'd'][:draw(st.integers(1, 4))]
    layout = {f'AZ-{z}': [draw(st.integers(0, 2))
                          for _ in range(draw(st.integers(1, 2)))]
              for z in range(1, draw(st.integers(1, 3)) + 1)}
    constraints = []
    if len(new) > 1:
        for _ in range(draw(st.integers(0, 3))):
            members = draw(st.lists(st.sampled_from(new), min_size=2,
                                    unique=True))
            constraints.append(rule(draw(st.sampled_from(KINDS)), *members,
                                    scope=draw(st.sampled_from(SCOPES)),
                                    fallback=draw(st.booleans())))
    return request(new, constraints), cloud(layout)


def brute_force(req, view):
    """Fewest soft constraints broken by any valid placement, or None."""
    slots = [view.slot(zone, host.name) for zone in view.zones
             for host in zone.hosts]
    free = {view.slot(zone, host.name): host.free['VCPU']
            for zone in view.zones for host in zone.hosts}
    ids = [res.id for res in req.add_resources]
    rules = [search.Rule(i, c.is_affinity, c.scope, c.resource_ids)
             for i, c in enumerate(req.constraints())]
    best = None
    for choice in itertools.product(slots, repeat=len(ids)):
        if any(choice.count(slot) > free[slot] for slot in set(choice)):
            continue
        location = dict(zip(ids, choice, strict=True))
        broken = [r for r in rules if search.clashes(r, location)]
        if any(not req.constraints()[r.index].best_effort for r in broken):
            continue
        best = len(broken) if best is None else min(best, len(broken))
    return best


class TestAgainstBruteForce(testtools.TestCase):

    @settings(max_examples=250, deadline=None)
    @given(problems())
    def test_granted_iff_possible_and_relaxes_the_fewest(self, problem):
        req, view = problem
        decision = ge.evaluate(req, view, 'g')
        fewest = brute_force(req, view)
        self.assertEqual(fewest is not None, decision.granted,
                         decision.refusal)
        if decision.granted:
            self.assertEqual(fewest, len(decision.relaxed))
            grant = grant_mod.parse(decision.grant.to_dict())
            for res in req.add_resources:
                self.assertIsNotNone(grant.zone_name(res.id))


class TestScale(testtools.TestCase):
    """The search is iterative: it used to recurse once per resource and
    fail with "maximum recursion depth" above about 985 of them."""

    def test_more_resources_than_the_recursion_limit(self):
        new = [f'VDU1-{n}' for n in range(1500)]
        constraint = rule('ANTI_AFFINITY', *new, fallback=True)
        decision = ge.evaluate(
            request(new, [constraint]),
            cloud({'AZ-1': [1000, 1000], 'AZ-2': [1000]}), 'grant-1')
        self.assertIsNotNone(decision.grant)
        self.assertEqual(1500, len(decision.hosts))
        self.assertEqual(1, len(decision.relaxed))   # 1500 in 2 zones
