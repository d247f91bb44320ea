"""The pure parts of benchmarks/bench_reselection_cloud.py.

The scenarios' own consistency, the request the conductor gets, the run
record built from a finished operation, and the results page. The cloud
part runs only against the embedded cloud (the script itself).
"""

import datetime
import importlib.util
import json
import os
import sys
import tempfile
from unittest import mock

import testtools

from placement_ext import errors
from placement_ext.conductor import stack_request
from placement_ext.objects import operation as op_obj
from placement_ext.sol import placement_constraint as pc
from placement_ext.vocabulary import states

_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                    '..', '..', 'benchmarks')
_SPEC = importlib.util.spec_from_file_location(
    'bench_reselection_cloud',
    os.path.join(_DIR, 'bench_reselection_cloud.py'))
bench = importlib.util.module_from_spec(_SPEC)
# the script imports its siblings (bench_reselection, report) by name
with mock.patch.object(sys, 'path', [_DIR, *sys.path]):
    _SPEC.loader.exec_module(bench)

NOW = datetime.datetime(2026, 1, 1)
FULL_GRANT, ANTI_AFFINE, LARGE = bench.SCENARIOS


def attempt(seq, vnfc, zone, outcome, seed=None, seconds=5.0):
    decision = {'seed': seed} if seed else {'reasons': ['as granted']}
    return op_obj.Attempt(seq=seq, vdu_id=vnfc, zone=zone, outcome=outcome,
                          error_text=None, started_at=NOW,
                          duration_s=seconds, decision=decision)


def operation(scenario, state, placement, attempts, error=None):
    return op_obj.Operation(
        id='op-1', vnf_instance_id='vnf', operation='INSTANTIATE',
        state=state, state_entered_at=NOW,
        params=bench.request_body(scenario, 'vnf'), placement=placement,
        error=error, request_id=None, generation=1, attempts=attempts)


def record(scenario, strategy, attempts, seconds, broken=0):
    base = {'source': 'real-cloud', 'scenario': scenario.name,
            'strategy': strategy, 'feasible': True,
            'grant_bound': scenario.grant_bound, 'outcome': 'success',
            'time_basis': 'measured', 'broken_constraints': broken}
    path = [{'vnfc': 'VDU1-0', 'zone': 'AZ-1', 'outcome': 'x',
             'heat_s': 4.0}] * attempts
    return dict(base, attempts=attempts, time_s=seconds, path=path)


class TestScenarios(testtools.TestCase):

    def test_each_grant_misses_and_some_zone_fits_all(self):
        for s in bench.SCENARIOS:
            self.assertEqual({0}, {s.room[z] for z in s.granted.values()},
                             s.name)
            self.assertGreaterEqual(max(s.room.values()), len(s.granted))
            self.assertLessEqual(set(s.fill), set(s.room))
            self.assertIn(s.flavor, bench.FLAVORS)
            # no affinity groups: one more attempt per VNFC without room
            self.assertEqual(1 + len(s.granted), s.grant_bound, s.name)

    def test_constraints_are_best_effort_and_name_vnfcs(self):
        constraints = [pc.PlacementConstraint.from_dict(c)
                       for s in bench.SCENARIOS for c in s.constraints]
        self.assertEqual(1, len(constraints))
        self.assertTrue(constraints[0].fallback_best_effort)
        self.assertEqual(set(ANTI_AFFINE.granted),
                         set(constraints[0].resource_ids))


class TestRequest(testtools.TestCase):

    def test_requests_pass_the_conductors_checks(self):
        for s in bench.SCENARIOS:
            body = bench.request_body(s, 'bench-x')
            self.assertIs(body, stack_request.validate(body))
            self.assertEqual(sorted(s.granted), body['targets'])
            self.assertEqual(len(s.constraints),
                             len(stack_request.constraints(body)))

    def test_flavor_reaches_template_and_capacity_request(self):
        body = bench.request_body(LARGE, 'bench-x')
        self.assertIn('flavor: vdu.large', body['files']['VDU.yaml'])
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 1},
                         stack_request.flavor_resources(body, 'VDU1-0'))
        small = bench.request_body(FULL_GRANT, 'bench-x')
        self.assertIn('flavor: vdu.small', small['files']['VDU.yaml'])


class TestRecord(testtools.TestCase):

    def test_success_with_a_bent_constraint(self):
        op = operation(ANTI_AFFINE, states.STATE_COMPLETED,
                       {'VDU2-0': 'AZ-3', 'VDU2-1': 'AZ-3'}, (
                           attempt(1, 'VDU2-1', 'AZ-1',
                                   'insufficient_capacity'),
                           attempt(2, 'VDU2-0', 'AZ-1',
                                   'insufficient_capacity', 'op-1:1'),
                           attempt(3, 'VDU2-0', 'AZ-3', 'success', 'op-1:2',
                                   seconds=4.666)))
        run = bench.run_record(ANTI_AFFINE, 'capacity', 0, op, 14.694)
        self.assertEqual(
            {'source': 'real-cloud', 'time_basis': 'measured',
             'feasible': True, 'outcome': 'success', 'attempts': 3,
             'grant_bound': 3, 'broken_constraints': 1, 'time_s': 14.69,
             'seeds': ['op-1:1', 'op-1:2']},
            {k: run[k] for k in ('source', 'time_basis', 'feasible',
                                 'outcome', 'attempts', 'grant_bound',
                                 'broken_constraints', 'time_s', 'seeds')})
        self.assertEqual({'vnfc': 'VDU2-0', 'zone': 'AZ-3',
                          'outcome': 'success', 'heat_s': 4.67},
                         run['path'][-1])
        self.assertIn('VDU2-1@AZ-1 insufficient_capacity, ',
                      bench.describe(run))

    def test_outcomes(self):
        def failed(code, detail):
            return operation(FULL_GRANT, states.STATE_FAILED,
                             dict(FULL_GRANT.granted), (),
                             {'code': code, 'detail': detail})

        self.assertEqual('exhausted', bench.outcome(failed(
            errors.ZONES_EXHAUSTED, 'stopped: no availability zone is left')))
        self.assertEqual('limit', bench.outcome(failed(
            errors.ZONES_EXHAUSTED, 'stopped: reached the limit of 1')))
        self.assertEqual('error', bench.outcome(failed(
            errors.STACK_FAILED, 'resources.broken')))


class TestResults(testtools.TestCase):

    def test_document_and_page(self):
        runs = [record(FULL_GRANT, 'random', 2, 12.0),
                record(FULL_GRANT, 'random', 3, 20.0),
                record(FULL_GRANT, 'capacity', 2, 11.0),
                record(FULL_GRANT, 'capacity', 2, 13.0)]
        cloud = {'topology': 'AZ-1..AZ-3', 'heat_action_retry_limit': 0}
        document = bench.build_document(runs, cloud, 2, 60.0)
        by = {(s['scenario'], s['strategy']): s
              for s in document['summaries'] + document['overall']}
        self.assertEqual(2.5, by[('full-grant', 'random')]['attempts_mean'])
        self.assertEqual(0.5, by[('all', 'random')]['at_bound_rate'])
        self.assertEqual(1.0, by[('all', 'capacity')]['at_bound_rate'])
        self.assertEqual(4.0, document['heat_attempt_s_median'])
        with tempfile.TemporaryDirectory() as tmp:
            bench.write_results(document, tmp)
            with open(os.path.join(tmp, 'reselection_cloud.json')) as f:
                self.assertEqual(runs, json.load(f)['runs'])
            with open(os.path.join(tmp, 'reselection_cloud.rst')) as f:
                text = f.read()
        self.assertIn('2.00 attempts per successful deployment (max 2) '
                      'against 2.50', ' '.join(text.split()))
        self.assertIn('``action_retry_limit=0``', text)
        self.assertIn('.. list-table::', text)
        self.assertIn('* ``large-flavor-partial``:', text)
        self.assertNotIn('pre-check', text)   # no such runs

    def test_page_with_precheck_runs(self):
        runs = [record(FULL_GRANT, 'random', 2, 12.0),
                record(FULL_GRANT, 'capacity', 2, 11.0),
                record(FULL_GRANT, 'random+precheck', 1, 6.0),
                record(FULL_GRANT, 'capacity+precheck', 1, 5.0)]
        cloud = {'topology': 'AZ-1..AZ-3', 'heat_action_retry_limit': 0}
        _, paragraphs, _ = bench.page(bench.build_document(runs, cloud, 1,
                                                           9.0))
        text = ' '.join(paragraphs)
        self.assertIn('1.00 attempts per successful deployment with '
                      '``capacity`` (max 1) and 1.00 with ``random``', text)

    def test_request_lists_the_zones_and_variants_set_options(self):
        body = bench.request_body(FULL_GRANT, 'stack-1')
        self.assertEqual(['AZ-1', 'AZ-2', 'AZ-3'], body['grant_zones'])
        self.assertEqual(('random', 'capacity', 'random+precheck',
                          'capacity+precheck'), bench.STRATEGIES)

    def test_table_rows_dash_for_no_data(self):
        rows = bench.bench_reselection.table_rows(
            [{'scenario': 's', 'strategy': 'random', 'attempts_mean': None,
              'success_rate': 0.5}],
            ('scenario', 'strategy'),
            (('attempts_mean', 'mean', '{:.2f}'),
             ('success_rate', 'ok %', '%')))
        self.assertEqual([['scenario', 'strategy', 'mean', 'ok %'],
                          ['s', 'random', '-', '50.0']], rows)

    def test_topology(self):
        host = {'vcpus': 2, 'memory_mb': 8192}
        self.assertEqual('AZ-1..AZ-3, 2 hosts each (2 vCPU, 8192 MB)',
                         bench.topology({z: [host, host]
                                         for z in ('AZ-1', 'AZ-2', 'AZ-3')}))
        self.assertEqual(
            'AZ-1: 2 vCPU/8192 MB; AZ-2: 1 vCPU/2048 MB',
            bench.topology({'AZ-1': [host],
                            'AZ-2': [{'vcpus': 1, 'memory_mb': 2048}]}))
