"""Move targets out of zones that cannot hold them before Heat is asked.

Pure, like :mod:`placement_ext.decision.zone_reselection`, whose zone
ranking it shares. The conductor calls :func:`precheck` before the first
stack create or update, with every target's room read from Placement,
and again after each capacity failure, judging only the zone Heat just
found full::

    zones, note = zone_precheck.allowed_zones(
        nova_zones, grant_zones, granted_placement, targets)
    result = zone_precheck.precheck(
        zone_precheck.PrecheckRequest(
            zones=zones, placement=placement, targets=targets,
            constraints=constraints, fits=fits,     # VNFC -> zone -> n
            failed=failed, judged=None),            # or [the full zone]
        strategy=strategy, rng=random.Random(seed))

Rules (``doc/source/reselection.rst``, "Checking capacity first"):

1. A target may move only when the Grant lets it: every placement
   constraint naming it has ``fallbackBestEffort`` true (SOL 003: absent
   means false). Targets no constraint names may move. Affinity groups
   (as in reselection rule 2) move whole, so one pinned member pins the
   group. Non-targets never move.
2. Room is a share of each zone: one instance of a flavor of which
   ``fits[vnfc][zone]`` more fit takes ``1/fits`` of it (exact for one
   flavor, an estimate for several; a zone where none fits has none).
   Unknown room (no figure) is never judged: such a target stays, and
   such a zone is never chosen.
3. The groups of a judged zone keep their zone in turn, pinned groups
   first, then in target order, while the zone's room lasts. The others
   must move.
4. The groups that must move go, largest first (then in target order),
   each to a zone the Grant allows (``zones``) where none of its members
   failed and that has room for it after the moves before it (no
   constraint without best effort names it: rule 1); the best tier of
   reselection rules 5 and 6 first, then ``capacity``: the most room
   left, fewest anti-affinity peers, name; ``random``: uniformly with the
   given RNG. Without such a zone it stays: the attempt will tell, as
   without the pre-check.
"""

import dataclasses
import fractions
import functools
import math
import random
from collections.abc import Collection
from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext.decision import zone_constraints as zc
from placement_ext.decision import zone_reselection as zr
from placement_ext.sol import placement_constraint as pc

# a share of a zone: a Fraction, or math.inf where none fits
Share = fractions.Fraction | float


@dataclasses.dataclass(frozen=True)
class PrecheckRequest:
    """One pre-check's inputs (see the module docstring).

    :ivar zones: where a target may be moved: the zones the Grant allows
        (:func:`allowed_zones`).
    :ivar fits: VNFC -> zone -> instances of its flavor that still fit;
        a missing VNFC or zone is unknown.
    :ivar judged: only targets in these zones are checked (after a
        failure: the zone Heat found full); None: every zone.
    """

    zones: Sequence[str]
    placement: Mapping[str, str]
    targets: Sequence[str]
    fits: Mapping[str, Mapping[str, int]]
    constraints: Sequence[pc.PlacementConstraint] = ()
    failed: Mapping[str, Sequence[str]] = dataclasses.field(
        default_factory=dict)
    judged: Collection[str] | None = None


def allowed_zones(candidates: Sequence[str],
                  grant_zones: Collection[str] | None,
                  granted: Mapping[str, str], targets: Sequence[str]
                  ) -> tuple[list[str], str]:
    """The candidates the Grant allows, and how we know: its zone list,
    else the zones it placed the targets in (a Grant's ``zones`` holds at
    least those)."""
    if grant_zones:
        allowed, how = set(grant_zones), 'the zones the Grant lists'
    else:
        allowed = {granted[name] for name in targets}
        how = 'the zones the Grant placed the targets in'
    return [zone for zone in candidates if zone in allowed], \
        f'pre-check moves only to {how}'


def pinned(constraints: Sequence[pc.PlacementConstraint],
           targets: Sequence[str]) -> dict[str, str]:
    """Target -> why the Grant does not let it move (rule 1)."""
    wanted = set(targets)
    why: dict[str, str] = {}
    for constraint in constraints:
        if constraint.best_effort:
            continue
        for name in constraint.resource_ids:
            if name in wanted:
                why.setdefault(name, f'{constraint.describe()} is not '
                                     f'fallbackBestEffort')
    return why


def precheck(request: PrecheckRequest,
             strategy: str = zr.STRATEGY_CAPACITY,
             rng: random.Random | None = None) -> zr.ReselectionResult:
    """Move the targets that cannot fit where they are (see the rules).

    :param strategy: ``capacity`` or ``random`` (which needs ``rng``).
    :returns: never ``exhausted``; ``moved`` may be empty.
    """
    if strategy == zr.STRATEGY_RANDOM and rng is None:
        raise ValueError('the random strategy needs an rng')
    check = _Check(request, strategy, rng)
    # largest groups first: they are the hardest to place
    for group in sorted(check.overflowing(), key=len, reverse=True):
        check.relocate(group)
    if not check.reasons:
        check.reasons.append('pre-check: every target fits where it is, '
                             'or its room is unknown')
    base = zr.ReselectionRequest(
        zones=request.zones, placement=request.placement,
        targets=request.targets, constraints=request.constraints)
    return zr.result_for(base, check.relations.placement, False,
                         check.reasons)


@functools.lru_cache(maxsize=1024)
def _one_in(fits: int) -> Share:
    """The share of a zone one instance takes when ``fits`` more fit."""
    return fractions.Fraction(1, fits) if fits > 0 else math.inf


class _Check:
    """One pre-check's state: placement, room left per zone, reasons."""

    def __init__(self, request: PrecheckRequest, strategy: str,
                 rng: random.Random | None) -> None:
        self.request = request
        self.strategy = strategy
        self.rng = rng
        self.relations = zc.Relations(request.constraints, request.placement)
        self.room: dict[str, Share] = {}
        self.reasons: list[str] = []
        self._pinned = pinned(request.constraints, request.targets)

    def overflowing(self) -> list[tuple[str, ...]]:
        """Keep groups in place while room lasts (rule 3); the rest."""
        must_move = []
        for group in self._groups():
            share = self._share(group, None)
            if share is not None and self._judged(group) and \
                    not self._has_room(share):
                why = next((self._pinned[name] for name in group
                            if name in self._pinned), None)
                if why is None:
                    must_move.append(group)
                    continue
                self.reasons.append(
                    f'pre-check: {", ".join(group)} stay(s) in '
                    f'{", ".join(self._zones_of(group))} without room: '
                    f'{why}')
            self._take(share)
        return must_move

    def relocate(self, group: tuple[str, ...]) -> None:
        """Move ``group`` where it fits (rule 4), or leave it."""
        names = ', '.join(group)
        zones_of = self._zones_of(group)
        here = ', '.join(zones_of)
        failed = {zone for name in group
                  for zone in self.request.failed.get(name, ())}
        shares = {zone: self._share(group, zone) for zone in self.request.zones
                  if zone not in failed and zone not in zones_of}
        fitting = [zone for zone, share in shares.items()
                   if self._has_room(share)]
        options = zr.zone_options(group, fitting, self.relations,
                                  self.reasons)
        if not options:
            self._take(self._share(group, None))
            self.reasons.append(
                f'pre-check: {names} do(es) not fit in {here}, and no zone '
                f'the Grant allows is known to fit it: not moved')
            return
        pool = zr.best_tier(options, names, self.reasons)
        zone, effect = self._pick(pool, shares)
        self.reasons.append(
            f'pre-check: {names}: {here} -> {zone} ({here} is known too '
            f'small; {zone} has room: {self._left(zone, shares[zone])})')
        self.reasons.extend(effect.describe(names, zone))
        self.relations.move(group, zone)
        self._take(shares[zone])

    def _pick(self, pool: list[tuple[str, zc.MoveEffect]],
              shares: Mapping[str, dict[str, Share]]
              ) -> tuple[str, zc.MoveEffect]:
        if self.strategy == zr.STRATEGY_RANDOM:
            return self.rng.choice(sorted(pool, key=lambda item: item[0]))
        return min(pool, key=lambda item: (
            -(self._room(item[0]) - shares[item[0]][item[0]]),
            len(item[1].anti_peers), item[0]))

    def _groups(self) -> list[tuple[str, ...]]:
        """Affinity groups of targets, pinned ones first (rule 3)."""
        targets = self.request.targets
        groups: dict[tuple[str, ...], None] = {}
        seen: set[str] = set()
        for name in targets:
            if name not in seen:
                group = self.relations.affinity_group(name, targets)
                groups[group] = None
                seen.update(group)
        return sorted(groups, key=lambda group: not any(
            name in self._pinned for name in group))

    def _judged(self, group: tuple[str, ...]) -> bool:
        judged = self.request.judged
        return judged is None or any(
            self.relations.placement[name] in judged for name in group)

    def _share(self, group: Sequence[str], zone: str | None
               ) -> dict[str, Share] | None:
        """Zone -> share of it ``group`` takes, in ``zone`` or (None)
        where it is; None when some member's room is unknown."""
        shares: dict[str, Share] = {}
        for name in group:
            where = zone or self.relations.placement[name]
            fits = self.request.fits.get(name, {}).get(where)
            if fits is None:
                return None
            shares[where] = shares.get(where, 0) + _one_in(fits)
        return shares

    def _room(self, zone: str) -> Share:
        return self.room.get(zone, fractions.Fraction(1))

    def _has_room(self, share: dict[str, Share] | None) -> bool:
        return share is not None and all(
            amount <= self._room(zone) for zone, amount in share.items())

    def _take(self, share: dict[str, Share] | None) -> None:
        for zone, amount in (share or {}).items():
            self.room[zone] = self._room(zone) - amount

    def _left(self, zone: str, share: dict[str, Share]) -> str:
        left = self._room(zone) - share[zone]
        return f'{float(left):.0%} of it left after'

    def _zones_of(self, group: Sequence[str]) -> list[str]:
        return sorted({self.relations.placement[name] for name in group})
