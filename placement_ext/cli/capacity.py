"""``placement-ext capacity host HOST``: how many instances of a size fit
on a host the operator names, read from Placement with one ``in_tree``
query on that host's provider tree (not every candidate of the cloud)."""

import argparse

from placement_ext.cli import common
from placement_ext.cli import documents
from placement_ext.drivers import placement as placement_driver


class Host(common.ShowOne):
    """Instances of the given size that fit on HOST now."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('host', metavar='HOST',
                            help='Hypervisor hostname (the compute node '
                                 'resource provider\'s name).')
        for name, default in (('vcpus', 1), ('memory-mb', 0),
                              ('disk-gb', 0)):
            parser.add_argument(f'--{name}', type=int, default=default,
                                metavar='N')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        placement = placement_driver.PlacementDriver.from_conf(
            self.app.clients.conf)
        node = placement.reservations.compute_node(parsed_args.host)
        resources = {rc: amount for rc, amount in (
            ('VCPU', parsed_args.vcpus),
            ('MEMORY_MB', parsed_args.memory_mb),
            ('DISK_GB', parsed_args.disk_gb)) if amount}
        fits = placement.capacity_on_host(node.uuid, resources)
        return documents.as_columns({
            'host': parsed_args.host, 'provider_uuid': node.uuid,
            'resources': resources, 'fits': fits})
