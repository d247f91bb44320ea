"""``placement-ext lease create|show|list|delete|reconcile``: leases of
instance reservations (python-blazarclient's ``lease-*`` commands)."""

import argparse
import datetime

from placement_ext import exception
from placement_ext.cli import common
from placement_ext.cli import documents
from placement_ext.db import models
from placement_ext.schemas import reservation as schema

LIST_COLUMNS = ('id', 'name', 'project_id', 'start_date', 'end_date',
                'status')
FINDING_COLUMNS = ('kind', 'subject', 'detail', 'repair', 'repaired',
                   'error')
# blazarclient: the lease ends a day after its start unless told
DEFAULT_DURATION = datetime.timedelta(days=1)
DATE_FORMAT = '%Y-%m-%d %H:%M'


def _add_project(parser: argparse.ArgumentParser
                 ) -> argparse.ArgumentParser:
    parser.add_argument('--project-id', metavar='PROJECT',
                        help='Project owning the lease (admin); default: '
                             'every project.')
    return parser


def _lease_parser(parser: argparse.ArgumentParser
                  ) -> argparse.ArgumentParser:
    parser.add_argument('lease', metavar='LEASE', help='Id or name.')
    return _add_project(parser)


class Create(common.CallsServices, common.ShowOne):
    """Create a lease of instance reservations.

    Example: lease create l1 --start-date "2030-01-01 10:00" --end-date
    "2030-01-02 10:00" --reservation resource_type=virtual:instance,
    amount=6,vcpus=1,memory_mb=1024,disk_gb=1,affinity=None
    """

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='NAME')
        parser.add_argument('--start-date', default=schema.NOW,
                            metavar='DATE',
                            help='"YYYY-MM-DD HH:MM" in UTC, or "now" '
                                 '(default).')
        parser.add_argument('--end-date', metavar='DATE',
                            help='"YYYY-MM-DD HH:MM" in UTC (default: a day '
                                 'after the start).')
        parser.add_argument('--reservation', action='append', required=True,
                            metavar='KEY=VALUE,...',
                            help='resource_type=virtual:instance,amount=N,'
                                 'vcpus=N,memory_mb=N,disk_gb=N,affinity='
                                 'True|False|None (repeatable).')
        parser.add_argument('--project-id', metavar='PROJECT',
                            help='Project owning the lease and allowed to '
                                 'boot its flavor (default: the caller\'s).')
        parser.add_argument('--user-id', metavar='USER')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        body = {'name': parsed_args.name,
                'start_date': parsed_args.start_date,
                'end_date': parsed_args.end_date or _default_end(
                    parsed_args.start_date),
                'reservations': [schema.parse_reservation_string(text)
                                 for text in parsed_args.reservation]}
        lease = clients.manager.create_lease(
            clients.context, body, project_id=parsed_args.project_id,
            user_id=parsed_args.user_id)
        return documents.as_columns(lease)


def _default_end(start: str) -> str:
    begin = schema.parse_date(start, '--start-date', models.utcnow())
    try:
        return (begin + DEFAULT_DURATION).strftime(DATE_FORMAT)
    except OverflowError:
        raise exception.InvalidInput(
            field='--end-date',
            reason=f'--start-date {start} leaves no room for the default '
                   f'one-day lease before the year 10000; give --end-date')


class Show(common.CallsServices, common.ShowOne):
    """Show a lease: reservations (slots per host, class, flavor) and
    events."""

    READ_ONLY = True

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        return _lease_parser(super().get_parser(prog_name))

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        return documents.as_columns(clients.manager.get_lease(
            clients.context, parsed_args.lease,
            project_id=parsed_args.project_id))


class List(common.CallsServices, common.Lister):
    """List leases by start date."""

    READ_ONLY = True

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        return _add_project(super().get_parser(prog_name))

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        leases = clients.manager.list_leases(
            clients.context, project_id=parsed_args.project_id)
        return LIST_COLUMNS, [tuple(lease[c] for c in LIST_COLUMNS)
                              for lease in leases]


class Delete(common.CallsServices, common.Command):
    """Delete a lease: its servers, inventories, class and flavor go
    first."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        return _lease_parser(super().get_parser(prog_name))

    def take_action(self, parsed_args: argparse.Namespace) -> None:
        clients = self.app.clients
        clients.manager.delete_lease(clients.context, parsed_args.lease,
                                     project_id=parsed_args.project_id)


class Reconcile(common.CallsServices, common.Lister):
    """Report drift between the lease database and Placement / Nova;
    with --repair, repair it. Exits 1 when something is left."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('--repair', action='store_true',
                            help='Repair what is found (default: report).')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        report = clients.manager.reconcile(clients.context,
                                           repair=parsed_args.repair)
        rows = [tuple(f.get(c) for c in FINDING_COLUMNS)
                for f in report['findings']]
        left = [f for f in report['findings'] if not f.get('repaired')]
        if left:
            self.app.stderr.write(
                f'{len(left)} difference(s) '
                f'{"not repaired" if parsed_args.repair else "found"}\n')
            self._exit_status = 1
        return FINDING_COLUMNS, rows

    def is_read_only(self, parsed_args: argparse.Namespace) -> bool:
        return not parsed_args.repair

    def run(self, parsed_args: argparse.Namespace) -> int:
        self._exit_status = 0
        status = super().run(parsed_args)
        return status or self._exit_status
