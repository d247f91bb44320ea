"""The service entry points refuse a bad configuration in one line."""

import io
import os
import sys

import fixtures
import testtools

from placement_ext.cmd import conductor as conductor_cmd
from placement_ext.cmd import manager as manager_cmd
from placement_ext.tests.unit.rpc import base


class TestBadConfiguration(testtools.TestCase):

    def setUp(self):
        super().setUp()
        # run_service sets up oslo.log for the whole process: its root
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

    def test_unknown_transport(self):
        path = self._config('transport_url = carrier-pigeon://loft\n')

        self.assertEqual(1, conductor_cmd.main(['--config-file', path]))

        self.assertIn('placement-ext-conductor: Invalid transport_url: ',
                      self.stderr.getvalue())
        self.assertNotIn('Traceback', self.stderr.getvalue())

    def test_log_file_that_cannot_be_opened(self):
        path = self._config()
        log_file = os.path.join(self.tmp, 'no', 'such', 'dir', 'x.log')

        self.assertEqual(1, manager_cmd.main(['--config-file', path,
                                              '--log-file', log_file]))

        self.assertIn('placement-ext-manager: cannot open the log file: ',
                      self.stderr.getvalue())
