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

import collections
import typing
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext.sol import placement_constraint as pc
from placement_ext.vocabulary import sol_enums

AFFINITY_SCOPES = frozenset({sol_enums.ZONE, sol_enums.NFVI_NODE})
ANTI_AFFINITY_SCOPES = frozenset({sol_enums.ZONE})


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


# Longest list of VNFC names in a reason; a longer one is cut to this
# many (in the order they reached the zone) and counted, so that the
# reasons of a step grow with its targets, not with their square.
LISTED_NAMES = 20


class _NoClash:
    """The names of a move that breaks nothing."""

    def names(self, zone: str | None, affinity: bool,
              limit: int | None) -> list[str]:
        return []


class MoveEffect(typing.NamedTuple):
    """What moving a group of VNFCs to one zone does to constraints.

    :ivar anti_count: VNFCs outside the group already in the zone that
        share an anti-affinity constraint with a group member.
    :ivar apart_count: VNFCs outside the group, not in the zone, that
        share an affinity constraint with a group member.
    :ivar hard: constraints so broken whose fallbackBestEffort is false,
        including an anti-affinity between two members of the group
        (which any zone breaks).

    A tuple, as one is made for every zone a group may go to. The counts
    are worked out at once; the names (``anti_peers``, ``affinity_left``,
    sorted) only when asked, which must be before the next
    :meth:`Relations.move`.
    """

    anti_count: int = 0
    apart_count: int = 0
    hard: tuple[pc.PlacementConstraint, ...] = ()
    zone: str | None = None
    clashes: '_Clashes | _NoClash' = _NoClash()

    @property
    def anti_peers(self) -> tuple[str, ...]:
        return tuple(sorted(self.clashes.names(self.zone, False, None)))

    @property
    def affinity_left(self) -> tuple[str, ...]:
        return tuple(sorted(self.clashes.names(self.zone, True, None)))

    @property
    def tier(self) -> tuple[bool, bool]:
        """Lower is better: anti-affinity first, then affinity."""
        return (bool(self.anti_count), bool(self.apart_count))

    def _listed(self, affinity: bool) -> str:
        count = self.apart_count if affinity else self.anti_count
        if count <= LISTED_NAMES:
            return ', '.join(self.affinity_left if affinity
                             else self.anti_peers)
        shown = self.clashes.names(self.zone, affinity, LISTED_NAMES)
        return f'{", ".join(shown)} and {count - len(shown)} more'

    def summary(self) -> str:
        parts = []
        if self.anti_count:
            parts.append(f'anti-affinity peers {self._listed(False)}')
        if self.apart_count:
            parts.append(f'apart from {self._listed(True)}')
        return ', '.join(parts) or 'keeps every constraint'

    def describe(self, names: str, zone: str) -> list[str]:
        lines = []
        if self.anti_count:
            lines.append(
                f'anti-affinity broken: no zone free of anti-affinity peers '
                f'was left for {names}; {zone} is used by '
                f'{self._listed(False)}')
        if self.apart_count:
            lines.append(
                f'affinity broken: {names} in {zone} leave '
                f'{self._listed(True)} (not moved) elsewhere')
        return lines


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
        self.moves = 0      # effects name VNFCs only until the next move
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
        self.moves += 1

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
        return self.effects_of_moves(group, [zone])[0]

    def effects_of_moves(self, group: Sequence[str], zones: Sequence[str]
                         ) -> list[MoveEffect]:
        """:meth:`effect_of_move` for each of ``zones``: counted, from
        the size of each constraint's members per zone, in O(zones x
        constraints touched + group size), not O(members)."""
        touching = [(self._constraints[index][0], len(self._constraints[
            index][1]), self._in_zone[index], [
                name for name in group if index in self._of.get(name, ())])
            for index in self._touching(group)]
        clashes = _Clashes(self, touching, set(group))
        counts = {True: [0] * len(zones), False: [0] * len(zones)}
        hard: dict[int, list[pc.PlacementConstraint]] = {}
        for constraint, size, in_zone, in_group in touching:
            affinity = constraint.is_affinity
            ours = collections.Counter(self.placement.get(name)
                                       for name in in_group)
            # the group itself shares any zone: an anti-affinity broken
            inner = not affinity and len(in_group) > 1
            firm = constraint.fallback_best_effort is False
            adding = counts[affinity]
            for at, zone in enumerate(zones):
                here = len(in_zone.get(zone, ())) - ours[zone]
                clash = (size - len(in_group) - here) if affinity else here
                adding[at] += clash
                if firm and (clash or inner):
                    hard.setdefault(at, []).append(constraint)
        for kind in (True, False):
            # several constraints of a kind may share names: the union
            if sum(c.is_affinity == kind for c, *_ in touching) > 1:
                counts[kind] = [count and len(clashes.names(zone, kind, None))
                                for zone, count in zip(zones, counts[kind],
                                                       strict=True)]
        return [MoveEffect(counts[False][at], counts[True][at],
                           tuple(hard.get(at, ())), zone, clashes)
                for at, zone in enumerate(zones)]


class _Clashes:
    """The VNFCs a group's moves clash with, named on demand."""

    def __init__(self, relations: 'Relations', touching: list[tuple],
                 inside: set[str]) -> None:
        self._relations = relations
        self._at = relations.moves
        self._touching = touching
        self._inside = inside

    def names(self, zone: str | None, affinity: bool,
              limit: int | None) -> list[str]:
        """Names outside the group that moving it to ``zone`` puts apart
        from an affinity peer (``affinity``) or next to an anti-affinity
        peer, without repeats, in constraint then zone order; at most
        ``limit``."""
        if self._relations.moves != self._at:
            raise RuntimeError('names of a move effect asked for after the '
                               'relations moved VNFCs')
        found: dict[str, None] = {}
        for constraint, _size, zones, _in_group in self._touching:
            if constraint.is_affinity != affinity:
                continue
            places = [names for where, names in zones.items()
                      if where != zone] if affinity else [zones.get(zone, ())]
            for names in places:
                for name in names:
                    if name not in self._inside:
                        found[name] = None
                        if limit is not None and len(found) >= limit:
                            return list(found)
        return list(found)
