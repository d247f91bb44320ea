"""``placement-ext host create`` with Keystone unreachable: one error
line, no "Exception during message handling" traceback from the
in-process manager (the keystoneauth error used to escape the Nova
driver unmapped)."""

import logging

import fixtures

from placement_ext.tests.unit.cli import base
from placement_ext.tests.unit.cli import test_operation


class TestCreateWithKeystoneDown(base.CliTestCase):

    def test_one_error_line_and_no_traceback(self):
        logs = self.useFixture(fixtures.FakeLogger(level=logging.INFO))
        dead = test_operation.DEAD_KEYSTONE.replace('[heat]', '[nova]')
        status = self.run_cli('host', 'create', 'compute-1', config=dead)
        self.assertEqual(1, status)
        self.assertIn('ERROR placement_ext.service.unavailable: Nova is '
                      'unavailable: search hypervisors:',
                      self.stderr.getvalue())
        self.assertNotIn('Traceback', self.stderr.getvalue())
        self.assertNotIn('Exception during message handling', logs.output)
