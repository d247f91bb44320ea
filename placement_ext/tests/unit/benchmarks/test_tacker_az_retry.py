"""benchmarks/tacker_az_retry.py: figures of one run of Tacker's
zone-retry test read from heat-api's and tacker-conductor's logs."""

import importlib.util
import os

import testtools

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                     '..', '..', 'benchmarks', 'tacker_az_retry.py')
_SPEC = importlib.util.spec_from_file_location('tacker_az_retry', _PATH)
logs = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(logs)

DAY = '2026-11-26 12:00:'


def heat(second, method, path):
    return (f'{DAY}{second:06.3f} 42 INFO heat.common.wsgi [None req-1 u p] '
            f'Processing request: {method} /v1/p/stacks{path}')


def conductor(second, text):
    return f'{DAY}{second:06.3f} 7 INFO tacker.x [-] {text}'


HEAT_API = '\n'.join([
    heat(1.0, 'POST', ''),                       # the create
    'a line without a time stamp',
    heat(10.0, 'GET', '/vnf-1/s1'),              # Tacker sees it failed
    heat(10.2, 'GET', '/vnf-1/s1/events'),
    heat(12.0, 'GET', '/vnf-1'),                 # ours: redirect ...
    heat(12.1, 'GET', '/vnf-1/s1'),              # ... and the stack
    heat(12.4, 'PATCH', '/vnf-1/s1'),            # the retry
    heat(12.6, 'PATCH', '/vnf-1/s1/resources/VDU1'),  # not an attempt
    heat(16.0, 'GET', '/vnf-1/s1'),
    heat(30.0, 'DELETE', '/vnf-1/s1'),           # after the window
])
CONDUCTOR = '\n'.join([
    conductor(10.5, 'Stack update vnf-1 failed.'),
    conductor(16.5, 'Operation op-1 completed with {}'),
])


class TestMeasure(testtools.TestCase):

    def test_retry_window(self):
        got = logs.measure(HEAT_API, CONDUCTOR)
        self.assertEqual(2, got['heat_attempts'])
        self.assertEqual(9, got['heat_requests'])
        self.assertEqual(1.5, got['to_next_heat_call_s'])
        self.assertEqual(1.9, got['to_retry_update_s'])
        self.assertEqual(6.0, got['retry_s'])
        self.assertEqual((5, 1), (got['window_requests'],
                                  got['window_attempts']))
        self.assertEqual({'GET stack': 3, 'PATCH resources': 1,
                          'PATCH stack': 1},
                         got['window_kinds'])
        self.assertEqual(5.0, logs.per_attempt(got))

    def test_taskers_own_retry_ends_at_its_done_line(self):
        got = logs.measure(HEAT_API, '\n'.join([
            conductor(10.5, 'Stack update vnf-1 failed.'),
            conductor(12.5, 'Stack update vnf-1 done.')]))
        self.assertEqual(2.0, got['retry_s'])
        self.assertEqual(3, got['window_requests'])

    def test_no_failure_no_window(self):
        got = logs.measure(HEAT_API, conductor(1.0, 'Stack create done.'))
        self.assertIsNone(got['window_requests'])
        self.assertIsNone(logs.per_attempt(got))


class TestSummary(testtools.TestCase):

    def records(self):
        base = logs.measure(HEAT_API, CONDUCTOR)
        return [
            {**base, 'mode': 'tacker', 'pair': 0, 'passed': True,
             'seconds': 200.0, 'load1': 3.0, 'to_retry_update_s': 1.0},
            {**base, 'mode': 'ours', 'pair': 0, 'passed': True,
             'seconds': 180.0, 'load1': 4.0},
            {**base, 'mode': 'ours', 'pair': 1, 'passed': False,
             'seconds': 190.0, 'load1': 5.0}]

    def test_ratios_within_each_pair(self):
        [ratio] = logs.pair_ratios(self.records())
        self.assertEqual({'pair': 0, 'wall': 0.9, 'to_retry_update': 1.9,
                          'requests_per_attempt': 1.0}, ratio)

    def test_one_row_per_mode_with_the_spread(self):
        rows = logs.summary_rows(self.records(), ('tacker', 'ours', 'nfvo'))
        self.assertEqual(['tacker', 'ours'], [r[0] for r in rows])
        self.assertEqual(['1/2', '185 (180-190)'], rows[1][1:3])
