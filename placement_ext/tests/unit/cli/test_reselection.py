"""``placement-ext reselection plan``: documents in and out, exit status."""

import io
import json
import os
import subprocess
import sys

import fixtures
import testtools

from placement_ext.cli import reselection
from placement_ext.cli import shell
from placement_ext.tests.unit.rpc import base

ANTI = 'ANTI_AFFINITY'


def ref(name):
    return {'idType': 'GRANT', 'resourceId': name}


def constraint(kind, *names):
    return {'affinityOrAntiAffinity': kind, 'scope': 'ZONE',
            'resource': [ref(n) for n in names], 'fallbackBestEffort': True}


# The spec's instantiate table, first row.
INSTANTIATE = {
    'zones': ['AZ-1', 'AZ-2', 'AZ-3', 'AZ-4', 'AZ-5'],
    'placement': {'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1', 'VDU2-0': 'AZ-2',
                  'VDU2-1': 'AZ-3'},
    'targets': ['VDU1-0', 'VDU1-1', 'VDU2-0', 'VDU2-1'],
    'constraints': [constraint('AFFINITY', 'VDU1-0', 'VDU1-1'),
                    constraint(ANTI, 'VDU2-0', 'VDU2-1'),
                    constraint(ANTI, 'VDU1-0', 'VDU2-0', 'VDU2-1'),
                    constraint(ANTI, 'VDU1-1', 'VDU2-0', 'VDU2-1')],
    'failed': {'VDU1-0': ['AZ-1']},
    'capacity': {'AZ-4': 3, 'AZ-5': 1},
}

# The spec's scale-out anti-affinity table: no zone free of peers.
SCALE_OUT_ANTI = {
    'zones': ['AZ-1', 'AZ-2', 'AZ-3', 'AZ-4', 'AZ-5'],
    'placement': {'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-2', 'VDU2-1': 'AZ-3',
                  'VDU2-2': 'AZ-4', 'VDU2-3': 'AZ-5'},
    'targets': ['VDU2-2', 'VDU2-3'],
    'constraints': [constraint(ANTI, 'VDU1-0', 'VDU2-0', 'VDU2-1', 'VDU2-2',
                               'VDU2-3')],
    'failed': {'VDU2-3': ['AZ-5']},
    'capacity': {'AZ-2': 5},
}


class CliTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(base.KeepLogging(['placement_ext', 'oslo_messaging']))
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.stdout = io.StringIO()
        self.stderr = io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', self.stdout))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', self.stderr))

    def write(self, name, document):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as stream:
            if isinstance(document, str):
                stream.write(document)
            else:
                json.dump(document, stream)
        return path

    def run_cli(self, *argv):
        status = shell.main(list(argv))
        return status, self.stdout.getvalue(), self.stderr.getvalue()


class TestPlan(CliTestCase):

    def plan(self, document, *options):
        path = self.write('input.json', document)
        return self.run_cli('reselection', 'plan', '--input', path,
                            '-f', 'json', *options)

    def test_prints_exactly_the_output_document(self):
        status, out, err = self.plan(INSTANTIATE)
        self.assertEqual((0, ''), (status, err))
        self.assertEqual({
            'placement': {'VDU1-0': 'AZ-4', 'VDU1-1': 'AZ-4',
                          'VDU2-0': 'AZ-2', 'VDU2-1': 'AZ-3'},
            'moved': {'VDU1-0': ['AZ-1', 'AZ-4'],
                      'VDU1-1': ['AZ-1', 'AZ-4']},
            'broken': [],
            'exhausted': False}, json.loads(out))

    def test_broken_anti_affinity_is_reported(self):
        status, out, _ = self.plan(SCALE_OUT_ANTI)
        self.assertEqual(0, status)
        result = json.loads(out)
        self.assertEqual({'VDU2-3': ['AZ-5', 'AZ-2']}, result['moved'])
        self.assertEqual(SCALE_OUT_ANTI['constraints'], result['broken'])

    def test_random_strategy_with_a_seed_repeats(self):
        outputs = set()
        for _ in range(2):
            self.stdout.seek(0)
            self.stdout.truncate()
            status, out, _ = self.plan(INSTANTIATE, '--strategy', 'random',
                                       '--seed', '7')
            self.assertEqual(0, status)
            outputs.add(out)
        self.assertEqual(1, len(outputs))
        zone = json.loads(outputs.pop())['placement']['VDU1-0']
        self.assertIn(zone, ('AZ-4', 'AZ-5'))

    def test_exhausted_is_an_answer(self):
        document = dict(INSTANTIATE, failed={'VDU1-0': INSTANTIATE['zones']})
        status, out, err = self.plan(document)
        self.assertEqual((0, ''), (status, err))
        self.assertEqual({'placement': INSTANTIATE['placement'], 'moved': {},
                          'broken': [], 'exhausted': True}, json.loads(out))

    def test_explain_adds_reasons(self):
        status, out, _ = self.plan(INSTANTIATE, '--explain')
        reasons = json.loads(out)['reasons']
        self.assertIn('VDU1-0, VDU1-1 move together (affinity)', reasons)

    def test_bad_input_exits_2_naming_the_field(self):
        document = json.loads(json.dumps(INSTANTIATE))
        document['constraints'][1]['scope'] = 'RACK'
        status, out, err = self.plan(document)
        self.assertEqual((2, ''), (status, out))
        self.assertEqual(
            "ERROR placement_ext.input.invalid: Invalid constraints[1].scope:"
            " 'RACK' is not one of: NFVI_POP, ZONE, ZONE_GROUP, NFVI_NODE, "
            "CIS_NODE\n", err)

    def test_unknown_vnfc_exits_2(self):
        document = dict(INSTANTIATE, targets=['VDU1-0', 'VDU9-0'])
        status, _, err = self.plan(document)
        self.assertEqual(2, status)
        self.assertIn("Invalid targets[1]: 'VDU9-0' is not in placement", err)

    def test_not_json_or_missing_file(self):
        status, _, err = self.plan('{"zones": ')
        self.assertEqual(2, status)
        self.assertIn('Invalid --input: ', err)
        self.assertIn('is not JSON', err)
        status, _, err = self.run_cli('reselection', 'plan', '--input',
                                      os.path.join(self.tmp, 'none.json'))
        self.assertEqual(2, status)

    def test_table_format_shows_nested_json(self):
        path = self.write('input.json', INSTANTIATE)
        status, out, _ = self.run_cli('reselection', 'plan', '--input', path)
        self.assertEqual(0, status)
        self.assertIn('"VDU1-0": ["AZ-1", "AZ-4"]', out)

    def test_stdin(self):
        self.useFixture(fixtures.MonkeyPatch(
            'sys.stdin', io.StringIO(json.dumps(INSTANTIATE))))
        status, out, _ = self.run_cli('reselection', 'plan', '--input', '-',
                                      '-f', 'json')
        self.assertEqual(0, status)
        self.assertFalse(json.loads(out)['exhausted'])

    def test_registered_entry_point(self):
        app = shell.PlacementExtApp()
        command, _, _ = app.command_manager.find_command(
            ['reselection', 'plan'])
        self.assertIs(reselection.Plan, command)


class TestInstalledScript(CliTestCase):
    """The console script, as an operator runs it."""

    def test_subprocess(self):
        script = os.path.join(os.path.dirname(sys.executable),
                              'placement-ext')
        if not os.path.exists(script):
            self.skipTest(f'{script} is not installed')
        path = self.write('input.json', INSTANTIATE)
        done = subprocess.run(
            [script, 'reselection', 'plan', '--input', path, '-f', 'json'],
            capture_output=True, text=True, timeout=120, check=False)
        self.assertEqual(0, done.returncode, done.stderr)
        placement = json.loads(done.stdout)['placement']
        self.assertEqual('AZ-4', placement['VDU1-0'])
        bad = self.write('bad.json', {'zones': []})
        done = subprocess.run(
            [script, 'reselection', 'plan', '--input', bad],
            capture_output=True, text=True, timeout=120, check=False)
        self.assertEqual((2, 'ERROR placement_ext.input.invalid: Invalid '
                             'placement: is required\n'),
                         (done.returncode, done.stderr))
