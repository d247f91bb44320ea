"""Smoke test of benchmarks/bench_reselection.py's simulator core.

Tiny hand-made clouds where the right number of attempts is known, the
capacity model's exact fit rule, the generator's invariants and the
output on a few generated scenarios. No timing is asserted.
"""

import dataclasses
import importlib.util
import json
import os
import sys
import tempfile
from unittest import mock

import testtools

from placement_ext.decision import retry_policy
from placement_ext.decision import zone_constraints as zc
from placement_ext.sol import placement_constraint as pc

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                     '..', '..', 'benchmarks', 'bench_reselection.py')
_SPEC = importlib.util.spec_from_file_location('bench_reselection', _PATH)
bench = importlib.util.module_from_spec(_SPEC)
# the script imports its sibling report by name
with mock.patch.object(sys, 'path', [os.path.dirname(_PATH), *sys.path]):
    _SPEC.loader.exec_module(bench)


def constraint(kind, *members):
    return pc.PlacementConstraint(
        affinity_or_anti_affinity=kind, scope='ZONE',
        resource=tuple(pc.ConstraintResourceRef.grant(m) for m in members),
        fallback_best_effort=True)


def tiny(free, seed='tiny'):
    """VDU1-0/1 affine (1 unit each) granted AZ-1; VDU2-0 anti-affine to
    VDU1-0, granted AZ-2."""
    return bench.Scenario(
        seed=seed, zones=tuple(sorted(free)), free=free,
        size={'VDU1-0': 1, 'VDU1-1': 1, 'VDU2-0': 1},
        constraints=(constraint('AFFINITY', 'VDU1-0', 'VDU1-1'),
                     constraint('ANTI_AFFINITY', 'VDU1-0', 'VDU2-0')),
        granted={'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1', 'VDU2-0': 'AZ-2'})


# AZ-1 and AZ-4 full, AZ-2 room for VDU2-0 only, AZ-3 room for 4 units.
ROOM_IN_AZ3 = {'AZ-1': (0, 0), 'AZ-2': (1,), 'AZ-3': (2, 2), 'AZ-4': (0,)}
ALL_FULL = {'AZ-1': (0,), 'AZ-2': (1,), 'AZ-3': (0, 0)}


class TestCapacityModel(testtools.TestCase):

    def test_fits_table(self):
        cases = [  # (free per host, sizes, fits)
            ((2, 2), [2, 2], True), ((2, 2), [2, 2, 1], False),
            ((3,), [2, 1], True), ((3,), [2, 2], False),
            ((1, 1), [2], False), ((1, 1), [1, 1], True), ((), [], True)]
        for free, sizes, expected in cases:
            self.assertEqual(expected, bench.fits(free, sizes), (free, sizes))

    def test_more_fit_table(self):
        cases = [  # (free, placed, unit, more)
            ((3, 1), [], 1, 4), ((3, 1), [], 2, 1), ((3, 1), [1], 2, 1),
            ((4, 4), [2], 2, 3), ((4, 4), [2, 1], 2, 2),
            ((1,), [2], 1, -1)]
        for free, placed, unit, expected in cases:
            self.assertEqual(expected, bench.more_fit(free, placed, unit))

    def test_feasible_pools_zones(self):
        self.assertTrue(bench.feasible(tiny(ROOM_IN_AZ3)))
        self.assertFalse(bench.feasible(tiny(ALL_FULL)))

    def test_deploy_reports_first_failure_and_what_was_built(self):
        scenario = tiny(ROOM_IN_AZ3)
        failed, built = bench.deploy(scenario, scenario.granted, {})
        self.assertEqual('VDU1-0', failed)
        self.assertEqual({'VDU2-0': 'AZ-2'}, built)
        self.assertEqual(
            {'AZ-1': 0, 'AZ-2': 0, 'AZ-3': 4, 'AZ-4': 0},
            bench.placement_capacity(scenario, built, 'VDU1-0'))
        self.assertEqual(2, bench.grant_bound(scenario))

    def test_built_vnfcs_keep_their_room(self):
        scenario = tiny({'AZ-1': (1,), 'AZ-2': (0,)})
        placement = dict.fromkeys(scenario.size, 'AZ-1')
        failed, built = bench.deploy(scenario, placement, {'VDU2-0': 'AZ-1'})
        self.assertEqual('VDU1-0', failed)
        self.assertEqual({'VDU2-0': 'AZ-1'}, built)


class TestLoop(testtools.TestCase):

    def test_capacity_goes_straight_to_the_zone_with_room(self):
        for strategy in ('capacity', 'capacity-stale'):
            run = bench.run_deployment(tiny(ROOM_IN_AZ3), strategy)
            self.assertEqual(('success', 2), (run['outcome'],
                                              run['attempts']), strategy)
            self.assertEqual(bench.CREATE_S + bench.UPDATE_S, run['time_s'])
            self.assertEqual(0, run['broken_constraints'])
            self.assertEqual(0, run['moves_to_known_full'])
            self.assertEqual(('simulated', 'modelled'),
                             (run['source'], run['time_basis']))

    def test_random_may_try_the_full_zone_first(self):
        seen = set()
        for index in range(12):
            run = bench.run_deployment(tiny(ROOM_IN_AZ3, f's{index}'),
                                       'random')
            self.assertEqual('success', run['outcome'])
            seen.add(run['attempts'])
        self.assertEqual({2, 3}, seen)

    def test_precheck_moves_before_the_first_attempt(self):
        # (capacity-stale may be misled by its noise)
        for strategy in ('random', 'capacity'):
            run = bench.run_deployment(tiny(ROOM_IN_AZ3),
                                       strategy + bench.PRECHECK)
            self.assertEqual(('success', 1), (run['outcome'],
                                              run['attempts']), strategy)
            self.assertEqual(bench.CREATE_S, run['time_s'])
            self.assertEqual(0, run['broken_constraints'])

    def test_no_zone_left_is_exhausted(self):
        for strategy in bench.VARIANTS:
            run = bench.run_deployment(tiny(ALL_FULL), strategy)
            self.assertEqual('exhausted', run['outcome'], strategy)
            self.assertLessEqual(run['attempts'], len(ALL_FULL) + 1)

    def test_retry_limit_stops_the_loop(self):
        limits = retry_policy.RetryLimits(max_reselections=1)
        run = bench.run_deployment(tiny(ALL_FULL), 'capacity', limits)
        self.assertEqual(('limit', 2), (run['outcome'], run['attempts']))
        unlimited = retry_policy.RetryLimits(max_reselections=0)
        run = bench.run_deployment(tiny(ALL_FULL), 'capacity', unlimited)
        self.assertEqual('exhausted', run['outcome'])


class TestGenerator(testtools.TestCase):

    def test_seeded_and_round_trips(self):
        one = bench.make_scenario('5-0.8-0', 5, 0.8)
        self.assertEqual(one, bench.make_scenario('5-0.8-0', 5, 0.8))
        self.assertEqual(one, bench.Scenario.from_dict(
            json.loads(json.dumps(one.to_dict()))))

    def test_invariants(self):
        for index in range(30):
            scenario = bench.make_scenario(f'g{index}', 10, 0.6)
            self.assertEqual(10, len(scenario.zones))
            self.assertTrue(2 <= len(scenario.size) <= 8)
            self.assertLessEqual(set(scenario.size.values()), {1, 2})
            for hosts in scenario.free.values():
                self.assertTrue(2 <= len(hosts) <= 6)
                self.assertTrue(all(0 <= f <= bench.HOST_UNITS
                                    for f in hosts))
            self.assertLessEqual(set(scenario.granted.values()),
                                 set(scenario.zones))
            for c in scenario.constraints:
                self.assertTrue(c.fallback_best_effort)
                if c.is_affinity:
                    self.assertTrue(zc.kept(c, scenario.granted))


class TestSummaryAndOutput(testtools.TestCase):

    def test_percentile(self):
        self.assertEqual(9, bench.percentile(range(1, 11), 0.9))
        self.assertEqual(1, bench.percentile([1], 0.5))
        self.assertIsNone(bench.percentile([], 0.5))

    def test_infeasible_reported_apart(self):
        base = {'source': 'real-cloud', 'strategy': 'capacity',
                'time_basis': 'measured', 'broken_constraints': 0}
        runs = [dict(base, feasible=True, outcome='success', attempts=1,
                     time_s=4.1),
                dict(base, feasible=True, outcome='success', attempts=3,
                     time_s=14.2),
                dict(base, feasible=True, outcome='exhausted', attempts=5,
                     time_s=25.0),
                dict(base, feasible=False, outcome='exhausted', attempts=7,
                     time_s=35.0)]
        summary = bench.summarize(runs)
        self.assertEqual((3, 1), (summary['feasible'],
                                  summary['infeasible']))
        self.assertEqual(0.6667, summary['success_rate'])
        self.assertEqual((2.0, 3), (summary['attempts_mean'],
                                    summary['attempts_max']))
        self.assertEqual(7, summary['infeasible_attempts_mean'])
        self.assertIsNone(summary['grant_bound_mean'])  # simulator-only

    def test_cells_to_json_and_rst(self):
        limits = retry_policy.RetryLimits()
        runs = [run for zones in (bench.ZONE_COUNTS[0],
                                  bench.ZONE_COUNTS[-1])
                for run in bench.run_cell(zones, bench.FILLS[-1], 2, limits)]
        self.assertEqual(2 * 2 * len(bench.VARIANTS), len(runs))
        for run in runs:
            self.assertEqual(run['strategy'].endswith(bench.PRECHECK),
                             'attempts_without' in run)
        args = bench.parse_args(['--per-cell', '2'])
        document = bench.build_document(runs, args, 0.1)
        json.dumps(document)
        self.assertEqual(list(bench.VARIANTS),
                         [s['strategy'] for s in document['overall']])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'reselection.rst')
            bench.write_rst(document, path)
            with open(path) as rst:
                text = rst.read()
        self.assertIn('physical', text)
        self.assertIn('With the pre-check', text)
        self.assertIn('.. list-table::', text)

    def test_scenario_replace_keeps_working(self):
        # a real-cloud scenario is written by hand, like these
        scenario = dataclasses.replace(tiny(ROOM_IN_AZ3), seed='real-1')
        self.assertEqual('real-1',
                         bench.run_deployment(scenario, 'capacity')
                         ['scenario'])
