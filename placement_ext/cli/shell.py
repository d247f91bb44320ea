"""``placement-ext``: the operator command line (cliff).

Commands are entry points in the ``placement_ext.cli`` namespace
(``setup.cfg``), one module per noun and one class per verb:
``grant_evaluate`` is typed ``placement-ext grant evaluate``.
"""

# first: installs the warning filters before anything imports oslo.messaging
import placement_ext.cmd  # noqa: F401  # isort: skip

import logging
import sys

from cliff import app
from cliff import commandmanager
from oslo_config import cfg

from placement_ext import service
from placement_ext.cli import common

# loggers of the services run in-process with transport_url = fake://
_SERVICE_LOGGERS = ('placement_ext', 'oslo_messaging', 'alembic')


class PlacementExtApp(app.App):
    """The cliff application; commands reach shared state through it."""

    def __init__(self) -> None:
        super().__init__(
            description='Placement intelligence for OpenStack NFV and '
                        'reservation services.',
            version=service.version(),
            command_manager=commandmanager.CommandManager(
                'placement_ext.cli'),
            deferred_help=True)
        self.clients: common.ClientManager | None = None

    def build_option_parser(self, description: str | None,
                            version: str | None,
                            argparse_kwargs: dict | None = None) -> object:
        parser = super().build_option_parser(description, version,
                                             argparse_kwargs)
        parser.add_argument(
            '--config-file', dest='config_files', action='append',
            default=[], metavar='PATH',
            help='Configuration file; repeat to layer files, later ones '
                 'win. Default: placement_ext.conf on oslo.config\'s '
                 'search path (~/.placement_ext/, /etc/placement_ext/, '
                 '...).')
        return parser

    def configure_logging(self) -> None:
        super().configure_logging()
        # cliff shows INFO by default; the services a command embeds log
        # each start, stop and call at INFO, which only -v should show
        if self.options.verbose_level <= 1:
            for name in _SERVICE_LOGGERS:
                logging.getLogger(name).setLevel(logging.WARNING)

    def initialize_app(self, argv: list[str]) -> None:
        self.clients = common.ClientManager(self.options.config_files)

    @property
    def conf(self) -> cfg.ConfigOpts:
        """The configuration, read on first use."""
        return self.clients.conf

    def clean_up(self, cmd: object, result: int,
                 err: BaseException | None) -> None:
        # a fresh manager for the next command of an interactive session
        self.clients.close()
        self.clients = common.ClientManager(self.options.config_files)


def main(argv: list[str] | None = None) -> int:
    return PlacementExtApp().run(sys.argv[1:] if argv is None else argv)
