"""The operator CLI, run in-process on the embedded fake:// services."""

import json
import socket
import subprocess
import sys

from placement_ext import exception
from placement_ext.cli import common
from placement_ext.cli import shell
from placement_ext.conductor import manager as conductor_manager
from placement_ext.manager import manager as reservation_manager
from placement_ext.tests.unit.cli import base as cli_base

ENDPOINTS = {'conductor': conductor_manager.ConductorManager,
             'manager': reservation_manager.ReservationManager}

class Echo(common.ShowOne):
    """Test command: calls the conductor's echo with the given repeat."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--repeat', type=int, default=1)
        return parser

    def take_action(self, parsed_args):
        clients = self.app.clients
        answer = clients.conductor.echo(clients.context, 'hi',
                                        repeat=parsed_args.repeat)
        return ('echo',), (answer['echo'],)


class Missing(common.Command):
    """Test command: fails as a lookup of an unknown lease would."""

    def take_action(self, parsed_args):
        raise exception.NotFound(kind='Lease', id='l1')


class TestShell(cli_base.CliTestCase):

    def _run_app(self, argv):
        app = shell.PlacementExtApp()
        app.command_manager.add_command('test echo', Echo)
        app.command_manager.add_command('test missing', Missing)
        return app.run(['--config-file', self._config()] + argv)

    def test_status_json_on_embedded_services(self):
        config = self._config()
        # status only reads: the database must exist (db sync)
        # in another process: alembic's logging set-up would change ours
        subprocess.run([sys.executable, '-c', 'from placement_ext.cmd import '
                        'manage; manage.main()', '--config-file', config,
                        'db', 'sync'], check=True, capture_output=True)
        status = shell.main(['--config-file', config,
                             'status', '-f', 'json'])

        self.assertEqual(0, status, self.stderr.getvalue())
        rows = json.loads(self.stdout.getvalue())
        self.assertEqual(['conductor', 'manager'],
                         [row['Service'] for row in rows])
        for row in rows:
            self.assertEqual(('up', socket.gethostname(),
                              ENDPOINTS[row['Service']].target.version, ''),
                             (row['Status'], row['Host'], row['Version'],
                              row['Detail']))
            self.assertTrue(row['Request ID'].startswith('req-'))
        # one CLI run, one request id, seen by both services
        self.assertEqual(rows[0]['Request ID'], rows[1]['Request ID'])
        self.assertEqual('', self.stderr.getvalue())

    def test_bad_config_is_one_error_line(self):
        path = self._config('[v2_vnfm]\nplacement_az_resource_error = [\n')

        status = shell.main(['--config-file', path, 'status', '-f', 'json'])

        self.assertEqual(2, status)
        self.assertEqual('', self.stdout.getvalue())
        lines = self.stderr.getvalue().splitlines()
        self.assertEqual(1, len(lines), lines)
        self.assertTrue(lines[0].startswith(
            'ERROR placement_ext.input.invalid: Invalid [v2_vnfm] '
            'placement_az_resource_error: '), lines[0])

    def test_remote_invalid_input_exits_2_without_traceback(self):
        status = self._run_app(['test', 'echo', '--repeat', '0'])

        self.assertEqual(2, status)
        self.assertEqual(
            'ERROR placement_ext.input.invalid: Invalid repeat: 0 is less '
            'than the minimum of 1\n', self.stderr.getvalue())

    def test_good_call_through_the_same_helpers(self):
        status = self._run_app(['test', 'echo', '--repeat', '2', '-f',
                                'json'])

        self.assertEqual(0, status, self.stderr.getvalue())
        self.assertEqual({'echo': ['hi', 'hi']},
                         json.loads(self.stdout.getvalue()))

    def test_other_errors_exit_1(self):
        status = self._run_app(['test', 'missing'])

        self.assertEqual(1, status)
        self.assertEqual(
            'ERROR placement_ext.resource.not_found: Lease l1 could not be '
            'found.\n', self.stderr.getvalue())

    def test_conf_is_built_once_and_shared(self):
        app = shell.PlacementExtApp()
        app.run(['--config-file', self._config(), 'help', 'status'])

        self.assertIs(app.conf, app.conf)
        self.assertEqual(self.tmp, app.conf.state_path)
