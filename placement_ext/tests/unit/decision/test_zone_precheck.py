"""The capacity pre-check: every rule of zone_precheck's docstring."""

import random

import testtools

from placement_ext.decision import zone_precheck as zp
from placement_ext.tests.unit.decision import test_zone_reselection as t

ZONES = t.ZONES


def fits(room, *names):
    """The same room (zone -> instances) for every named VNFC."""
    return {name: dict(room) for name in names}


def check(placement, fits_map, targets=None, constraints=(), zones=ZONES,
          strategy='capacity', rng=None, **kwargs):
    return zp.precheck(zp.PrecheckRequest(
        zones=zones, placement=placement,
        targets=targets or sorted(placement), fits=fits_map,
        constraints=constraints, **kwargs), strategy=strategy, rng=rng)


class TestPrecheck(testtools.TestCase):

    def test_target_in_a_zone_without_room_moves_where_most_fit(self):
        result = check({'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-2'},
                       fits({'AZ-1': 0, 'AZ-2': 1, 'AZ-3': 2, 'AZ-4': 5},
                            'VDU1-0', 'VDU2-0'))
        self.assertEqual({'VDU1-0': ('AZ-1', 'AZ-4')}, result.moved)
        self.assertFalse(result.exhausted)
        reasons = '\n'.join(result.reasons)
        self.assertIn('pre-check: VDU1-0: AZ-1 -> AZ-4 (AZ-1 is known too '
                      'small', reasons)

    def test_targets_that_fit_stay(self):
        result = check({'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1'},
                       fits({'AZ-1': 2}, 'VDU1-0', 'VDU1-1'))
        self.assertEqual({}, result.moved)
        self.assertIn('every target fits', result.reasons[0])

    def test_first_targets_keep_the_zone_while_room_lasts(self):
        placement = {'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1', 'VDU1-2': 'AZ-1'}
        result = check(placement, fits({'AZ-1': 2, 'AZ-2': 3},
                                       *placement))
        self.assertEqual({'VDU1-2': ('AZ-1', 'AZ-2')}, result.moved)

    def test_moves_share_the_destination_room(self):
        placement = {f'VDU1-{i}': 'AZ-1' for i in range(3)}
        result = check(placement, fits({'AZ-1': 0, 'AZ-2': 2, 'AZ-3': 1},
                                       *placement))
        self.assertEqual({'VDU1-0': 'AZ-2', 'VDU1-1': 'AZ-2',
                          'VDU1-2': 'AZ-3'}, result.placement)

    def test_flavors_share_a_zone_by_their_room(self):
        # AZ-1 takes 2 small or 1 large: a small and a large overflow it
        placement = {'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-1'}
        room = {'VDU1-0': {'AZ-1': 2, 'AZ-2': 2},
                'VDU2-0': {'AZ-1': 1, 'AZ-2': 1}}
        result = check(placement, room)
        self.assertEqual({'VDU2-0': ('AZ-1', 'AZ-2')}, result.moved)

    def test_unknown_room_is_not_judged_and_never_chosen(self):
        placement = {'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-2'}
        self.assertEqual({}, check(placement, {}).moved)
        # VDU2-0's room is known nowhere but in AZ-2, which is full
        result = check(placement, {'VDU1-0': {'AZ-1': 1},
                                   'VDU2-0': {'AZ-2': 0}})
        self.assertEqual({}, result.moved)
        self.assertIn('no zone the Grant allows is known to fit',
                      '\n'.join(result.reasons))

    def test_only_zones_the_grant_allows(self):
        result = check({'VDU1-0': 'AZ-1'},
                       fits({'AZ-1': 0, 'AZ-2': 1, 'AZ-5': 9}, 'VDU1-0'),
                       zones=('AZ-1', 'AZ-2'))
        self.assertEqual({'VDU1-0': ('AZ-1', 'AZ-2')}, result.moved)
        result = check({'VDU1-0': 'AZ-1'},
                       fits({'AZ-1': 0, 'AZ-5': 9}, 'VDU1-0'),
                       zones=('AZ-1', 'AZ-2'))
        self.assertEqual({}, result.moved)

    def test_random_picks_only_zones_with_room(self):
        room = fits({'AZ-1': 0, 'AZ-2': 1, 'AZ-3': 0, 'AZ-4': 1, 'AZ-5': 0},
                    'VDU1-0')
        chosen = {check({'VDU1-0': 'AZ-1'}, room, strategy='random',
                        rng=random.Random(seed)).placement['VDU1-0']
                  for seed in t.SEEDS}
        self.assertEqual({'AZ-2', 'AZ-4'}, chosen)

    def test_random_needs_an_rng(self):
        self.assertRaises(ValueError, check, {'VDU1-0': 'AZ-1'}, {},
                          strategy='random')

    def test_non_targets_never_move(self):
        result = check({'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1'},
                       fits({'AZ-1': 0, 'AZ-2': 5}, 'VDU1-0', 'VDU1-1'),
                       targets=['VDU1-1'])
        self.assertEqual({'VDU1-1': ('AZ-1', 'AZ-2')}, result.moved)
        self.assertEqual('AZ-1', result.placement['VDU1-0'])


class TestPrecheckConstraints(testtools.TestCase):

    placement = {'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1'}
    room = fits({'AZ-1': 0, 'AZ-2': 5}, 'VDU1-0', 'VDU1-1')

    def test_no_move_when_fallback_best_effort_is_false_or_absent(self):
        for fallback in (False, None):
            result = check(self.placement, self.room, constraints=[
                t.anti('VDU1-0', 'VDU1-1', fallback=fallback)])
            self.assertEqual({}, result.moved, fallback)
            self.assertIn('is not fallbackBestEffort',
                          '\n'.join(result.reasons))

    def test_best_effort_constraint_lets_targets_move(self):
        result = check(self.placement, self.room, constraints=[
            t.affinity('VDU1-0', 'VDU1-1')])
        self.assertEqual({'VDU1-0': 'AZ-2', 'VDU1-1': 'AZ-2'},
                         result.placement)
        self.assertEqual((), result.broken)

    def test_affinity_group_moves_whole_and_one_pinned_member_pins_it(self):
        placement = {'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1', 'VDU2-0': 'AZ-3'}
        room = fits({'AZ-1': 1, 'AZ-2': 5, 'AZ-3': 5}, *placement)
        result = check(placement, room,
                       constraints=[t.affinity('VDU1-0', 'VDU1-1')])
        self.assertEqual({'VDU1-0': ('AZ-1', 'AZ-2'),
                          'VDU1-1': ('AZ-1', 'AZ-2')}, result.moved)
        result = check(placement, room, constraints=[
            t.affinity('VDU1-0', 'VDU1-1'),
            t.anti('VDU1-1', 'VDU2-0', fallback=False)])
        self.assertEqual({}, result.moved)

    def test_pinned_targets_keep_their_zone_first(self):
        # VDU1-1 may not move: VDU1-0 gives it AZ-1's only room
        placement = {'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1', 'VDU2-0': 'AZ-3'}
        room = fits({'AZ-1': 1, 'AZ-2': 5, 'AZ-3': 5}, *placement)
        result = check(placement, room, constraints=[
            t.anti('VDU1-1', 'VDU2-0', fallback=False)])
        self.assertEqual({'VDU1-0': ('AZ-1', 'AZ-2')}, result.moved)

    def test_largest_groups_are_placed_first(self):
        # VDU1-0 first would take AZ-2 (most room) from the group of three
        placement = {'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-1', 'VDU2-1': 'AZ-1',
                     'VDU2-2': 'AZ-1'}
        room = fits({'AZ-1': 0, 'AZ-2': 3, 'AZ-3': 1}, *placement)
        result = check(placement, room, constraints=[
            t.affinity('VDU2-0', 'VDU2-1', 'VDU2-2')])
        self.assertEqual({'VDU1-0': 'AZ-3', 'VDU2-0': 'AZ-2',
                          'VDU2-1': 'AZ-2', 'VDU2-2': 'AZ-2'},
                         result.placement)

    def test_anti_affinity_peers_are_avoided_while_a_zone_fits(self):
        placement = {'VDU2-0': 'AZ-1', 'VDU2-1': 'AZ-2'}
        room = fits({'AZ-1': 0, 'AZ-2': 9, 'AZ-3': 1}, *placement)
        result = check(placement, room,
                       constraints=[t.anti('VDU2-0', 'VDU2-1')])
        self.assertEqual('AZ-3', result.placement['VDU2-0'])
        self.assertEqual((), result.broken)
        room['VDU2-0']['AZ-3'] = 0
        result = check(placement, room,
                       constraints=[t.anti('VDU2-0', 'VDU2-1')])
        self.assertEqual('AZ-2', result.placement['VDU2-0'])
        self.assertEqual((0,), result.broken_indexes)
        self.assertIn('anti-affinity broken', '\n'.join(result.reasons))


class TestPrecheckAfterFailure(testtools.TestCase):

    def test_every_target_of_the_full_zone_moves(self):
        # VDU1-1 failed in AZ-1 and went to AZ-2; VDU2-0 is also in AZ-1
        placement = {'VDU1-0': 'AZ-3', 'VDU1-1': 'AZ-2', 'VDU2-0': 'AZ-1',
                     'VDU2-1': 'AZ-4'}
        room = fits({'AZ-1': 0, 'AZ-2': 2, 'AZ-3': 1, 'AZ-4': 1,
                     'AZ-5': 3}, *placement)
        result = check(placement, room, failed={'VDU1-1': ['AZ-1']},
                       judged=['AZ-1'])
        self.assertEqual({'VDU2-0': ('AZ-1', 'AZ-5')}, result.moved)

    def test_other_zones_are_not_judged(self):
        # AZ-4 looks full, but its target may have been built there
        placement = {'VDU1-1': 'AZ-2', 'VDU2-1': 'AZ-4'}
        room = fits({'AZ-2': 2, 'AZ-4': 0, 'AZ-5': 3}, *placement)
        result = check(placement, room, judged=['AZ-1'])
        self.assertEqual({}, result.moved)

    def test_zones_a_member_failed_in_are_not_chosen(self):
        placement = {'VDU2-0': 'AZ-1'}
        room = fits({'AZ-1': 0, 'AZ-2': 9, 'AZ-3': 1}, 'VDU2-0')
        result = check(placement, room, failed={'VDU2-0': ['AZ-2']},
                       judged=['AZ-1'])
        self.assertEqual({'VDU2-0': ('AZ-1', 'AZ-3')}, result.moved)


class TestAllowedZones(testtools.TestCase):

    def test_the_grants_zone_list(self):
        zones, note = zp.allowed_zones(ZONES, ['AZ-4', 'AZ-2', 'AZ-9'],
                                       {'VDU1-0': 'AZ-1'}, ['VDU1-0'])
        self.assertEqual(['AZ-2', 'AZ-4'], zones)
        self.assertIn('the zones the Grant lists', note)

    def test_without_a_list_the_zones_of_the_granted_targets(self):
        granted = {'VDU1-0': 'AZ-3', 'VDU1-1': 'AZ-1', 'VDU9-0': 'AZ-5'}
        zones, note = zp.allowed_zones(ZONES, None, granted,
                                       ['VDU1-0', 'VDU1-1'])
        self.assertEqual(['AZ-1', 'AZ-3'], zones)
        self.assertIn('placed the targets in', note)

    def test_pinned_names_the_constraint(self):
        constraint = t.anti('VDU1-0', 'VDU1-1', fallback=None)
        self.assertEqual(
            {'VDU1-0': 'ANTI_AFFINITY/ZONE [VDU1-0, VDU1-1] is not '
                       'fallbackBestEffort'},
            zp.pinned([constraint, t.anti('VDU1-0', 'VDU2-0')],
                      ['VDU1-0']))
