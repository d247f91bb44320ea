"""Search a placement of new resources on hosts that keeps given rules.

The engine under :mod:`placement_ext.decision.grant_evaluator`: a
depth-first search with backtracking over (zone, host) slots, checking
host capacity and affinity/anti-affinity rules at any scope as each
resource is placed, and pruning a branch as soon as an anti-affinity rule
needs more distinct scope instances than remain.

Deterministic: resources are placed in the order given; the slots for a
resource are tried by (soft-rule violations it adds, then most room left
for its flavour, i.e. spread, then zone order, then host order). Bounded:
each search spends nodes from a shared :class:`Budget` and raises
:class:`BudgetExhausted` when it is spent, so a pathological request
costs a known amount of work.
"""

import collections
import dataclasses
import heapq
from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext.vocabulary import sol_enums

_UNBOUNDED = 1 << 30


@dataclasses.dataclass(frozen=True)
class Slot:
    """One host, where it lies, and its coarser scopes."""

    zone: str
    host: str | None
    zone_group: str | None = None
    nfvi_pop: str | None = None

    def key(self, scope: str) -> object:
        """The instance of ``scope`` this slot belongs to."""
        if scope == sol_enums.ZONE:
            return self.zone
        if scope == sol_enums.ZONE_GROUP:
            return self.zone_group or self.zone
        if scope == sol_enums.NFVI_POP:
            return self.nfvi_pop
        return (self.zone, self.host)  # NFVI_NODE, CIS_NODE


@dataclasses.dataclass(frozen=True)
class Item:
    """A new resource to place and what one instance of it consumes."""

    id: str
    demand: Mapping[str, int]


@dataclasses.dataclass(frozen=True)
class Rule:
    """A placement constraint in search terms (members: resource ids)."""

    index: int
    affinity: bool
    scope: str
    members: tuple[str, ...]


class BudgetExhausted(Exception):
    """The shared search budget is spent."""


class Budget:
    def __init__(self, nodes: int) -> None:
        self.left = nodes

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise BudgetExhausted()


def clashes(rule: Rule, location: Mapping[str, Slot]) -> int:
    """Number of member pairs, among placed members, that break ``rule``."""
    keys = [location[m].key(rule.scope) for m in rule.members
            if m in location]
    if rule.affinity:
        return sum(1 for key in keys[1:] if key != keys[0])
    return len(keys) - len(set(keys))


def room(free: Mapping[str, int], demand: Mapping[str, int]) -> int:
    """How many instances of ``demand`` fit in ``free``."""
    counts = [free.get(rc, 0) // amount
              for rc, amount in demand.items() if amount > 0]
    return min(counts) if counts else _UNBOUNDED


class Search:
    """One search: items onto slots keeping ``rules``, avoiding ``soft``.

    Iterative (an explicit stack of candidate lists), so the number of
    items is not bounded by Python's recursion limit. Each rule keeps a
    count of its placed members per scope instance, and each
    anti-affinity rule the demands of its members still to place, so
    checking a candidate slot costs O(rules of the item), not O(members).

    :param fixed: where allocated resources are (they use no capacity).
    """

    def __init__(self, slots: Sequence[Slot], free: Mapping[Slot, Mapping],
                 items: Sequence[Item], fixed: Mapping[str, Slot],
                 rules: Sequence[Rule], soft: Sequence[Rule] = ()) -> None:
        self._slots = list(slots)
        self._free = {slot: dict(free[slot]) for slot in slots}
        self._order = {slot: order for order, slot in enumerate(slots)}
        # (scopes, demand) -> slots grouped by instances of those scopes
        self._groups: dict[tuple, _Groups] = {}
        self._items = list(items)
        self._location = dict(fixed)
        self._rules = list(rules)
        self._soft = list(soft)
        self._rules_of = _rules_by_member(items, self._rules)
        self._soft_of = _rules_by_member(items, self._soft)
        self._anti = [r for r in self._rules if not r.affinity]
        # id(rule) -> scope instance -> placed members there
        self._placed: dict[int, collections.Counter] = {
            id(rule): collections.Counter(
                self._location[m].key(rule.scope) for m in rule.members
                if m in self._location)
            for rule in self._rules + self._soft}
        # id(anti rule) -> demand of a member still to place -> how many
        demands = {item.id: _demand_key(item) for item in items}
        self._pending: dict[int, collections.Counter] = {
            id(rule): collections.Counter(
                demands[m] for m in rule.members if m in demands)
            for rule in self._anti}

    def run(self, budget: Budget) -> dict[str, Slot] | None:
        """A placement of every item, or None when there is none."""
        if any(clashes(rule, self._location) for rule in self._rules):
            return None  # allocated resources already break a rule
        if self._place_all(budget):
            return {item.id: self._location[item.id] for item in self._items}
        return None

    def _place_all(self, budget: Budget) -> bool:
        """Depth-first with backtracking: ``stack[i]`` holds the slots
        still to try for item ``i``; the last one tried is where it is.

        Only the best slot of an item is looked for when it is reached
        (through :class:`_Groups`, without ranking every slot); the
        others are ranked when the search comes back to try them, from
        the very state the best one was found in, so the order tried is
        the full ranking's."""
        stack: list[list[Slot]] = []
        ranked: list[bool] = []     # whether stack[i] holds every slot
        while len(stack) < len(self._items):
            position = len(stack)
            budget.spend()
            best = self._best(self._items[position]) \
                if self._anti_still_possible(position) else None
            stack.append([] if best is None else [best])
            ranked.append(best is None)
            while not stack[-1]:
                stack.pop()             # this item has no slot left here
                ranked.pop()
                if not stack:
                    return False
                item = self._items[len(stack) - 1]
                tried = self._location[item.id]
                self._release(item, tried)
                if not ranked[-1]:
                    stack[-1] = self._rest(item, tried)
                    ranked[-1] = True
            item = self._items[len(stack) - 1]
            self._take(item, stack[-1].pop())
        return True

    def _rest(self, item: Item, tried: Slot) -> list[Slot]:
        """The slots after ``tried`` (the best) in the full ranking,
        reversed so that pop() takes the next."""
        rest = self._candidates(item)[1:]
        rest.reverse()
        return rest

    def _best(self, item: Item) -> Slot | None:
        """``_candidates(item)[0]`` (or None), looking at one slot per
        group of slots the item's rules cannot tell apart."""
        hard = self._rules_of[item.id]
        soft = self._soft_of[item.id]
        scopes = tuple(dict.fromkeys(r.scope for r in hard + soft))
        groups = self._groups_for(scopes, _demand_key(item))
        at = {scope: n for n, scope in enumerate(scopes)}
        # (placed per instance, total placed, affinity, key position)
        judged = [[(self._placed[id(r)], self._placed[id(r)].total(),
                    r.affinity, at[r.scope]) for r in rules]
                  for rules in (hard, soft)]
        best = None
        for group, key in enumerate(groups.keys):
            top = groups.top(group)
            if top is None or _clash_sum(judged[0], key, stop=True):
                continue
            ranked = (_clash_sum(judged[1], key), top[0], top[1])
            if best is None or ranked < best:
                best = ranked
        return None if best is None else self._slots[best[2]]

    def _groups_for(self, scopes: tuple[str, ...], demand: tuple
                    ) -> '_Groups':
        groups = self._groups.get((scopes, demand))
        if groups is None:
            groups = _Groups(self._slots, scopes, dict(demand), self._free)
            self._groups[(scopes, demand)] = groups
        return groups

    def _candidates(self, item: Item) -> list[Slot]:
        ranked = []
        for order, slot in enumerate(self._slots):
            left = room(self._free[slot], item.demand)
            if left < 1 or not self._keeps_rules(item, slot):
                continue
            penalty = sum(self._added_clashes(rule, slot)
                          for rule in self._soft_of[item.id])
            ranked.append((penalty, -left, order, slot))
        ranked.sort(key=lambda entry: entry[:3])
        return [entry[3] for entry in ranked]

    def _keeps_rules(self, item: Item, slot: Slot) -> bool:
        return not any(self._added_clashes(rule, slot)
                       for rule in self._rules_of[item.id])

    def _added_clashes(self, rule: Rule, slot: Slot) -> int:
        """Clashes with ``rule``'s placed members if one more (not yet
        placed) member went to ``slot``."""
        placed = self._placed[id(rule)]
        here = placed[slot.key(rule.scope)]
        if rule.affinity:
            return placed.total() - here
        return here

    def _anti_still_possible(self, position: int) -> bool:
        """Each anti-affinity rule has enough unused scope instances with
        room for its members still to be placed."""
        for rule in self._anti:
            pending = self._pending[id(rule)]
            waiting = pending.total()
            if not waiting:
                continue
            used = self._placed[id(rule)]
            demands = [dict(key) for key, count in pending.items() if count]
            open_keys = {slot.key(rule.scope) for slot in self._slots
                         if used[slot.key(rule.scope)] == 0
                         and any(room(self._free[slot], demand) > 0
                                 for demand in demands)}
            if waiting > len(open_keys):
                return False
        return True

    def _take(self, item: Item, slot: Slot) -> None:
        free = self._free[slot]
        for rc, amount in item.demand.items():
            free[rc] = free.get(rc, 0) - amount
        self._location[item.id] = slot
        self._count(item, slot, +1)
        self._changed(slot)

    def _release(self, item: Item, slot: Slot) -> None:
        free = self._free[slot]
        for rc, amount in item.demand.items():
            free[rc] += amount
        del self._location[item.id]
        self._count(item, slot, -1)
        self._changed(slot)

    def _changed(self, slot: Slot) -> None:
        order = self._order[slot]
        for groups in self._groups.values():
            groups.changed(order, self._free[slot])

    def _count(self, item: Item, slot: Slot, step: int) -> None:
        # a rule both hard and soft is one counter: count it once
        rules = {id(rule): rule for rule in
                 self._rules_of[item.id] + self._soft_of[item.id]}
        for rule in rules.values():
            self._placed[id(rule)][slot.key(rule.scope)] += step
            if id(rule) in self._pending:
                self._pending[id(rule)][_demand_key(item)] -= step


def _rules_by_member(items: Sequence[Item], rules: Sequence[Rule]
                     ) -> dict[str, list[Rule]]:
    of: dict[str, list[Rule]] = {item.id: [] for item in items}
    for rule in rules:
        for member in dict.fromkeys(rule.members):
            if member in of:
                of[member].append(rule)
    return of


def _demand_key(item: Item) -> tuple:
    return tuple(sorted(item.demand.items()))


def _clash_sum(judged: list[tuple], key: tuple, stop: bool = False) -> int:
    """Clashes added by one more member at scope instances ``key``, over
    rules judged as in :meth:`Search._best` (``stop``: at the first)."""
    total = 0
    for placed, count, affinity, at in judged:
        here = placed[key[at]]
        total += count - here if affinity else here
        if total and stop:
            break
    return total


class _Groups:
    """The slots grouped by their instances of ``scopes`` (every rule
    over those scopes judges the slots of one group alike), each group
    with a heap of its slots by room for ``demand``: (-room, order).

    Heap entries go stale as rooms change; a fresh one is pushed on each
    change and stale ones are dropped when they come to the top, so the
    top is always the group's slot with the most room, then the first.
    """

    def __init__(self, slots: Sequence[Slot], scopes: tuple[str, ...],
                 demand: Mapping[str, int],
                 free: Mapping[Slot, Mapping[str, int]]) -> None:
        self._demand = demand
        index: dict[tuple, int] = {}
        self._group_of: list[int] = []
        self._heaps: list[list[tuple[int, int]]] = []
        self._left = [room(free[slot], demand) for slot in slots]
        for order, slot in enumerate(slots):
            key = tuple(slot.key(scope) for scope in scopes)
            group = index.setdefault(key, len(index))
            if group == len(self._heaps):
                self._heaps.append([])
            self._group_of.append(group)
            if self._left[order] > 0:
                self._heaps[group].append((-self._left[order], order))
        for heap in self._heaps:
            heapq.heapify(heap)
        self.keys = list(index)

    def changed(self, order: int, free: Mapping[str, int]) -> None:
        left = self._left[order] = room(free, self._demand)
        if left > 0:
            heapq.heappush(self._heaps[self._group_of[order]], (-left, order))

    def top(self, group: int) -> tuple[int, int] | None:
        """(-room, order) of the group's best slot, None if none has
        room."""
        heap = self._heaps[group]
        while heap:
            left, order = heap[0]
            if self._left[order] == -left:
                return heap[0]
            heapq.heappop(heap)
        return None
