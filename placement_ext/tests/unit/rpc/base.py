"""Shared set-up of the RPC unit tests: a fresh conf, fake:// services."""

import contextlib
import logging
import os

import fixtures
import testtools

from placement_ext import configuration
from placement_ext import context as pe_context
from placement_ext import embedded


def make_conf(state_path: str):
    """A validated ConfigOpts that reads no file, state under a temp dir."""
    conf = configuration.load_config([], default_config_files=[])
    conf.set_override('state_path', state_path)
    return conf


def write_config(directory: str, text: str = '') -> str:
    """Write placement_ext.conf in ``directory`` (also its state_path)."""
    path = os.path.join(directory, 'placement_ext.conf')
    with open(path, 'w') as f:
        f.write(f'[DEFAULT]\nstate_path = {directory}\n{text}')
    return path


class KeepLogging(fixtures.Fixture):
    """Undo what cliff or oslo.log set-up do to the process's logging.

    :param names: loggers whose level is restored too.
    """

    def __init__(self, names=()):
        super().__init__()
        self.names = names

    def _setUp(self):
        root = logging.getLogger()
        self.addCleanup(setattr, root, 'handlers', list(root.handlers))
        self.addCleanup(root.setLevel, root.level)
        for name in self.names:
            logger = logging.getLogger(name)
            self.addCleanup(logger.setLevel, logger.level)


class EmbeddedServices(fixtures.Fixture):
    """Conductor and manager on fake://, in this process, for one test."""

    def __init__(self, conf):
        super().__init__()
        self.conf = conf

    def _setUp(self):
        stack = contextlib.ExitStack()
        self.addCleanup(stack.close)
        self.transport = stack.enter_context(
            embedded.embedded_services(self.conf, host='test-host'))


class TestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger())
        self.conf = make_conf(self.useFixture(fixtures.TempDir()).path)
        self.context = pe_context.get_admin_context()
