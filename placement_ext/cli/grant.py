"""``placement-ext grant evaluate``: the Grant the evaluator would give.

Reads a SOL 003 GrantRequest (``--request``) and the cloud's zones, hosts
and flavours (``--zones``, see :mod:`placement_ext.schemas.
grant_evaluation`) and prints the Grant of
:func:`placement_ext.decision.grant_evaluator.evaluate`; relaxed
best-effort constraints are in its
``additionalParams.relaxedPlacementConstraints``. A refusal exits 1 with
the reason; bad input exits 2 naming the field. No service is contacted.
"""

import argparse
import logging
import uuid

from placement_ext import exception
from placement_ext.cli import common
from placement_ext.cli import documents
from placement_ext.decision import cloud_zones
from placement_ext.decision import grant_evaluator
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
