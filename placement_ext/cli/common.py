"""What every ``placement-ext`` command shares.

* :class:`ClientManager`: the configuration, the RPC transport and the
  service API clients of one CLI run, each built on first use; with the
  embedded ``fake://`` transport it also runs the services in-process.
* :class:`Command`, :class:`ShowOne`, :class:`Lister`: cliff bases that
  print a :class:`~placement_ext.exception.PlacementExtError` (raised
  here or returned over RPC) as ``ERROR <code>: <detail>`` and exit 1
  (2 for invalid input), never with a traceback (unless ``--debug``).
"""

import contextlib
import functools

import oslo_messaging
from cliff import command
from cliff import lister
from cliff import show
from oslo_config import cfg

from placement_ext import context as pe_context
from placement_ext import embedded
from placement_ext import exception
from placement_ext import rpc
from placement_ext import service
from placement_ext.conductor import rpcapi as conductor_rpcapi
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

    @functools.cached_property
    def conf(self) -> cfg.ConfigOpts:
        return service.load_config(
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
            self._resources.enter_context(
                embedded.embedded_services(self.conf, transport))
        return transport

    @functools.cached_property
    def conductor(self) -> conductor_rpcapi.ConductorAPI:
        return conductor_rpcapi.ConductorAPI(self.conf, self.transport)

    @functools.cached_property
    def manager(self) -> manager_rpcapi.ManagerAPI:
        return manager_rpcapi.ManagerAPI(self.conf, self.transport)

    def close(self) -> None:
        """Stop embedded services and release the transport."""
        self._resources.close()


def error_line(exc: exception.PlacementExtError) -> str:
    return f'ERROR {exc.code}: {exc.detail}'


def exit_status(exc: exception.PlacementExtError) -> int:
    return 2 if isinstance(exc, exception.InvalidInput) else 1


class _ReportsErrors:
    """Mixin for cliff commands: our errors become one line and a status."""

    def run(self, parsed_args: object) -> int:
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
