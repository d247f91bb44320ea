"""``placement-ext capacity host`` against the real Placement."""

import io
import json
import os

import fixtures

from placement_ext.cli import shell
from placement_ext.tests.functional.placement import base


class TestCapacityHost(base.PlacementServerTestCase):

    def setUp(self):
        super().setUp()
        self.conf_file = os.path.join(self.server.workdir, 'cli.conf')
        with open(self.conf_file, 'w', encoding='utf-8') as conf_file:
            conf_file.write(
                f'[DEFAULT]\nstate_path = {self.server.workdir}\n'
                f'[placement]\nauth_type = admin_token\n'
                f'endpoint = {self.server.endpoint}\ntoken = admin\n')
        self.stdout = self.useFixture(
            fixtures.MonkeyPatch('sys.stdout', io.StringIO())).new_value
        self.stderr = self.useFixture(
            fixtures.MonkeyPatch('sys.stderr', io.StringIO())).new_value

    def _run(self, *args):
        return shell.main(['--config-file', self.conf_file, 'capacity',
                           'host', *args, '-f', 'json'])

    def test_instances_that_fit_on_the_named_host(self):
        cn1 = base.create_provider(self.client, 'cn1')
        base.set_inventory(self.client, cn1, VCPU=4, MEMORY_MB=8192,
                           DISK_GB=100)
        base.create_provider(self.client, 'cn2')   # not asked about
        status = self._run('cn1', '--vcpus', '1', '--memory-mb', '3000')
        self.assertEqual(0, status, self.stderr.getvalue())
        self.assertEqual(
            {'host': 'cn1', 'provider_uuid': cn1, 'fits': 2,
             'resources': {'VCPU': 1, 'MEMORY_MB': 3000}},
            json.loads(self.stdout.getvalue()))

    def test_unknown_host_is_named(self):
        self.assertEqual(1, self._run('nope'))
        self.assertIn('compute node resource provider nope could not be '
                      'found', self.stderr.getvalue())
