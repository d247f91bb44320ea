"""Zone relations: counted move effects against their definition."""

import testtools
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from placement_ext.decision import zone_constraints as zc
from placement_ext.tests.unit.decision import test_zone_reselection as spec

ZONES = spec.ZONES[:3] + ('AZ-X',)   # AZ-X: no VNFC there


def by_definition(constraints, placement, group, zone):
    """(anti peers, left apart, hard) of moving ``group`` to ``zone``,
    member by member, as the relations judged it before counting."""
    inside = set(group)
    anti, left, hard = set(), set(), []
    for constraint in constraints:
        if not zc.binds_zone(constraint):
            continue
        members = list(dict.fromkeys(constraint.resource_ids))
        ours = [name for name in members if name in inside]
        if not ours:
            continue
        if constraint.is_affinity:
            clash = [n for n in members
                     if n not in inside and placement[n] != zone]
            left.update(clash)
        else:
            clash = [n for n in members
                     if n not in inside and placement[n] == zone]
            anti.update(clash)
            clash += ours[1:]
        if clash and constraint.fallback_best_effort is False:
            hard.append(constraint)
    return tuple(sorted(anti)), tuple(sorted(left)), tuple(hard)


@st.composite
def relations(draw):
    names = [f'V{n}' for n in range(draw(st.integers(1, 8)))]
    placement = {name: draw(st.sampled_from(ZONES[:3])) for name in names}
    kinds = st.sampled_from([spec.affinity, spec.anti])
    constraints = [draw(kinds)(*draw(st.lists(st.sampled_from(names),
                                              min_size=2, max_size=6)),
                                 fallback=draw(st.sampled_from(
                                     [None, True, False])))
                   for _ in range(draw(st.integers(0, 4)))]
    group = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    moves = draw(st.lists(st.tuples(st.sampled_from(names),
                                    st.sampled_from(ZONES)), max_size=4))
    return constraints, placement, tuple(group), moves


class TestCountedLikeTheDefinition(testtools.TestCase):

    @settings(max_examples=150, deadline=None)
    @given(relations())
    def test_every_zone_after_moves(self, drawn):
        constraints, placement, group, moves = drawn
        rel = zc.Relations(constraints, placement)
        for name, zone in moves:
            rel.move([name], zone)
        effects = rel.effects_of_moves(group, ZONES)
        for zone, effect in zip(ZONES, effects, strict=True):
            anti, left, hard = by_definition(constraints, rel.placement,
                                             group, zone)
            self.assertEqual(
                (len(anti), len(left), anti, left, hard),
                (effect.anti_count, effect.apart_count, effect.anti_peers,
                 effect.affinity_left, effect.hard))


class TestNames(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.names = [f'V{n:02}' for n in range(30)]
        self.rel = zc.Relations([spec.anti('T', *self.names)],
                                {'T': 'AZ-1', **dict.fromkeys(self.names,
                                                              'AZ-2')})

    def test_a_long_list_is_cut_and_counted(self):
        effect = self.rel.effect_of_move(['T'], 'AZ-2')
        self.assertEqual(
            ['anti-affinity broken: no zone free of anti-affinity peers was '
             'left for T; AZ-2 is used by ' + ', '.join(self.names[:20]) +
             ' and 10 more'], effect.describe('T', 'AZ-2'))

    def test_a_short_list_is_whole_and_sorted(self):
        rel = zc.Relations([spec.anti('T', 'B', 'A')],
                           {'T': 'AZ-1', 'B': 'AZ-2', 'A': 'AZ-2'})
        self.assertEqual('anti-affinity peers A, B',
                         rel.effect_of_move(['T'], 'AZ-2').summary())

    def test_names_asked_after_a_move_are_refused(self):
        effect = self.rel.effect_of_move(['T'], 'AZ-2')
        self.rel.move(['T'], 'AZ-3')
        self.assertRaises(RuntimeError, lambda: effect.anti_peers)
        self.assertEqual(30, effect.anti_count)
