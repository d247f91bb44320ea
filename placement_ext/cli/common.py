"""What every ``placement-ext`` command shares.

* :class:`ClientManager`: the configuration, the RPC transport and the
  service API clients of one CLI run, each built on first use; with the
  embedded ``fake://`` transport it also runs the services in-process.
* :class:`Command`, :class:`ShowOne`, :class:`Lister`: cliff bases that
  print a :class:`~placement_ext.exception.PlacementExtError` (raised
  here or returned over RPC) as ``ERROR <code>: <detail>`` and exit 1
  (2 for invalid input), never with a traceback (unless ``--debug``).
* :class:`CallsServices`: ``--timeout`` for a command that calls the
  services; it bounds the whole command (every RPC call it makes).

Read-only commands (``READ_ONLY = True``) never create anything: with
the embedded services and a SQLite file that does not exist they fail
with NotFound instead of creating the directory and an empty database.
"""

import argparse
import contextlib
import functools
import time

import oslo_messaging
from cliff import command
from cliff import lister
from cliff import show
from oslo_config import cfg

from placement_ext import configuration
from placement_ext import context as pe_context
from placement_ext import embedded
from placement_ext import exception
from placement_ext import rpc
from placement_ext import rpc_client
from placement_ext.conductor import rpcapi as conductor_rpcapi
from placement_ext.db import api as db_api
from placement_ext.manager import rpcapi as manager_rpcapi

PROG = 'placement-ext'


class ClientManager:
    """Lazily built configuration and clients, shared by the commands.

    :param config_files: ``--config-file`` values; when empty,
        oslo.config's default search path for ``placement_ext.conf``.
    """

    def __init__(self, config_files: list[str] | None = None) -> None:
        self._config_files = list(config_files or [])
        self._resources = contextlib.ExitStack()
        # set by the command before its first call (see _ReportsErrors)
        self.read_only = False
        self.deadline: float | None = None
        self.allowed: float | None = None
        # the embedded conductor still runs an operation this command
        # stopped waiting for: the process ends without waiting for it
        self.abandoned = False

    def set_timeout(self, seconds: float | None) -> None:
        """Bound every RPC call from now on to ``seconds`` in all."""
        if seconds is None:
            return
        self.deadline = time.monotonic() + seconds
        self.allowed = seconds
        for name in ('conductor', 'manager'):
            if name in self.__dict__:  # already built
                self._bound(self.__dict__[name])

    def _bound(self, api: rpc_client.ServiceAPI) -> None:
        api.deadline, api.allowed = self.deadline, self.allowed

    @functools.cached_property
    def conf(self) -> cfg.ConfigOpts:
        return configuration.load_config(
            [], prog=PROG, default_config_files=self._config_files or None)

    @functools.cached_property
    def context(self) -> pe_context.RequestContext:
        """One request id for everything this CLI run asks."""
        return pe_context.get_admin_context(self.conf)

    @functools.cached_property
    def transport(self) -> oslo_messaging.Transport:
        """The RPC transport; with fake:// the services run in-process."""
        transport = rpc.get_transport(self.conf)
        self._resources.callback(transport.cleanup)
        if rpc.is_in_process(self.conf):
            if self.read_only:
                # the embedded services would create a missing database
                db_api.Database(self.conf, create=False).dispose()
            self._resources.enter_context(
                embedded.embedded_services(self.conf, transport))
        return transport

    @functools.cached_property
    def conductor(self) -> conductor_rpcapi.ConductorAPI:
        api = conductor_rpcapi.ConductorAPI(self.conf, self.transport)
        self._bound(api)
        return api

    @functools.cached_property
    def manager(self) -> manager_rpcapi.ManagerAPI:
        api = manager_rpcapi.ManagerAPI(self.conf, self.transport)
        self._bound(api)
        return api

    def close(self) -> None:
        """Stop embedded services and release the transport; not when
        :attr:`abandoned`, since stopping would wait for the operation
        (the process ends instead, see ``shell.main``)."""
        if not self.abandoned:
            self._resources.close()


def error_line(exc: exception.PlacementExtError) -> str:
    return f'ERROR {exc.code}: {exc.detail}'


def exit_status(exc: exception.PlacementExtError) -> int:
    return 2 if isinstance(exc, exception.InvalidInput) else 1


class _ReportsErrors:
    """Mixin for cliff commands: our errors become one line and a status."""

    # True for commands that only read: they must not create a database
    READ_ONLY = False

    def is_read_only(self, parsed_args: object) -> bool:
        """Whether this run only reads (``READ_ONLY`` by default)."""
        return self.READ_ONLY

    def run(self, parsed_args: object) -> int:
        self.app.clients.read_only = self.is_read_only(parsed_args)
        try:
            return super().run(parsed_args)
        except exception.PlacementExtError as exc:
            if self.app.options.debug:
                raise
            self.app.stderr.write(error_line(exc) + '\n')
            return exit_status(exc)


class Command(_ReportsErrors, command.Command):
    """A command that prints nothing on success."""


class ShowOne(_ReportsErrors, show.ShowOne):
    """A command that shows one item (``-f json|table|value|...``)."""


class Lister(_ReportsErrors, lister.Lister):
    """A command that shows a list (``-f json|table|value|csv|...``)."""


class CallsServices:
    """Mixin (before the cliff base) for a command that calls the
    services: ``--timeout`` bounds all its RPC calls together; by default
    each call waits ``rpc_response_timeout`` (longer for the calls that
    wait for Nova to delete servers, see ``manager/rpcapi.py``)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        add_timeout(parser, None, 'Longest wait for the services, in '
                                  'seconds, for the whole command '
                                  '(default: each call waits '
                                  'rpc_response_timeout).')
        return parser

    def run(self, parsed_args: argparse.Namespace) -> int:
        self.app.clients.set_timeout(parsed_args.timeout)
        return super().run(parsed_args)


def add_timeout(parser: argparse.ArgumentParser, default: float | None,
                help_text: str) -> None:
    """``--timeout SECONDS``: a positive number."""
    parser.add_argument('--timeout', type=positive_seconds, default=default,
                        metavar='SECONDS', help=help_text)


def positive_seconds(text: str) -> float:
    """argparse type: seconds, a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = float('nan')
    if not 0 < value < float('inf'):
        raise argparse.ArgumentTypeError(
            f'{text!r} is not a number of seconds above 0')
    return value
