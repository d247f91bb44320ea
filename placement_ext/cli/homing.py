"""``placement-ext homing select|realize``: cloud selection (ONAP OOF homing).

``homing select --request FILE`` ranks the request's candidate regions
(``schemas.homing.SELECTION_REQUEST``) by ``wd * distance + wc * cost``
after the policy, capability, distance and capacity checks, reading each
private region's Nova and Placement with the ``[nova]`` and
``[placement]`` credentials. It prints the chosen region, the ranking and
why each other region was dropped; when none is left it exits 1 with
every reason.

``homing realize --policy FILE --template FILE`` prints the Heat template
with the policy's intent realised (anti-affinity server group, QoS
flavor) and what changed; ``--output`` also writes the template. For
resource isolation the flavors come from ``--flavors FILE`` or the
region's Nova.

Bad input exits 2 naming the option or field.
"""

import argparse

import yaml

from placement_ext import exception
from placement_ext.cli import common
from placement_ext.cli import documents
from placement_ext.conductor import homing
from placement_ext.conductor import homing_inputs


class Select(common.ShowOne):
    """Choose the cloud region for a deployment intent."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--request', required=True, metavar='FILE',
            help='JSON or YAML: policy, candidates, customer_location, '
                 'demand, optional weights and max_distance_km ("-" '
                 'reads standard input).')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        conf = self.app.clients.conf
        request = documents.load_yaml(parsed_args.request, '--request')
        result = homing.select(conf, request,
                               homing_inputs.RegionClients(conf))
        return documents.as_columns(result)


class Realize(common.ShowOne):
    """Realise a policy's deployment intent in a Heat template."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('--policy', required=True, metavar='FILE',
                            help='Cloud selection policy, JSON or YAML.')
        parser.add_argument('--template', required=True, metavar='FILE',
                            help='Heat template, YAML or JSON.')
        parser.add_argument(
            '--flavors', metavar='FILE',
            help='JSON or YAML list of the region\'s flavors with their '
                 'extra specs (default: read from Nova when the intent '
                 'asks for resource isolation).')
        parser.add_argument(
            '--region', metavar='NAME',
            help='Region whose Nova lists the flavors (default: [nova] '
                 'region_name).')
        parser.add_argument(
            '--output', metavar='FILE',
            help='Also write the realised template here, as YAML.')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        args = parsed_args
        conf = self.app.clients.conf
        flavors = documents.load_yaml(args.flavors, '--flavors') \
            if args.flavors else None
        result = homing.realize(
            conf, documents.load_yaml(args.policy, '--policy'),
            documents.load_yaml(args.template, '--template'),
            clients=homing_inputs.RegionClients(conf),
            region_name=args.region, flavors=flavors)
        if args.output:
            _write_yaml(args.output, result['template'])
        return documents.as_columns(result)


def _write_yaml(path: str, document: dict) -> None:
    try:
        with open(path, 'w', encoding='utf-8') as stream:
            yaml.safe_dump(document, stream, sort_keys=False)
    except OSError as exc:
        raise exception.InvalidInput(
            field='--output', reason=f'cannot write {path!r}: '
                                     f'{exc.strerror}')
