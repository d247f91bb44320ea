"""``placement-ext status``: are the services answering?"""

import argparse

from placement_ext import exception
from placement_ext.cli import common

COLUMNS = ('Service', 'Status', 'Host', 'Version', 'Request ID', 'Detail')


class Status(common.Lister):
    """Ping the conductor and the manager and show who answered.

    A service that does not answer in time is listed as ``down`` and the
    command exits 1. With the embedded ``transport_url = fake://`` both
    services run inside this command.
    """

    READ_ONLY = True

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        common.add_timeout(parser, 10, 'How long to wait for each '
                                       'service (default: 10).')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        clients = self.app.clients
        apis = (clients.conductor, clients.manager)
        rows = [self._ping(api, clients.context, parsed_args.timeout)
                for api in apis]
        self._any_down = any(row[1] != 'up' for row in rows)
        return COLUMNS, rows

    def run(self, parsed_args: argparse.Namespace) -> int:
        self._any_down = False
        status = super().run(parsed_args)
        return status or int(self._any_down)

    @staticmethod
    def _ping(api: object, context: object, timeout: float) -> tuple:
        try:
            pong = api.ping(context, timeout=timeout)
        except exception.ServiceUnavailable as exc:
            return (api.SERVICE, 'down', '', '', context.request_id,
                    exc.detail)
        return (pong['service'], 'up', pong['host'], pong['version'],
                pong['request_id'], '')
