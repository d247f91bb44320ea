"""Hostile command lines: undecodable arguments, read-only commands on a
mistyped database path, and ``--timeout`` bounding a whole command.

Before: ``grant request --vnf-instance $'v\\xed\\xa0\\x80'`` died with a
codec error and ``grant evaluate`` printed the escaped surrogates;
``operation list``, ``host list`` and ``status`` created the directory and
database of a mistyped SQLite path; ``host create`` waited 900 s for a
stopped manager whatever ``rpc_response_timeout`` said, and had no
``--timeout``.
"""

import json
import os
import socket
import subprocess
import sys

import testscenarios

from placement_ext import exception
from placement_ext.cli import common
from placement_ext.tests.unit.cli import base
from placement_ext.tests.unit.cli import test_operation

load_tests = testscenarios.load_tests_apply_scenarios

# what Python makes of the bytes v\xed\xa0\x80 on the command line
UNDECODABLE = os.fsdecode(b'v\xed\xa0\x80')


class TestUndecodableArguments(base.CliTestCase):

    scenarios = [
        ('grant_request', {'argv': ['grant', 'request', '--vnf-instance',
                                    UNDECODABLE],
                           'field': '--vnf-instance'}),
        ('grant_evaluate', {'argv': ['grant', 'evaluate',
                                     f'--grant-id={UNDECODABLE}'],
                            'field': '--grant-id'}),
        ('positional', {'argv': ['host', 'show', UNDECODABLE],
                        'field': 'argument 5'}),
        ('command_name', {'argv': [UNDECODABLE], 'field': 'argument 3'}),
    ]

    def test_refused_with_exit_2_naming_the_option(self):
        self.assertEqual(2, self.run_cli(*self.argv))
        self.assertEqual(
            f'ERROR placement_ext.input.invalid: Invalid {self.field}: is '
            f'not valid UTF-8 text (byte 0xed at position 1)\n',
            self.stderr.getvalue())
        self.assertEqual('', self.stdout.getvalue())


class TestReadOnlyCommandsCreateNothing(base.CliTestCase):

    scenarios = [(' '.join(argv), {'argv': argv}) for argv in (
        ['operation', 'list'], ['operation', 'show', 'x' * 36],
        ['host', 'list'], ['host', 'show', 'h'], ['lease', 'list'],
        ['lease', 'show', 'l'], ['lease', 'reconcile'], ['status'])]

    def test_mistyped_sqlite_path(self):
        path = os.path.join(self.tmp, 'typo', 'pe.sqlite')
        status = self.run_cli(*self.argv, config=f'[database]\n'
                              f'connection = sqlite:///{path}\n')
        self.assertEqual(1, status)
        self.assertIn(f'ERROR placement_ext.resource.not_found: SQLite '
                      f'database {path} could not be found',
                      self.stderr.getvalue())
        self.assertFalse(os.path.exists(os.path.dirname(path)))


class StoppedManager(base.CliTestCase):
    """A manager that never answers: a broker nobody serves. The fake://
    transport only reaches in-process servers, so the embedded services
    are replaced by none."""

    def setUp(self):
        super().setUp()
        self.useFixture(base.NoEmbeddedServices())


class TestTimeouts(StoppedManager):

    def _host_create(self, *extra: str, config: str = '') -> str:
        self.assertEqual(1, self.run_cli('host', 'create', 'c1', *extra,
                                         config=config))
        return self.stderr.getvalue()

    def test_host_create_honours_rpc_response_timeout(self):
        error = self._host_create(config='[DEFAULT]\n'
                                         'rpc_response_timeout = 1\n')
        self.assertIn('ERROR placement_ext.service.unavailable: manager is '
                      'unavailable: no reply to create_host on topic '
                      'placement_ext_manager within 1 s', error)

    def test_host_create_timeout_option(self):
        error = self._host_create('--timeout', '0.5')
        # on a loaded machine the 0.5 s can run out during start-up,
        # before the call is sent: either way the option bounded it
        self.assertRegex(error, 'no reply to create_host on topic '
                         r'\S+ within 0\.5 s|the time allowed ran out '
                         'before create_host could be sent')

    def test_timeout_must_be_positive(self):
        for bad in ('0', '-1', 'nan', 'inf', 'x'):
            self.stderr.truncate(0)
            exc = self.assertRaises(SystemExit, self.run_cli, 'host',
                                    'list', '--timeout', bad)
            self.assertEqual(2, exc.code)
            self.assertIn(f"argument --timeout: {bad!r} is not a number of "
                          f"seconds above 0", self.stderr.getvalue())


class TestDeadline(base.CliTestCase):

    def test_a_call_after_the_deadline_is_not_sent(self):
        clients = common.ClientManager([self._config()])
        self.addCleanup(clients.close)
        clients.set_timeout(1e-9)
        exc = self.assertRaises(exception.ServiceUnavailable,
                                clients.conductor.get_operation,
                                clients.context, 'x' * 36)
        self.assertIn('the time allowed ran out before get_operation',
                      exc.detail)


class TestStartTimeoutWithEmbeddedConductor(base.CliTestCase):
    """``operation start --timeout 1`` returned after 34 s: the embedded
    conductor, stopping with the command, waited for the operation (here
    for a Keystone that accepts connections and never answers, which
    keeps the operation running for minutes)."""

    def test_the_command_ends_at_its_timeout(self):
        hole = socket.socket()
        self.addCleanup(hole.close)
        hole.bind(('127.0.0.1', 0))
        hole.listen(16)  # never accepts: every request hangs
        config = self._config(test_operation.DEAD_KEYSTONE.replace(
            '127.0.0.1:9', f'127.0.0.1:{hole.getsockname()[1]}'))
        path = os.path.join(self.tmp, 'request.json')
        with open(path, 'w') as f:
            json.dump(test_operation.request('INSTANTIATE'), f)
        done = subprocess.run(
            [sys.executable, '-c', 'from placement_ext.cli import shell; '
             'shell.main()', '--config-file', config, 'operation', 'start',
             '--request', path, '--timeout', '2', '-f', 'value', '-c',
             'state'], capture_output=True, text=True, timeout=50)
        self.assertEqual(3, done.returncode, done.stderr)
        self.assertIn(done.stdout.strip(), ('STARTING', 'PROCESSING'))
        self.assertIn('after --timeout 2 s; the conductor of this command '
                      'stops with it', done.stderr)
