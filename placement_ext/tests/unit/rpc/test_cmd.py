"""The service entry points refuse a bad configuration in one line."""

import io
import os
import socket
import sys

import fixtures
import testtools

from placement_ext.cmd import conductor as conductor_cmd
from placement_ext.cmd import manager as manager_cmd
from placement_ext.tests.unit.rpc import base


class TestBadConfiguration(testtools.TestCase):

    def setUp(self):
        super().setUp()
        # rpc_service.main sets up oslo.log for the whole process: its root
        # handlers (to stdout without a log file) and its excepthook
        self.useFixture(base.KeepLogging(['placement_ext']))
        self.useFixture(fixtures.MonkeyPatch('sys.excepthook',
                                             sys.excepthook))
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', io.StringIO()))
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.stderr = io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', self.stderr))

    def _config(self, text=''):
        return base.write_config(self.tmp, text)

    def test_bad_regex_stops_each_service_at_start(self):
        path = self._config('[v2_vnfm]\nplacement_az_resource_error = (\n')
        for prog, main in (('placement-ext-conductor', conductor_cmd.main),
                           ('placement-ext-manager', manager_cmd.main)):
            self.stderr.seek(0)
            self.stderr.truncate()

            self.assertEqual(1, main(['--config-file', path]))

            lines = self.stderr.getvalue().splitlines()
            self.assertEqual(1, len(lines), lines)
            self.assertTrue(lines[0].startswith(
                f'{prog}: Invalid [v2_vnfm] placement_az_resource_error: '
                f'not a valid regular expression'), lines[0])
            self.assertIn(path, lines[0])

    def test_pattern_matching_every_text_is_refused(self):
        # empty made every Heat failure a capacity failure
        for value in ('', '.*', 'x?'):
            self.stderr.seek(0)
            self.stderr.truncate()
            path = self._config(
                f'[v2_vnfm]\nplacement_az_resource_error = {value}\n')

            self.assertEqual(1, conductor_cmd.main(['--config-file', path]))

            self.assertIn('Invalid [v2_vnfm] placement_az_resource_error: ',
                          self.stderr.getvalue())
            self.assertIn('matches every text', self.stderr.getvalue())

    def test_bad_integer_names_its_group(self):
        path = self._config('[manager]\nevent_interval = soon\n')

        self.assertEqual(1, manager_cmd.main(['--config-file', path]))

        self.assertIn('Invalid [manager] event_interval: ',
                      self.stderr.getvalue())

    def test_missing_config_file(self):
        missing = os.path.join(self.tmp, 'nowhere.conf')

        self.assertEqual(1, conductor_cmd.main(['--config-file', missing]))

        self.assertEqual(
            'placement-ext-conductor: Invalid configuration: Failed to find '
            f'some config files: {missing}\n', self.stderr.getvalue())

    def test_unreadable_config_file_is_named_in_one_line(self):
        latin1 = os.path.join(self.tmp, 'latin1.conf')
        with open(latin1, 'wb') as f:
            f.write(b'[DEFAULT]\nhost = caf\xe9\n')
        for path, reason in ((latin1, 'not UTF-8 text'),
                             (self.tmp, 'Is a directory')):
            self.stderr.seek(0)
            self.stderr.truncate()

            self.assertEqual(1, conductor_cmd.main(['--config-file', path]))

            self.assertEqual(
                f'placement-ext-conductor: Invalid --config-file: {path}: ',
                self.stderr.getvalue()[:len(path) + 50])
            self.assertIn(reason, self.stderr.getvalue())
            self.assertEqual(1, len(self.stderr.getvalue().splitlines()))

    def test_non_utf8_file_of_a_config_dir_is_named(self):
        directory = os.path.join(self.tmp, 'conf.d')
        os.mkdir(directory)
        bad = os.path.join(directory, '50-latin1.conf')
        with open(bad, 'wb') as f:
            f.write(b'[DEFAULT]\nhost = caf\xe9\n')

        self.assertEqual(1, conductor_cmd.main(
            ['--config-file', self._config(), f'--config-dir={directory}']))

        self.assertEqual(
            f'placement-ext-conductor: Invalid --config-dir: {bad}: not '
            f'UTF-8 text (invalid continuation byte at byte 20)\n',
            self.stderr.getvalue())

    def test_unknown_transport(self):
        path = self._config('transport_url = carrier-pigeon://loft\n')

        self.assertEqual(1, conductor_cmd.main(['--config-file', path]))

        self.assertIn('placement-ext-conductor: Invalid transport_url: ',
                      self.stderr.getvalue())
        self.assertNotIn('Traceback', self.stderr.getvalue())

    def test_unreachable_broker_gives_up_after_the_bounded_wait(self):
        # was: oslo.messaging's reconnect loop, for ever
        port = _closed_port()
        path = self._config(
            f'transport_url = rabbit://guest:guest@127.0.0.1:{port}/\n'
            f'broker_wait_timeout = 1\n')
        log_file = os.path.join(self.tmp, 'conductor.log')

        self.assertEqual(1, conductor_cmd.main(['--config-file', path,
                                                '--log-file', log_file]))

        self.assertEqual(
            'placement-ext-conductor: could not start: message broker is '
            f'unavailable: 127.0.0.1:{port} did not accept a connection '
            'within 1 s ([Errno 111] Connection refused)\n',
            self.stderr.getvalue())

    def test_log_file_is_created_private(self):
        # the log holds request ids and operation parameters
        path = self._config('transport_url = rabbit://guest:guest@'
                            f'127.0.0.1:{_closed_port()}/\n'
                            'broker_wait_timeout = 0\n')
        log_file = os.path.join(self.tmp, 'private.log')
        conductor_cmd.main(['--config-file', path, '--log-file', log_file])
        self.assertEqual(0o600, os.stat(log_file).st_mode & 0o777)

    def test_log_file_that_cannot_be_opened(self):
        path = self._config()
        log_file = os.path.join(self.tmp, 'no', 'such', 'dir', 'x.log')

        self.assertEqual(1, manager_cmd.main(['--config-file', path,
                                              '--log-file', log_file]))

        self.assertIn('placement-ext-manager: cannot open the log file: ',
                      self.stderr.getvalue())


def _closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]
