"""``placement-ext``: the operator command line (cliff).

Commands are entry points in the ``placement_ext.cli`` namespace
(``setup.cfg``), one module per noun and one class per verb:
``grant_evaluate`` is typed ``placement-ext grant evaluate``.
"""

# first: installs the warning filters before anything imports oslo.messaging
import placement_ext.vocabulary.warning_filters  # noqa: F401  # isort: skip

import logging
import os
import sys

from cliff import app
from cliff import commandmanager
from oslo_config import cfg

from placement_ext import configuration
from placement_ext import exception
from placement_ext.cli import common

# loggers of the services run in-process with transport_url = fake://
_SERVICE_LOGGERS = ('placement_ext', 'oslo_messaging', 'alembic')


class PlacementExtApp(app.App):
    """The cliff application; commands reach shared state through it."""

    def __init__(self) -> None:
        super().__init__(
            description='Placement intelligence for OpenStack NFV and '
                        'reservation services.',
            version=configuration.version(),
            command_manager=commandmanager.CommandManager(
                'placement_ext.cli'),
            deferred_help=True)
        self.clients: common.ClientManager | None = None
        # the clients of a command that left an operation to the
        # embedded conductor (see main); kept, since dropping them would
        # stop the conductor, which waits for the operation
        self.abandoned: common.ClientManager | None = None

    def run(self, argv: list[str]) -> int:
        try:
            check_arguments(argv)
        except exception.InvalidInput as exc:
            self.stderr.write(common.error_line(exc) + '\n')
            return common.exit_status(exc)
        return super().run(argv)

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
        if self.clients.abandoned:
            self.abandoned = self.clients
        self.clients.close()
        self.clients = common.ClientManager(self.options.config_files)


def check_arguments(argv: list[str]) -> None:
    """Refuse an argument that is not valid text.

    Python decodes the command line with ``surrogateescape``: bytes that
    are not UTF-8 become lone surrogates, which no database, log or output
    format can encode. Refused here, once for every command.

    :raises InvalidInput: naming the option (or the argument's position).
    """
    for position, arg in enumerate(argv):
        bad = next((c for c in arg if '\ud800' <= c <= '\udfff'), None)
        if bad is None:
            continue
        previous = argv[position - 1] if position else ''
        field = previous if previous.startswith('-') and \
            not arg.startswith('-') else f'argument {position + 1}'
        if arg.startswith('--') and '=' in arg:  # --option=value
            field, arg = arg.split('=', 1)
        byte = ord(bad) - 0xdc00
        what = f'byte 0x{byte:02x}' if 0x80 <= byte <= 0xff else \
            f'{bad!a}'
        raise exception.InvalidInput(
            field=field,
            reason=f'is not valid UTF-8 text ({what} at position '
                   f'{arg.index(bad)})')


def main(argv: list[str] | None = None) -> int:
    app = PlacementExtApp()
    status = app.run(sys.argv[1:] if argv is None else argv)
    if app.abandoned is not None:
        # the embedded conductor still drives an operation; stopping it
        # would wait for the operation, which a restarted conductor
        # resumes from its records: end the process now
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status
