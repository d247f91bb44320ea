"""``placement-ext reselection plan``: dry run of one zone reselection.

Reads one step's situation (zones, placement, targets, constraints,
failed zones, optional capacity; see
:mod:`placement_ext.schemas.reselection`) and prints what
:func:`placement_ext.decision.zone_reselection.reselect` decides::

  {"placement": {...}, "moved": {"VDU1-0": ["AZ-1", "AZ-4"]},
   "broken": [PlacementConstraint, ...], "exhausted": false}

``exhausted: true`` (no zone left, placement unchanged) is an answer and
exits 0. Bad input exits 2 naming the field. No service is contacted.
"""

import argparse
import logging
import random

from placement_ext.cli import common
from placement_ext.cli import documents
from placement_ext.decision import zone_reselection as zr

LOG = logging.getLogger(__name__)


class Plan(common.ShowOne):
    """Show the placement one reselection step would choose (dry run)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--input', required=True, metavar='FILE',
            help='JSON document: zones, placement, targets, constraints, '
                 'failed, capacity ("-" reads standard input).')
        parser.add_argument(
            '--strategy', choices=zr.STRATEGIES, default=zr.STRATEGY_CAPACITY,
            help='How to choose among equally good zones: "capacity" '
                 '(most room for the failed VDU, the default of '
                 '[v2_vnfm] placement_az_select_strategy) or "random" '
                 '(the Tacker specification).')
        parser.add_argument(
            '--seed', type=int, metavar='N',
            help='Seed of the random strategy, to repeat a run (default: '
                 'a fresh one, logged with -v).')
        parser.add_argument(
            '--explain', action='store_true',
            help='Add "reasons" (why each zone was chosen or avoided) to '
                 'the output.')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        request = zr.ReselectionRequest.from_dict(
            documents.load_json(parsed_args.input, '--input'))
        seed = parsed_args.seed
        if seed is None:
            seed = random.SystemRandom().randrange(2 ** 32)
        LOG.info('strategy %(strategy)s, seed %(seed)d',
                 {'strategy': parsed_args.strategy, 'seed': seed})
        result = zr.reselect(request, parsed_args.strategy,
                             random.Random(seed))
        for reason in result.reasons:
            LOG.info('%s', reason)
        document = result.to_dict()
        if parsed_args.explain:
            document['reasons'] = list(result.reasons)
        return documents.as_columns(document)
