"""Choose new availability zones after a stack failed for lack of capacity.

Pure: the caller passes every input (no Nova, Heat, DB or configuration
here) and gets a deterministically ordered :class:`ReselectionResult`
with the reasons for each choice. The conductor calls it once per
capacity failure::

    failed.setdefault(failure.vdu_id, []).append(placement[failure.vdu_id])
    result = zone_reselection.reselect(
        zone_reselection.ReselectionRequest(
            zones=nova_zones,          # candidates (maybe the Grant's only)
            placement=placement,       # every VNFC -> its current zone
            targets=targets,           # VNFCs this operation creates
            constraints=[c.renamed(vnfc_of) for c in grant_constraints],
            failed=failed,             # VNFC -> zones it failed in so far
            capacity=fits),            # zone -> instances of the flavor
        strategy=conf.v2_vnfm.placement_az_select_strategy,
        rng=random.Random(seed))       # seed logged by the caller
    if result.exhausted: fail the operation with the last Heat error
    else: update the stack with result.placement, report result.broken

Constraints speak of VNFC names (``VDU1-0``): ``PlacementConstraint.
renamed`` maps Grant/VIM resource ids to those names.

Rules (the four worked tables of the Tacker spec "Enhance Placement
Process" hold; see ``doc/source/reselection.rst``):

1. A target whose current zone is in its ``failed`` list must move.
   Non-targets (VNFCs that exist already) never move.
2. Targets bound by an affinity constraint (scope ZONE, or NFVI_NODE: a
   same host is a same zone) move together, to one zone, even the ones
   that did not fail.
3. Zones where any member of the moving group failed are excluded.
4. A zone that would break a constraint whose ``fallbackBestEffort`` is
   explicitly false is excluded (every zone is, when two members of the
   moving group share such an anti-affinity). Absent counts as true
   here: reselection runs only in best-effort mode.
5. Among the rest, zones not used by an anti-affinity (scope ZONE) peer
   come first; then zones that keep affinity with non-moving VNFCs. Only
   when no peer-free zone is left is a peer's zone chosen, and the broken
   anti-affinity is reported.
6. Within the best tier: ``random`` picks uniformly with the given RNG
   (the spec); ``capacity`` (the default) picks the zone where the group
   fits with the most room (``capacity``: zones known to fit the group,
   then zones of unknown capacity, then zones known too small), then the
   fewest anti-affinity peers, then the name. ``capacity`` first drops
   the zones known too small for the group, unless every zone is: an
   attempt known to fail is not worth keeping a best-effort constraint.
7. No zone left for a group: ``exhausted``, placement unchanged.
"""

import dataclasses
import random
from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext import exception
from placement_ext.decision import zone_constraints as zc
from placement_ext.schemas import reselection as reselection_schema
from placement_ext.schemas import validate as schema_validate
from placement_ext.sol import placement_constraint as pc

STRATEGY_CAPACITY = 'capacity'
STRATEGY_RANDOM = 'random'
STRATEGIES = (STRATEGY_CAPACITY, STRATEGY_RANDOM)


@dataclasses.dataclass(frozen=True)
class ReselectionRequest:
    """One reselection step's inputs (see the module docstring).

    ``capacity`` counts instances of the failed VDU's flavor; when one
    step moves several groups it is used for all of them (an estimate).
    """

    zones: Sequence[str]
    placement: Mapping[str, str]
    targets: Sequence[str]
    constraints: Sequence[pc.PlacementConstraint] = ()
    failed: Mapping[str, Sequence[str]] = dataclasses.field(
        default_factory=dict)
    capacity: Mapping[str, int] | None = None

    @classmethod
    def from_dict(cls, data: object) -> 'ReselectionRequest':
        """Validate a ``reselection plan`` input document.

        :raises InvalidInput: naming the field at fault.
        """
        schema_validate.validate(
            reselection_schema.RESELECTION_PLAN_INPUT_V1_0, data, 'input')
        request = cls(
            zones=tuple(data['zones']),
            placement=dict(data['placement']),
            targets=tuple(data['targets']),
            constraints=tuple(pc.PlacementConstraint.from_dict(c)
                              for c in data.get('constraints', ())),
            failed={k: tuple(v) for k, v in data['failed'].items()},
            capacity=data.get('capacity'))
        request.check()
        return request

    def check(self) -> None:
        """Every name must be known; raises InvalidInput otherwise."""
        for index, name in enumerate(self.targets):
            self._known(f'targets[{index}]', name)
        for name in self.failed:
            self._known(f'failed.{name}', name)
        for c_index, constraint in enumerate(self.constraints):
            for r_index, name in enumerate(constraint.resource_ids):
                self._known(
                    f'constraints[{c_index}].resource[{r_index}].resourceId',
                    name)
        for zone in self.capacity or {}:
            if zone not in self.zones:
                raise exception.InvalidInput(
                    field=f'capacity.{zone}',
                    reason=f'{zone!r} is not one of the zones')

    def _known(self, field: str, name: str) -> None:
        if name not in self.placement:
            raise exception.InvalidInput(
                field=field, reason=f'{name!r} is not in placement')


@dataclasses.dataclass(frozen=True)
class ReselectionResult:
    """The new placement, what moved, what is broken, and why.

    :ivar moved: VNFC -> (zone before, zone after), targets only.
    :ivar broken: the constraints the new placement does not keep (at
        zone level), in input order; ``broken_indexes`` their positions.
    :ivar exhausted: no zone is left for some group; placement unchanged.
    """

    placement: dict[str, str]
    moved: dict[str, tuple[str, str]]
    broken: tuple[pc.PlacementConstraint, ...]
    broken_indexes: tuple[int, ...]
    exhausted: bool
    reasons: tuple[str, ...]

    def to_dict(self) -> dict:
        """The ``reselection plan`` output document."""
        return {
            'placement': dict(self.placement),
            'moved': {name: list(zones)
                      for name, zones in self.moved.items()},
            'broken': [c.to_dict() for c in self.broken],
            'exhausted': self.exhausted,
        }


def reselect(request: ReselectionRequest, strategy: str = STRATEGY_CAPACITY,
             rng: random.Random | None = None) -> ReselectionResult:
    """One reselection step: move every target that failed where it is.

    :param strategy: ``capacity`` or ``random``.
    :param rng: required for ``random``; seed it and log the seed.
    :raises InvalidInput: an unknown name in the request, or strategy.
    """
    if strategy not in STRATEGIES:
        raise exception.InvalidInput(
            field='strategy',
            reason=f'{strategy!r} is not one of: {", ".join(STRATEGIES)}')
    if strategy == STRATEGY_RANDOM and rng is None:
        raise ValueError('the random strategy needs an rng')
    request.check()
    relations = zc.Relations(request.constraints, request.placement)
    reasons: list[str] = []
    for group in _groups_to_move(request, relations, reasons):
        choice = _choose(group, relations.placement, request, relations,
                         strategy, rng, reasons)
        if choice is None:
            return result_for(request, dict(request.placement), True, reasons)
        relations.move(group, choice)
    if not reasons:
        reasons.append('nothing to move: no target is in a zone where it '
                       'failed')
    return result_for(request, relations.placement, False, reasons)


def _groups_to_move(request: ReselectionRequest, relations: zc.Relations,
                    reasons: list[str]) -> list[tuple[str, ...]]:
    """Affinity groups of targets holding a target that failed in place."""
    targets = set(request.targets)
    for name, zones in request.failed.items():
        if name not in targets and request.placement[name] in zones:
            reasons.append(f'{name} failed in {request.placement[name]} but '
                           f'is not a target: existing VNFCs are not moved')
    groups: dict[tuple[str, ...], None] = {}   # ordered, O(1) lookups
    grouped: set[str] = set()
    for name in request.targets:
        if name in grouped or \
                request.placement[name] not in request.failed.get(name, ()):
            continue
        group = relations.affinity_group(name, request.targets)
        groups[group] = None
        grouped.update(group)
    return list(groups)


def _choose(group: tuple[str, ...], placement: Mapping[str, str],
            request: ReselectionRequest, relations: zc.Relations,
            strategy: str, rng: random.Random | None,
            reasons: list[str]) -> str | None:
    names = ', '.join(group)
    failed = sorted({zone for name in group
                     for zone in request.failed.get(name, ())})
    if len(group) > 1:
        reasons.append(f'{names} move together (affinity)')
    options = zone_options(group, [z for z in request.zones
                                   if z not in failed], relations, reasons)
    if not options:
        reasons.append(f'no zone left for {names} (failed in '
                       f'{", ".join(failed)}): reselection exhausted')
        return None
    if strategy == STRATEGY_CAPACITY:
        options = _drop_known_too_small(options, len(group),
                                        request.capacity, names, reasons)
    pool = best_tier(options, names, reasons)
    if strategy == STRATEGY_RANDOM:
        zone, effect = rng.choice(sorted(pool, key=lambda item: item[0]))
        how = 'random'
    else:
        zone, effect = min(pool, key=lambda item: _capacity_rank(
            item[0], item[1], len(group), request.capacity))
        how = _capacity_text(zone, request.capacity)
    before = ', '.join(sorted({placement[name] for name in group}))
    reasons.append(f'{names}: {before} -> {zone} ({how}; excluded as '
                   f'failed: {", ".join(failed)})')
    reasons.extend(effect.describe(names, zone))
    return zone


def zone_options(group: Sequence[str], zones: Sequence[str],
                 relations: zc.Relations, reasons: list[str]
                 ) -> list[tuple[str, zc.MoveEffect]]:
    """``zones`` where ``group`` may go, with the effect of going there:
    those that break a constraint whose fallbackBestEffort is false are
    left out (rule 4), with the reason."""
    names = ', '.join(group)
    options = []
    for zone, effect in zip(zones, relations.effects_of_moves(group, zones),
                            strict=True):
        if effect.hard:
            reasons.append(
                f'{zone} excluded for {names}: it would break '
                f'{effect.hard[0].describe()} (fallbackBestEffort false)')
            continue
        options.append((zone, effect))
    return options


def best_tier(options: Sequence[tuple[str, zc.MoveEffect]], names: str,
              reasons: list[str]) -> list[tuple[str, zc.MoveEffect]]:
    """The options of the best tier (rules 5 and 6); the others are
    reported as avoided."""
    tiers = [effect.tier for _, effect in options]
    best = min(tiers)
    avoided = [f'{zone} ({effect.summary()})'
               for (zone, effect), tier in zip(options, tiers, strict=True)
               if tier != best]
    if avoided:
        reasons.append(f'avoided for {names}: {"; ".join(avoided)}')
    return [option for option, tier in zip(options, tiers, strict=True)
            if tier == best]


def _drop_known_too_small(options: list, need: int,
                          capacity: Mapping[str, int] | None, names: str,
                          reasons: list[str]) -> list:
    """Zones Placement says cannot take the group, unless all are.

    Without this a full zone that keeps a (best-effort) constraint would
    outrank a zone with room, and cost an attempt that is known to fail.
    """
    if capacity is None:
        return options
    small = [zone for zone, _ in options
             if capacity.get(zone) is not None and capacity[zone] < need]
    if not small or len(small) == len(options):
        return options
    reasons.append(f'not tried for {names}, known too small: '
                   f'{", ".join(small)}')
    return [(zone, effect) for zone, effect in options if zone not in small]


def _capacity_rank(zone: str, effect: zc.MoveEffect, need: int,
                   capacity: Mapping[str, int] | None) -> tuple:
    fits = None if capacity is None else capacity.get(zone)
    if fits is None:
        bucket, room = 1, 0
    else:
        bucket, room = (0 if fits >= need else 2), fits
    return (bucket, -room, effect.anti_count, zone)


def _capacity_text(zone: str, capacity: Mapping[str, int] | None) -> str:
    fits = None if capacity is None else capacity.get(zone)
    if fits is None:
        return 'capacity unknown'
    return f'capacity: {fits} more fit'


def result_for(request: ReselectionRequest, placement: dict[str, str],
               exhausted: bool, reasons: list[str]) -> ReselectionResult:
    """The result of going from ``request.placement`` to ``placement``:
    what moved and which constraints it breaks (also for a placement
    chosen elsewhere, such as by a new Grant)."""
    moved = {name: (request.placement[name], placement[name])
             for name in request.targets
             if placement[name] != request.placement[name]}
    indexes = tuple(index for index, constraint
                    in enumerate(request.constraints)
                    if not zc.kept(constraint, placement))
    return ReselectionResult(
        placement=placement, moved=moved,
        broken=tuple(request.constraints[i] for i in indexes),
        broken_indexes=indexes, exhausted=exhausted,
        reasons=tuple(reasons))
