"""``placement-ext operation start|show|list|retry``: lifecycle operations
(instantiate, heal, scale out) run by the conductor, with their zone
attempts."""

import argparse
import time

from placement_ext import exception
from placement_ext import polling
from placement_ext import rpc
from placement_ext.cli import common
from placement_ext.cli import documents
from placement_ext.objects import operation as op_obj
from placement_ext.vocabulary import states

POLL_SECONDS = 2.0
LIST_COLUMNS = ('id', 'operation', 'vnf_instance_id', 'state',
                'state_entered_at', 'owner')


def _with_summary(op: dict) -> dict:
    """The operation, plus the constraints its last placement broke."""
    last = op['attempts'][-1]['decision'] if op.get('attempts') else {}
    return dict(op, broken_constraints=last.get('broken', []))


class Start(common.ShowOne):
    """Start a lifecycle operation from a request file (JSON).

    The request names the operation (INSTANTIATE, SCALE, HEAL), the Heat
    stack and template, the starting ``placement`` (VNFC -> zone), the
    ``targets`` the operation may move and the placement constraints; see
    ``placement_ext/schemas/operation.py``. By default the command waits
    until the operation ends (always with the embedded fake:// transport,
    whose conductor lives in this command). ``--timeout`` bounds the
    whole command, RPC calls included; with the embedded conductor an
    operation still running then is left PROCESSING, and the next
    conductor to start resumes it.
    """

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('--request', required=True, metavar='FILE',
                            help='Operation request, JSON (- for stdin).')
        parser.add_argument('--no-wait', action='store_true',
                            help='Return once the operation is recorded.')
        common.add_timeout(parser, 3600, 'Longest run of the command, '
                                         'waiting for the end included '
                                         '(default 3600).')
        return parser

    # exit statuses besides 0 (COMPLETED, or recorded with --no-wait)
    EXIT_FAILED = 1        # FAILED_TEMP or FAILED: see its error
    EXIT_STILL_RUNNING = 3  # --timeout expired; the operation goes on

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        clients.set_timeout(parsed_args.timeout)
        request = documents.load_json(parsed_args.request, '--request')
        op = clients.conductor.start_operation(clients.context, request)
        return self._shown(op, parsed_args)

    def _shown(self, op: dict, parsed_args: argparse.Namespace) -> tuple:
        """Wait for the end (unless --no-wait) and show the operation."""
        clients = self.app.clients
        self._ended_state = None
        if not parsed_args.no_wait or rpc.is_in_process(clients.conf):
            op = wait_for_end(clients, op)
            self._ended_state = op['state']
        return documents.as_columns(_with_summary(op))

    def run(self, parsed_args: argparse.Namespace) -> int:
        """The operation is shown in every case; the status says how it
        ended, so scripts need not parse the output."""
        status = super().run(parsed_args)
        state = getattr(self, '_ended_state', None)
        if status or state is None or state == states.STATE_COMPLETED:
            return status
        if state in op_obj.RUNNABLE_STATES:
            self.app.stderr.write(
                f'operation still {state} after --timeout '
                f'{parsed_args.timeout:g} s; {self._goes_on()}\n')
            return self.EXIT_STILL_RUNNING
        self.app.stderr.write(f'operation ended {state}\n')
        return self.EXIT_FAILED


    def _goes_on(self) -> str:
        clients = self.app.clients
        if not rpc.is_in_process(clients.conf):
            return 'it goes on: follow it with "operation show"'
        # stopping the embedded conductor would wait for the operation
        clients.abandoned = True
        return ('the conductor of this command stops with it; the next '
                'conductor to start (or command run) resumes it')


def wait_for_end(clients: common.ClientManager, op: dict) -> dict:
    """Poll the operation until it is no longer STARTING or PROCESSING,
    or the command's deadline (``--timeout``) comes; the last state seen."""
    last = [op]

    def ended() -> dict | None:
        try:
            last[0] = clients.conductor.get_operation(clients.context,
                                                      op['id'])
        except exception.ServiceUnavailable:
            if clients.deadline > time.monotonic():
                raise
            return last[0]  # the deadline came during the call
        return None if last[0]['state'] in op_obj.RUNNABLE_STATES \
            else last[0]

    left = clients.deadline - time.monotonic()
    if op['state'] in op_obj.RUNNABLE_STATES and left > 0:
        polling.until(ended, timeout=left, interval=POLL_SECONDS,
                      first_after=True)
    return last[0]


class Show(common.CallsServices, common.ShowOne):
    """Show an operation with every zone attempt: VNFC, zone, outcome,
    Heat's error text, duration, and what was decided and why."""

    READ_ONLY = True

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('operation_id', metavar='ID')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        op = clients.conductor.get_operation(clients.context,
                                             parsed_args.operation_id)
        return documents.as_columns(_with_summary(op))


class List(common.CallsServices, common.Lister):
    """List operations, newest first."""

    READ_ONLY = True

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('--state', action='append', dest='states',
                            metavar='STATE',
                            help='Only operations in this state '
                                 '(repeatable).')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        ops = clients.conductor.list_operations(clients.context,
                                                parsed_args.states)
        return LIST_COLUMNS, [tuple(op[c] for c in LIST_COLUMNS)
                              for op in ops]


class Retry(Start):
    """Retry a FAILED_TEMP operation; zones that failed stay excluded."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = common.ShowOne.get_parser(self, prog_name)
        parser.add_argument('operation_id', metavar='ID')
        parser.add_argument('--no-wait', action='store_true',
                            help='Return once the retry is accepted.')
        common.add_timeout(parser, 3600, 'Longest run of the command, '
                                         'waiting for the end included '
                                         '(default 3600).')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        clients.set_timeout(parsed_args.timeout)
        op = clients.conductor.retry_operation(clients.context,
                                               parsed_args.operation_id)
        return self._shown(op, parsed_args)
