"""Shared set-up of the CLI tests: the app run in-process, its output
captured, the process's logging restored afterwards."""

import io

import fixtures
import testtools

from placement_ext.cli import shell
from placement_ext.tests.unit.rpc import base as rpc_base


class CliTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(rpc_base.KeepLogging(shell._SERVICE_LOGGERS))
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.stdout = io.StringIO()
        self.stderr = io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', self.stdout))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', self.stderr))

    def _config(self, text: str = '') -> str:
        return rpc_base.write_config(self.tmp, text)

    def run_cli(self, *argv: str, config: str = '') -> int:
        """``placement-ext --config-file <ours> ARGV``; its exit status."""
        return shell.PlacementExtApp().run(
            ['--config-file', self._config(config), *argv])


class NoEmbeddedServices(fixtures.Fixture):
    """fake:// without the services the CLI would embed: every call goes
    unanswered, as with a stopped or killed service."""

    def _setUp(self):
        self.useFixture(fixtures.MonkeyPatch(
            'placement_ext.rpc.is_in_process', lambda conf: False))
