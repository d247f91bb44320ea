"""``placement-ext grant request|evaluate``: both sides of a Grant, offline.

``grant request`` prints the SOL 003 GrantRequest a VNFM would send for an
INSTANTIATE, scale-out or HEAL of a VNF built from a VNFD (``--vnfd``), as
:func:`placement_ext.decision.grant_request_builder.build` makes it, with
``fallbackBestEffort`` defaulting to ``[v2_vnfm]
placement_fallback_best_effort``; policies that give no constraint are
logged as warnings. Its output is what ``grant evaluate --request`` reads.

``grant evaluate`` reads a SOL 003 GrantRequest (``--request``) and the
cloud's zones, hosts and flavours (``--zones``, see
:mod:`placement_ext.schemas.grant_evaluation`) and prints the Grant of
:func:`placement_ext.decision.grant_evaluator.evaluate`; relaxed
best-effort constraints are in its
``additionalParams.relaxedPlacementConstraints``. A refusal exits 1 with
the reason.

Bad input exits 2 naming the option or field. No service is contacted.
"""

import argparse
import logging
import uuid
from collections.abc import Callable

from placement_ext import exception
from placement_ext.cli import common
from placement_ext.cli import documents
from placement_ext.decision import cloud_zones
from placement_ext.decision import grant_evaluator
from placement_ext.decision import grant_request_builder as builder
from placement_ext.sol import grant_request

LOG = logging.getLogger(__name__)

# Grant ids derived from the operation id, so a dry run is repeatable.
_GRANT_ID_NAMESPACE = uuid.UUID('0f6f1f2e-52d3-4c39-9a43-7b1e5d0c1a11')


class Evaluate(common.ShowOne):
    """Show the Grant the NFVO-side evaluator would give (dry run)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--request', required=True, metavar='FILE',
            help='SOL 003 GrantRequest, JSON ("-" reads standard input).')
        parser.add_argument(
            '--zones', required=True, metavar='FILE',
            help='JSON: zones with their hosts\' free capacity, VDU '
                 'flavours and where allocated resources are.')
        parser.add_argument(
            '--grant-id', metavar='ID',
            help='Id of the Grant (default: derived from vnfLcmOpOccId).')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        request = grant_request.parse(
            documents.load_json(parsed_args.request, '--request'))
        cloud = cloud_zones.Cloud.from_dict(
            documents.load_json(parsed_args.zones, '--zones'))
        grant_id = parsed_args.grant_id or str(
            uuid.uuid5(_GRANT_ID_NAMESPACE, request.vnf_lcm_op_occ_id))
        decision = grant_evaluator.evaluate(request, cloud, grant_id)
        for reason in decision.reasons:
            LOG.info('%s', reason)
        if not decision.granted:
            raise exception.GrantRefused(reason=decision.refusal)
        return documents.as_columns(decision.grant.to_dict())


class Request(common.ShowOne):
    """Show the GrantRequest a VNFM would send (dry run)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--vnfd', required=True, metavar='FILE',
            help='The deployment flavour\'s VNFD file, TOSCA in YAML or '
                 'JSON ("-" reads standard input): its VDUs, policies '
                 'and groups.')
        parser.add_argument(
            '--operation', required=True, type=str.upper,
            choices=builder.OPERATIONS,
            help='INSTANTIATE, SCALE (scale out) or HEAL.')
        parser.add_argument('--vnf-instance', required=True, metavar='ID',
                            help='vnfInstanceId.')
        parser.add_argument(
            '--flavour', metavar='ID',
            help='flavourId (default: the VNFD\'s substitution_mappings '
                 'flavour_id).')
        parser.add_argument(
            '--vnfd-id', metavar='ID',
            help='vnfdId (default: the VNFD\'s descriptor_id).')
        parser.add_argument(
            '--op-occ', metavar='ID',
            help='vnfLcmOpOccId (default: derived from the instance and '
                 'the operation).')
        parser.add_argument(
            '--add', action='extend', nargs='+', metavar='VDU=COUNT',
            help='COUNT new VNFCs of VDU, named VDU-<n> (INSTANTIATE, '
                 'SCALE). INSTANTIATE default: the VNFD\'s initial '
                 'deltas.')
        parser.add_argument(
            '--existing', metavar='FILE',
            help='JSON: the instance\'s VNFCs, [{"vnfcId", "vduId", '
                 '"resourceId", "vimConnectionId"}] (SCALE, HEAL); those '
                 'that stay are RES_MGMT references.')
        parser.add_argument(
            '--heal', action='extend', nargs='+', metavar='VNFC_ID',
            help='Existing VNFCs to re-create (HEAL; default: all).')
        parser.add_argument(
            '--fallback-best-effort', action='extend', nargs='+',
            metavar='POLICY=true|false',
            help='fallbackBestEffort of the constraint of POLICY (default: '
                 'the policy\'s fallback_best_effort property, else '
                 '[v2_vnfm] placement_fallback_best_effort).')
        documents.add_vnfd_limits(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        args = parsed_args
        vnfd = documents.load_vnfd(args.vnfd, '--vnfd', args)
        existing = builder.vnfcs_from(documents.load_json(
            args.existing, '--existing')) if args.existing else ()
        conf = self.app.clients.conf
        built = builder.build(
            vnfd, args.operation, args.vnf_instance,
            add=_pairs(args.add, '--add', _count), existing=existing,
            heal=args.heal, vnfd_id=args.vnfd_id, flavour_id=args.flavour,
            vnf_lcm_op_occ_id=args.op_occ,
            default_fallback_best_effort=(
                conf.v2_vnfm.placement_fallback_best_effort),
            fallback_best_effort=_pairs(args.fallback_best_effort,
                                        '--fallback-best-effort', _boolean))
        for skipped in built.skipped:
            LOG.warning('Policy %s gives no placement constraint: %s',
                        skipped.name, skipped.reason)
        return documents.as_columns(built.request.to_dict())


def _pairs(texts: list[str] | None, option: str,
           convert: Callable[[str], object]) -> dict | None:
    """``NAME=VALUE`` arguments as {NAME: convert(VALUE)}."""
    if texts is None:
        return None
    pairs = {}
    for text in texts:
        name, equals, value = text.partition('=')
        if not name or not equals:
            raise exception.InvalidInput(
                field=option, reason=f'{text!r} is not NAME=VALUE')
        if name in pairs:
            raise exception.InvalidInput(
                field=option, reason=f'{name!r} is given twice')
        try:
            pairs[name] = convert(value)
        except ValueError as exc:
            raise exception.InvalidInput(field=option,
                                         reason=f'{text!r}: {exc}')
    return pairs


def _count(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise ValueError('COUNT must be a whole number')
    return int(text)


def _boolean(text: str) -> bool:
    value = {'true': True, 'false': False}.get(text.lower())
    if value is None:
        raise ValueError('must be true or false')
    return value
