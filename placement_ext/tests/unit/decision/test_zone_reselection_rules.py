"""Zone reselection: every rule and branch, one small table each."""

import random

import jsonschema
import testtools
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from placement_ext import exception
from placement_ext.decision import zone_reselection as zr
from placement_ext.schemas import reselection as reselection_schema
from placement_ext.tests.unit.decision import test_zone_reselection as spec

affinity = spec.affinity
anti = spec.anti
ZONES = spec.ZONES


def reselect(placement, targets, failed, constraints=(), capacity=None,
             zones=ZONES, strategy=zr.STRATEGY_CAPACITY, seed=0):
    req = zr.ReselectionRequest(zones=zones, placement=placement,
                                targets=targets, constraints=constraints,
                                failed=failed, capacity=capacity)
    return zr.reselect(req, strategy, random.Random(seed))


class TestWhatMoves(testtools.TestCase):

    def test_nothing_failed_nothing_moves(self):
        result = reselect({'A': 'AZ-1'}, ['A'], {})
        self.assertEqual(({'A': 'AZ-1'}, {}, False),
                         (result.placement, result.moved, result.exhausted))
        self.assertIn('nothing to move', result.reasons[0])

    def test_target_already_out_of_its_failed_zone_stays(self):
        result = reselect({'A': 'AZ-2'}, ['A'], {'A': ['AZ-1']})
        self.assertEqual({}, result.moved)

    def test_failed_non_target_is_never_moved(self):
        result = reselect({'OLD': 'AZ-1', 'NEW': 'AZ-2'}, ['NEW'],
                          {'OLD': ['AZ-1']})
        self.assertEqual({}, result.moved)
        self.assertIn('not a target', result.reasons[0])

    def test_unrelated_targets_in_the_failed_zone_stay(self):
        # upstream moves every new VDU of the failed zone; only affinity
        # ties targets together here
        result = reselect({'A': 'AZ-1', 'B': 'AZ-1'}, ['A', 'B'],
                          {'A': ['AZ-1']})
        self.assertEqual(['A'], list(result.moved))

    def test_affinity_groups_are_transitive(self):
        placement = {'A': 'AZ-1', 'B': 'AZ-1', 'C': 'AZ-5', 'D': 'AZ-1'}
        result = reselect(placement, ['A', 'B', 'C', 'D'],
                          {'A': ['AZ-1', 'AZ-2']},
                          [affinity('A', 'B'), affinity('B', 'C')])
        self.assertEqual({'A': ('AZ-1', 'AZ-3'), 'B': ('AZ-1', 'AZ-3'),
                          'C': ('AZ-5', 'AZ-3')}, result.moved)
        self.assertIn('A, B, C move together (affinity)', result.reasons)

    def test_nfvi_node_affinity_moves_together_too(self):
        result = reselect({'A': 'AZ-1', 'B': 'AZ-1'}, ['A', 'B'],
                          {'B': ['AZ-1']},
                          [affinity('A', 'B', scope='NFVI_NODE')])
        self.assertEqual(['A', 'B'], list(result.moved))

    def test_failed_zones_of_every_group_member_are_excluded(self):
        result = reselect({'A': 'AZ-1', 'B': 'AZ-1'}, ['A', 'B'],
                          {'A': ['AZ-1', 'AZ-2'], 'B': ['AZ-3']},
                          [affinity('A', 'B')])
        self.assertEqual('AZ-4', result.placement['A'])

    def test_two_groups_in_one_step_see_each_other(self):
        placement = {'A': 'AZ-1', 'B': 'AZ-2'}
        result = reselect(placement, ['A', 'B'],
                          {'A': ['AZ-1'], 'B': ['AZ-2']}, [anti('A', 'B')],
                          zones=('AZ-1', 'AZ-2', 'AZ-3', 'AZ-4'))
        # AZ-1 failed for A only: B may use it; AZ-3 now holds A
        self.assertEqual({'A': 'AZ-3', 'B': 'AZ-1'}, result.placement)
        self.assertEqual((), result.broken)


class TestWhereTo(testtools.TestCase):

    def test_anti_affinity_peer_zones_avoided(self):
        placement = {'A': 'AZ-1', 'P': 'AZ-2'}
        result = reselect(placement, ['A'], {'A': ['AZ-1']},
                          [anti('A', 'P')], zones=('AZ-1', 'AZ-2', 'AZ-3'),
                          capacity={'AZ-2': 9, 'AZ-3': 1})
        self.assertEqual('AZ-3', result.placement['A'])
        self.assertIn('avoided for A: AZ-2 (anti-affinity peers P)',
                      result.reasons)

    def test_peer_zone_with_room_beats_a_zone_known_full(self):
        # keeping anti-affinity in AZ-3 would cost an attempt known to fail
        placement = {'A': 'AZ-1', 'P': 'AZ-2'}
        result = reselect(placement, ['A'], {'A': ['AZ-1']},
                          [anti('A', 'P')], zones=('AZ-1', 'AZ-2', 'AZ-3'),
                          capacity={'AZ-2': 3, 'AZ-3': 0})
        self.assertEqual('AZ-2', result.placement['A'])
        self.assertEqual((0,), result.broken_indexes)
        self.assertIn('not tried for A, known too small: AZ-3',
                      result.reasons)

    def test_random_ignores_capacity(self):
        placement = {'A': 'AZ-1', 'P': 'AZ-2'}
        result = reselect(placement, ['A'], {'A': ['AZ-1']},
                          [anti('A', 'P')], zones=('AZ-1', 'AZ-2', 'AZ-3'),
                          capacity={'AZ-2': 3, 'AZ-3': 0},
                          strategy=zr.STRATEGY_RANDOM)
        self.assertEqual('AZ-3', result.placement['A'])

    def test_peer_zone_only_as_last_resort_and_reported(self):
        result = reselect({'A': 'AZ-1', 'P': 'AZ-2'}, ['A'], {'A': ['AZ-1']},
                          [anti('A', 'P')], zones=('AZ-1', 'AZ-2'))
        self.assertEqual('AZ-2', result.placement['A'])
        self.assertEqual((0,), result.broken_indexes)

    def test_keeps_affinity_with_an_existing_vnfc_when_it_can(self):
        placement = {'OLD': 'AZ-3', 'NEW': 'AZ-1'}
        for strategy in zr.STRATEGIES:
            result = reselect(placement, ['NEW'], {'NEW': ['AZ-1']},
                              [affinity('OLD', 'NEW')], strategy=strategy,
                              capacity={'AZ-5': 9})
            self.assertEqual('AZ-3', result.placement['NEW'], strategy)
            self.assertEqual((), result.broken)

    def test_anti_affinity_weighs_more_than_affinity(self):
        placement = {'OLD': 'AZ-3', 'PEER': 'AZ-3', 'NEW': 'AZ-1'}
        result = reselect(placement, ['NEW'], {'NEW': ['AZ-1']},
                          [affinity('OLD', 'NEW'), anti('PEER', 'NEW')],
                          zones=('AZ-1', 'AZ-2', 'AZ-3'))
        self.assertEqual('AZ-2', result.placement['NEW'])
        self.assertEqual((0,), result.broken_indexes)

    def test_hard_constraint_is_never_broken(self):
        # fallbackBestEffort false: a peer's zone is not a last resort
        result = reselect({'A': 'AZ-1', 'P': 'AZ-2'}, ['A'], {'A': ['AZ-1']},
                          [anti('A', 'P', fallback=False)],
                          zones=('AZ-1', 'AZ-2'))
        self.assertTrue(result.exhausted)
        self.assertIn('fallbackBestEffort false', '\n'.join(result.reasons))

    def test_hard_affinity_with_existing_vnfc_pins_the_zone(self):
        result = reselect({'OLD': 'AZ-2', 'A': 'AZ-1'}, ['A'],
                          {'A': ['AZ-1']},
                          [affinity('OLD', 'A', fallback=False)])
        self.assertEqual('AZ-2', result.placement['A'])

    def test_hard_anti_affinity_inside_the_moving_group_blocks_it(self):
        # contradictory VNFD: the affinity group cannot move anywhere
        # without putting two hard anti-affine members together
        result = reselect({'A': 'AZ-1', 'B': 'AZ-2'}, ['A', 'B'],
                          {'A': ['AZ-1']},
                          [affinity('A', 'B'), anti('A', 'B', fallback=False)])
        self.assertTrue(result.exhausted)

    def test_absent_fallback_counts_as_best_effort(self):
        result = reselect({'A': 'AZ-1', 'P': 'AZ-2'}, ['A'], {'A': ['AZ-1']},
                          [anti('A', 'P', fallback=None)],
                          zones=('AZ-1', 'AZ-2'))
        self.assertEqual('AZ-2', result.placement['A'])

    def test_other_scopes_neither_steer_nor_break(self):
        placement = {'A': 'AZ-1', 'P': 'AZ-2'}
        for scope in ('NFVI_NODE', 'ZONE_GROUP', 'NFVI_POP', 'CIS_NODE'):
            result = reselect(placement, ['A'], {'A': ['AZ-1']},
                              [anti('A', 'P', scope=scope)],
                              zones=('AZ-1', 'AZ-2', 'AZ-3'))
            self.assertEqual('AZ-2', result.placement['A'], scope)
            self.assertEqual((), result.broken, scope)


class TestExhausted(testtools.TestCase):

    def test_every_zone_failed(self):
        placement = {'A': 'AZ-1', 'B': 'AZ-3'}
        result = reselect(placement, ['A', 'B'],
                          {'A': ['AZ-1', 'AZ-2'], 'B': ['AZ-3']},
                          zones=('AZ-1', 'AZ-2'))
        self.assertTrue(result.exhausted)
        self.assertEqual(placement, result.placement)
        self.assertEqual({}, result.moved)
        self.assertIn('reselection exhausted', result.reasons[-1])

    def test_one_group_exhausted_leaves_everything_unchanged(self):
        placement = {'A': 'AZ-1', 'B': 'AZ-2'}
        result = reselect(placement, ['A', 'B'],
                          {'A': ['AZ-1'], 'B': ['AZ-2', 'AZ-1', 'AZ-3']},
                          zones=('AZ-1', 'AZ-2', 'AZ-3'))
        self.assertTrue(result.exhausted)
        self.assertEqual((placement, {}), (result.placement, result.moved))

    def test_no_candidate_zones(self):
        result = reselect({'A': 'AZ-1'}, ['A'], {'A': ['AZ-1']}, zones=())
        self.assertTrue(result.exhausted)


class TestCapacityStrategy(testtools.TestCase):

    def _choice(self, capacity, group=1, zones=ZONES):
        names = [f'N{i}' for i in range(group)]
        placement = dict.fromkeys(names, 'AZ-1')
        constraints = [affinity(*names)] if group > 1 else []
        return reselect(placement, names, {names[0]: ['AZ-1']},
                        constraints, capacity, zones).placement[names[0]]

    def test_most_room_first(self):
        self.assertEqual('AZ-3', self._choice({'AZ-2': 1, 'AZ-3': 5,
                                               'AZ-4': 2}))

    def test_fits_then_unknown_then_too_small(self):
        # a group of 3: AZ-2 (2) is too small, AZ-3 unknown, AZ-4 fits
        self.assertEqual('AZ-4', self._choice(
            {'AZ-2': 2, 'AZ-4': 3, 'AZ-5': 0}, group=3))
        self.assertEqual('AZ-3', self._choice(
            {'AZ-2': 2, 'AZ-4': 1, 'AZ-5': 0}, group=3))
        self.assertEqual('AZ-2', self._choice(
            {'AZ-2': 2, 'AZ-3': 0, 'AZ-4': 1, 'AZ-5': 0}, group=3))

    def test_without_capacity_the_name_decides(self):
        self.assertEqual('AZ-2', self._choice(None))
        self.assertEqual('AZ-2', self._choice({}))

    def test_zone_order_does_not_matter(self):
        shuffled = ('AZ-5', 'AZ-3', 'AZ-1', 'AZ-4', 'AZ-2')
        self.assertEqual('AZ-2', self._choice(None, zones=shuffled))

    def test_fewer_anti_affinity_peers_on_a_tie(self):
        placement = {'A': 'AZ-1', 'P1': 'AZ-2', 'P2': 'AZ-2', 'P3': 'AZ-3'}
        result = reselect(placement, ['A'], {'A': ['AZ-1']},
                          [anti('A', 'P1'), anti('A', 'P2'), anti('A', 'P3')],
                          zones=('AZ-1', 'AZ-2', 'AZ-3'))
        self.assertEqual('AZ-3', result.placement['A'])


class TestInput(testtools.TestCase):

    def _invalid(self, func):
        return self.assertRaises(exception.InvalidInput, func)

    def test_unknown_names_name_the_field(self):
        cases = [
            ({'targets': ['X']}, 'targets[0]'),
            ({'failed': {'X': ['AZ-1']}}, 'failed.X'),
            ({'constraints': [anti('A', 'X')]},
             'constraints[0].resource[1].resourceId'),
            ({'capacity': {'AZ-9': 1}}, 'capacity.AZ-9'),
        ]
        for change, field in cases:
            kwargs = {'zones': ('AZ-1',), 'placement': {'A': 'AZ-1'},
                      'targets': ['A'], 'failed': {}}
            req = zr.ReselectionRequest(**{**kwargs, **change})
            exc = self._invalid(lambda req=req: zr.reselect(req))
            self.assertEqual(field, exc.field)

    def test_strategy_and_rng(self):
        req = zr.ReselectionRequest(zones=(), placement={}, targets=())
        exc = self._invalid(lambda: zr.reselect(req, 'best'))
        self.assertEqual('strategy', exc.field)
        self.assertRaises(ValueError, zr.reselect, req, zr.STRATEGY_RANDOM)

    def test_document_round_trip(self):
        doc = {'zones': ['AZ-1', 'AZ-2'], 'placement': {'A': 'AZ-1'},
               'targets': ['A'], 'failed': {'A': ['AZ-1']},
               'constraints': [], 'capacity': {'AZ-2': 1}}
        result = zr.reselect(zr.ReselectionRequest.from_dict(doc))
        out = result.to_dict()
        jsonschema.validate(out,
                            reselection_schema.RESELECTION_PLAN_OUTPUT_V1_0)
        self.assertEqual({'placement': {'A': 'AZ-2'},
                          'moved': {'A': ['AZ-1', 'AZ-2']},
                          'broken': [], 'exhausted': False}, out)

    def test_schema_errors(self):
        base = {'zones': ['AZ-1'], 'placement': {'A': 'AZ-1'},
                'targets': ['A'], 'failed': {}}
        cases = [
            ({'zones': None}, 'zones', 'is required'),
            ({'extra': 1}, 'extra', 'is not allowed here'),
            ({'capacity': {'AZ-1': -1}}, 'capacity.AZ-1', 'minimum'),
            ({'failed': {'A': 'AZ-1'}}, 'failed.A', 'array'),
            ({'constraints': [{'affinityOrAntiAffinity': 'AFFINITY',
                               'scope': 'REGION', 'resource': []}]},
             'constraints[0].scope', "'REGION' is not one of"),
        ]
        for change, field, reason in cases:
            doc = {**base, **change}
            doc = {k: v for k, v in doc.items() if v is not None}
            exc = self._invalid(
                lambda doc=doc: zr.ReselectionRequest.from_dict(doc))
            self.assertEqual(field, exc.field, exc.reason)
            self.assertIn(reason, exc.reason)


# --- properties ----------------------------------------------------------

NAMES = [f'V{i}' for i in range(6)]


@st.composite
def situations(draw):
    zones = ZONES[:draw(st.integers(1, 5))]
    names = NAMES[:draw(st.integers(1, 6))]
    placement = {n: draw(st.sampled_from(zones)) for n in names}
    targets = draw(st.lists(st.sampled_from(names), unique=True))
    failed = {n: draw(st.lists(st.sampled_from(zones), unique=True))
              for n in draw(st.lists(st.sampled_from(names), unique=True))}
    constraints = [
        spec.constraint(draw(st.sampled_from(['AFFINITY', 'ANTI_AFFINITY'])),
                        draw(st.lists(st.sampled_from(names), min_size=2,
                                      max_size=4, unique=True)),
                        fallback=draw(st.sampled_from([True, False, None])))
        for _ in range(draw(st.integers(0, 3))) if len(names) >= 2]
    capacity = draw(st.none() | st.dictionaries(st.sampled_from(zones),
                                                st.integers(0, 4)))
    return zr.ReselectionRequest(zones, placement, targets, constraints,
                                 failed, capacity)


class TestProperties(testtools.TestCase):

    @settings(max_examples=300, deadline=None)
    @given(situations(), st.sampled_from(zr.STRATEGIES), st.integers(0, 99))
    def test_invariants(self, req, strategy, seed):
        result = zr.reselect(req, strategy, random.Random(seed))
        again = zr.reselect(req, strategy, random.Random(seed))
        self.assertEqual(result, again)  # deterministic for a seed
        self.assertEqual(set(req.placement), set(result.placement))
        for name in req.placement:
            if name not in req.targets:  # never moves a non-target
                self.assertEqual(req.placement[name], result.placement[name])
        if result.exhausted:
            self.assertEqual((dict(req.placement), {}),
                             (result.placement, result.moved))
            return
        for name, (before, after) in result.moved.items():
            self.assertIn(after, req.zones)
            # never into a zone where it failed
            self.assertNotIn(after, req.failed.get(name, ()))
            self.assertEqual(req.placement[name], before)
        for name in req.targets:  # nothing left where it failed
            self.assertNotIn(result.placement[name],
                             req.failed.get(name, ()))
        before = zr.reselect(zr.ReselectionRequest(
            req.zones, req.placement, (), req.constraints)).broken_indexes
        for index in result.broken_indexes:
            # a hard constraint broken afterwards was broken before
            if req.constraints[index].fallback_best_effort is False:
                self.assertIn(index, before)
