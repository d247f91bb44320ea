"""``placement-ext host create|delete|list|show``: reservable compute hosts
(python-blazarclient's ``host-create`` ... ``host-show``)."""

import argparse

from placement_ext.cli import common
from placement_ext.cli import documents

LIST_COLUMNS = ('id', 'hypervisor_hostname', 'availability_zone', 'vcpus',
                'memory_mb', 'local_gb', 'reservable')


def _host_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument('host', metavar='HOST',
                        help='Host id or hypervisor hostname.')
    return parser


class Create(common.CallsServices, common.ShowOne):
    """Enrol a compute host: record it, create its reservation provider
    (blazar_<hypervisor hostname>) and add it to the free pool."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='NAME',
                            help='Hypervisor hostname (or compute service '
                                 'host with a single node).')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        return documents.as_columns(
            clients.manager.create_host(clients.context, parsed_args.name))


class Show(common.CallsServices, common.ShowOne):
    """Show an enrolled host."""

    READ_ONLY = True

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        return _host_parser(super().get_parser(prog_name))

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        return documents.as_columns(
            clients.manager.get_host(clients.context, parsed_args.host))


class List(common.CallsServices, common.Lister):
    """List enrolled hosts."""

    READ_ONLY = True

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        hosts = clients.manager.list_hosts(clients.context)
        return LIST_COLUMNS, [tuple(h[c] for c in LIST_COLUMNS)
                              for h in hosts]


class Delete(common.CallsServices, common.Command):
    """Delete a host: refused while reservations hold slots on it or
    reserved instances run on it."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        return _host_parser(super().get_parser(prog_name))

    def take_action(self, parsed_args: argparse.Namespace) -> None:
        clients = self.app.clients
        clients.manager.delete_host(clients.context, parsed_args.host)
