"""``placement-ext vnfd translate VNFD``: a VNFD's affinity rules in Heat.

Reads the deployment flavour's VNFD file and the Heat templates its VDUs
are in, and prints the templates with the ``OS::Nova::ServerGroup``
resources and ``scheduler_hints`` of
:func:`placement_ext.decision.vnfd_translation.translate`, for review: one
YAML document per template, each headed by a ``# <name>`` comment, the top
template first. Nothing is deployed and no file is written.

* ``--heat FILE``: the top template (Tacker v2:
  ``BaseHOT/<flavour>/<name>.yaml``); more ``--heat`` options add nested
  templates, and every ``*.yaml`` of a ``nested`` folder beside the top
  template is read too (Tacker's package layout). A nested template is
  named by its file name, as the resources' ``type`` names it.
  Without ``--heat`` the command generates a Tacker v2 shaped BaseHOT
  from the VNFD (:func:`~placement_ext.decision.vnfd_translation.
  skeleton`) and translates that.
* The host-count check (a hard anti-affinity rule needing more hosts than
  there are) runs with ``--hosts N``, or, with ``--check-hosts`` or
  ``[v2_vnfm] placement_check_anti_affinity_hosts``, on the compute hosts
  Nova reports up, per zone (``[nova]``).
* Zone-scope rules and skipped checks are warnings on standard error.

Bad input, including a refused rule, exits 2 naming the policy.
"""

import argparse
import glob
import logging
import os

import yaml

from placement_ext import exception
from placement_ext.cli import common
from placement_ext.cli import documents
from placement_ext.cli import grant as grant_cli
from placement_ext.decision import vnfd_translation
from placement_ext.drivers import keystone
from placement_ext.drivers import nova as nova_driver

LOG = logging.getLogger(__name__)


class Translate(common.Command):
    """Print the Heat templates with the VNFD's affinity rules as Nova
    server groups (dry run)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'vnfd', metavar='VNFD',
            help='The deployment flavour\'s VNFD file, TOSCA in YAML or '
                 'JSON ("-" reads standard input): its VDUs, policies '
                 'and groups.')
        parser.add_argument(
            '--heat', action='append', metavar='FILE',
            help='Heat template; the first is the top template, further '
                 'ones (and the *.yaml of a "nested" folder beside the '
                 'top one) nested templates, named by file name. Default: '
                 'a Tacker v2 shaped BaseHOT generated from the VNFD.')
        parser.add_argument(
            '--hosts', type=_hosts, metavar='N',
            help='Usable compute hosts: refuse a hard anti-affinity rule '
                 'whose targets\' min_number_of_instances add up to more.')
        parser.add_argument(
            '--check-hosts', action=argparse.BooleanOptionalAction,
            help='Count the usable compute hosts, per zone, in Nova '
                 '([nova]) for that check (default: [v2_vnfm] '
                 'placement_check_anti_affinity_hosts).')
        parser.add_argument(
            '--fallback-best-effort', action='extend', nargs='+',
            metavar='POLICY=true|false',
            help='Whether the rule POLICY is soft (soft-affinity, '
                 'soft-anti-affinity). Default: the policy\'s '
                 'fallback_best_effort property, else hard.')
        documents.add_vnfd_limits(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        args = parsed_args
        flavour = documents.load_vnfd(args.vnfd, 'VNFD', args)
        if args.heat:
            top, templates = _read_templates(args.heat, args.max_size)
        else:
            top = 'top.yaml'
            templates = vnfd_translation.skeleton(flavour, top)
            LOG.info('No --heat: translating a BaseHOT generated from the '
                     'VNFD (%s)', ', '.join(templates))
        result = vnfd_translation.translate(
            flavour, templates, top, hosts=self._hosts(args),
            soft=grant_cli._pairs(args.fallback_best_effort,
                                  '--fallback-best-effort',
                                  grant_cli._boolean))
        for warning in result.warnings:
            LOG.warning('%s', warning)
        if not result.changed:
            LOG.info('Already translated: nothing changed')
        self.app.stdout.write('---\n'.join(
            f'# {name}\n' + yaml.safe_dump(template, sort_keys=False)
            for name, template in result.templates.items()))
        return 0

    def _hosts(self, args: argparse.Namespace) -> int | dict | None:
        if args.hosts is not None:
            return args.hosts
        check = args.check_hosts
        if check is None:
            check = self.app.clients.conf.v2_vnfm.\
                placement_check_anti_affinity_hosts
        if not check:
            return None
        conf = self.app.clients.conf
        listing = nova_driver.NovaDriver(
            keystone.load_session(conf, 'nova'),
            adapter_kwargs=keystone.adapter_kwargs(conf, 'nova'),
        ).compute_zones()
        if not listing.detailed:
            LOG.warning('Host-count check skipped: Nova does not say which '
                        'hosts are up (%s)', listing.note)
            return None
        return {zone: len(hosts) for zone, hosts in listing.hosts.items()}


def _hosts(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(
            f'{text!r} is not a whole number of hosts')
    return int(text)


def _read_templates(paths: list[str], max_bytes: int
                    ) -> tuple[str, dict[str, object]]:
    """(top name, name -> template) of the --heat files and the top
    template's nested folder."""
    nested_dir = os.path.join(os.path.dirname(paths[0]) or '.', 'nested')
    found = sorted(glob.glob(os.path.join(nested_dir, '*.yaml')))
    templates: dict[str, object] = {}
    origin: dict[str, str] = {}
    for path in list(paths) + [p for p in found if p not in paths]:
        name = os.path.basename(path)
        if name in templates:
            if os.path.realpath(origin[name]) == os.path.realpath(path):
                continue
            raise exception.InvalidInput(
                field='--heat',
                reason=f'two templates named {name!r}: {origin[name]!r} '
                       f'and {path!r}')
        templates[name] = documents.load_yaml(path, '--heat', max_bytes)
        origin[name] = path
    return os.path.basename(paths[0]), templates
