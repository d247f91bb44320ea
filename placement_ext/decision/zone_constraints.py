"""Placement constraints judged at availability-zone level.

Zone reselection sees only zones, so only some constraints bind it:

* AFFINITY with scope ZONE, or NFVI_NODE (one host lies in one zone):
  every member in one zone.
* ANTI_AFFINITY with scope ZONE: members in pairwise different zones.

Every other constraint (NFVI_NODE anti-affinity, which Nova server
groups enforce inside a zone; ZONE_GROUP, NFVI_POP and CIS_NODE, which
need information the zone list does not carry) is neither used to
choose a zone nor reported broken here. Constraint members are VNFC names
(``VDU1-0``), the keys of the placement map.
"""

import dataclasses
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext.sol import enums
from placement_ext.sol import placement_constraint as pc

AFFINITY_SCOPES = frozenset({enums.ZONE, enums.NFVI_NODE})
ANTI_AFFINITY_SCOPES = frozenset({enums.ZONE})


def binds_zone(constraint: pc.PlacementConstraint) -> bool:
    """Whether the zone of each member decides if the constraint holds."""
    scopes = (AFFINITY_SCOPES if constraint.is_affinity
              else ANTI_AFFINITY_SCOPES)
    return constraint.scope in scopes


def kept(constraint: pc.PlacementConstraint,
         placement: Mapping[str, str]) -> bool:
    """Whether ``placement`` keeps the constraint (True if not judged)."""
    if not binds_zone(constraint):
        return True
    zones = [placement[name] for name in _members(constraint)]
    if constraint.is_affinity:
        return len(set(zones)) <= 1
    return len(set(zones)) == len(zones)


def _members(constraint: pc.PlacementConstraint) -> list[str]:
    return list(dict.fromkeys(constraint.resource_ids))


@dataclasses.dataclass(frozen=True)
class MoveEffect:
    """What moving a group of VNFCs to one zone does to constraints.

    :ivar anti_peers: VNFCs outside the group already in the zone that
        share an anti-affinity constraint with a group member.
    :ivar affinity_left: VNFCs outside the group, not in the zone, that
        share an affinity constraint with a group member.
    :ivar hard: constraints so broken whose fallbackBestEffort is false,
        including an anti-affinity between two members of the group
        (which any zone breaks).
    """

    anti_peers: tuple[str, ...] = ()
    affinity_left: tuple[str, ...] = ()
    hard: tuple[pc.PlacementConstraint, ...] = ()

    @property
    def tier(self) -> tuple[bool, bool]:
        """Lower is better: anti-affinity first, then affinity."""
        return (bool(self.anti_peers), bool(self.affinity_left))

    def summary(self) -> str:
        parts = []
        if self.anti_peers:
            parts.append(f'anti-affinity peers {", ".join(self.anti_peers)}')
        if self.affinity_left:
            parts.append(f'apart from {", ".join(self.affinity_left)}')
        return ', '.join(parts) or 'keeps every constraint'

    def describe(self, names: str, zone: str) -> list[str]:
        lines = []
        if self.anti_peers:
            lines.append(
                f'anti-affinity broken: no zone free of anti-affinity peers '
                f'was left for {names}; {zone} is used by '
                f'{", ".join(self.anti_peers)}')
        if self.affinity_left:
            lines.append(
                f'affinity broken: {names} in {zone} leave '
                f'{", ".join(self.affinity_left)} (not moved) elsewhere')
        return lines


class _Names:
    """VNFC names of a move's effect, without repeats, sorted."""

    def __init__(self) -> None:
        self._names: dict[str, None] = {}

    def add(self, names: Iterable[str]) -> None:
        self._names.update(dict.fromkeys(names))

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._names))


class Relations:
    """The zone-binding constraints of one request and where their VNFCs
    are, indexed so that judging a move costs O(constraints it touches x
    group size), not O(members): a step over thousands of targets in one
    constraint stays near-linear.

    :param placement: VNFC -> zone; :meth:`move` changes it.
    """

    def __init__(self, constraints: Iterable[pc.PlacementConstraint],
                 placement: Mapping[str, str] | None = None) -> None:
        # (constraint, its members in order), worked out once
        self._constraints = [(c, _members(c)) for c in constraints
                             if binds_zone(c)]
        self.placement: dict[str, str] = dict(placement or {})
        # VNFC -> indexes of the constraints naming it
        self._of: dict[str, list[int]] = {}
        # per constraint: zone -> its members there (insertion ordered)
        self._in_zone: list[dict[str, dict[str, None]]] = []
        for index, (_c, members) in enumerate(self._constraints):
            zones: dict[str, dict[str, None]] = {}
            for name in members:
                self._of.setdefault(name, []).append(index)
                zones.setdefault(self.placement.get(name), {})[name] = None
            self._in_zone.append(zones)

    def move(self, group: Iterable[str], zone: str) -> None:
        """Record that every VNFC of ``group`` is now in ``zone``."""
        for name in group:
            old = self.placement.get(name)
            for index in self._of.get(name, ()):
                zones = self._in_zone[index]
                zones[old].pop(name, None)
                zones.setdefault(zone, {})[name] = None
            self.placement[name] = zone

    def _touching(self, names: Iterable[str]) -> list[int]:
        """Indexes of the constraints naming any of ``names``, in order."""
        return sorted({index for name in names
                       for index in self._of.get(name, ())})

    def affinity_group(self, name: str,
                       targets: Sequence[str]) -> tuple[str, ...]:
        """``name`` and the targets tied to it by affinity, transitively,
        in ``targets`` order."""
        if not any(self._constraints[index][0].is_affinity
                   for index in self._of.get(name, ())):
            return (name,)      # without building a set of every target
        allowed = set(targets)
        group = {name}
        pending = [name]
        while pending:
            current = pending.pop()
            for index in self._of.get(current, ()):
                constraint, members = self._constraints[index]
                if not constraint.is_affinity:
                    continue
                for other in members:
                    if other in allowed and other not in group:
                        group.add(other)
                        pending.append(other)
        if len(group) == 1:
            return (name,)
        return tuple(target for target in targets if target in group)

    def effect_of_move(self, group: Sequence[str], zone: str) -> MoveEffect:
        """The constraints broken by putting every member of ``group`` in
        ``zone``, the other VNFCs staying where they are."""
        inside = set(group)
        anti = _Names()
        left = _Names()
        hard: list[pc.PlacementConstraint] = []
        for index in self._touching(group):
            constraint, members = self._constraints[index]
            zones = self._in_zone[index]
            in_group = [name for name in group if index in self._of[name]]
            if constraint.is_affinity:
                # everyone else not already in the zone ends up apart
                clash = [name for where, names in zones.items()
                         if where != zone for name in names
                         if name not in inside] \
                    if len(zones) > 1 or zone not in zones else []
                left.add(clash)
            else:
                clash = [name for name in zones.get(zone, ())
                         if name not in inside]
                anti.add(clash)
                # the group itself shares the zone: any zone breaks it
                clash += in_group[1:]
            if clash and constraint.fallback_best_effort is False:
                hard.append(constraint)
        return MoveEffect(anti_peers=anti.names(),
                          affinity_left=left.names(),
                          hard=tuple(hard))
