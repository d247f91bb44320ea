"""Which hosts get the slots of an instance reservation.

Pure: takes the free slots per host (from
:func:`placement_ext.decision.capacity.host_capacities`), the amount and
the affinity policy, and returns a deterministic allocation or a refusal
with its reason.

Policies (``affinity`` is the nullable column of the reservation):

* ``True``: every slot on one host.
* ``False``: one slot on each of ``amount`` distinct hosts.
* ``None``: any mix, packed onto the fewest hosts.

Among equally good choices we take the fullest hosts (fewest free slots)
so that whole hosts stay free for later requests, then the host name.

Updates: pass the slots the reservation already holds as ``current``, and
capacities computed with ``exclude_reservation_id`` set to it (so its own
slots count as free). Hosts it already uses are kept first, so an update
moves as few instances as possible; :func:`allocation_changes` gives the
per-host difference to apply.
"""

import bisect
import dataclasses
from collections.abc import Mapping

from placement_ext import exception


@dataclasses.dataclass(frozen=True, slots=True)
class Pickup:
    """``allocations`` is ``((host, slots), ...)`` sorted by host; empty
    with a ``reason`` when the request cannot be met."""

    allocations: tuple[tuple[str, int], ...] = ()
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None


def pick_hosts(capacities: Mapping[str, int], amount: int,
               affinity: bool | None,
               current: Mapping[str, int] | None = None) -> Pickup:
    """Choose hosts for ``amount`` instances under ``affinity``.

    :param capacities: free slots per host for the whole lease period.
    :param current: slots the reservation already holds per host (update).
    :raises InvalidInput: on a malformed amount, affinity or mapping.
    """
    _check_input(capacities, amount, affinity, current or {})
    current = {host: n for host, n in (current or {}).items() if n > 0}
    if affinity is True:
        return _one_host(capacities, amount, current)
    if affinity is False:
        return _distinct_hosts(capacities, amount, current)
    return _packed(capacities, amount, current)


def allocation_changes(current: Mapping[str, int],
                       allocations: tuple[tuple[str, int], ...],
                       ) -> tuple[tuple[str, int], ...]:
    """``((host, delta), ...)`` sorted by host, without zero deltas:
    positive to add slots on the host, negative to remove them."""
    wanted = dict(allocations)
    hosts = sorted(set(current) | set(wanted))
    deltas = ((host, wanted.get(host, 0) - current.get(host, 0))
              for host in hosts)
    return tuple((host, delta) for host, delta in deltas if delta)


def _check_input(capacities: Mapping[str, int], amount: int,
                 affinity: object, current: Mapping[str, int]) -> None:
    if not _is_count(amount) or amount < 1:
        raise exception.InvalidInput(field='amount',
                                     reason='must be an integer >= 1')
    if not any(affinity is allowed for allowed in (True, False, None)):
        raise exception.InvalidInput(
            field='affinity', reason='must be True, False or None')
    for field, mapping in (('capacities', capacities), ('current', current)):
        for host, count in mapping.items():
            if not _is_count(count) or count < 0:
                raise exception.InvalidInput(
                    field=field,
                    reason='%s: slots must be an integer >= 0' % host)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _by_current(current: Mapping[str, int]) -> list[str]:
    """Hosts the reservation uses, most slots first."""
    return sorted(current, key=lambda host: (-current[host], host))


def _result(picked: Mapping[str, int]) -> Pickup:
    return Pickup(tuple(sorted(picked.items())))


def _one_host(capacities: Mapping[str, int], amount: int,
              current: Mapping[str, int]) -> Pickup:
    kept = [host for host in _by_current(current)
            if capacities.get(host, 0) >= amount]
    if kept:
        return _result({kept[0]: amount})
    fitting = [(free, host) for host, free in capacities.items()
               if free >= amount]
    if fitting:
        # Best fit: the fullest host that still holds every slot.
        return _result({min(fitting)[1]: amount})
    # The host closest to enough: most free slots, then the first name.
    best = min(((free, host) for host, free in capacities.items()
                if free > 0), key=lambda fh: (-fh[0], fh[1]), default=None)
    have = ('no host has a free slot' if best is None else
            'the best host (%s) has %d' % (best[1], best[0]))
    return Pickup(reason='affinity=True needs one host with %d free slots; '
                         '%s' % (amount, have))


def _distinct_hosts(capacities: Mapping[str, int], amount: int,
                    current: Mapping[str, int]) -> Pickup:
    kept = [host for host in _by_current(current)
            if capacities.get(host, 0) >= 1]
    others = sorted((free, host) for host, free in capacities.items()
                    if free >= 1 and host not in current)
    chosen = (kept + [host for _free, host in others])[:amount]
    if len(chosen) < amount:
        return Pickup(reason='affinity=False needs %d distinct hosts with '
                             'a free slot; only %d have one'
                             % (amount, len(chosen)))
    return _result(dict.fromkeys(chosen, 1))


def _packed(capacities: Mapping[str, int], amount: int,
            current: Mapping[str, int]) -> Pickup:
    free_total = sum(capacities.values())
    if free_total < amount:
        return Pickup(reason='affinity=None needs %d free slots; the %d '
                             'hosts have %d in total'
                             % (amount, len(capacities), free_total))
    picked: dict[str, int] = {}
    remaining = amount
    order = _by_current(current)
    # Keep the slots the reservation holds, then grow on the same hosts.
    for keep_only in (True, False):
        for host in order:
            room = capacities.get(host, 0)
            if keep_only:
                room = min(room, current[host])
            take = min(room - picked.get(host, 0), remaining)
            if take > 0:
                picked[host] = picked.get(host, 0) + take
                remaining -= take
    if remaining:
        pool = {host: free for host, free in capacities.items()
                if free > 0 and host not in current}
        picked.update(_fewest_hosts(pool, remaining))
    return _result(picked)


def _fewest_hosts(pool: Mapping[str, int], amount: int) -> dict[str, int]:
    """Spread ``amount`` slots over the fewest hosts of ``pool``, using
    the fullest hosts that still allow that fewest count.

    The fewest count ``k`` is how many of the largest hosts it takes to
    reach ``amount``. Then, ``j`` hosts still to choose, we take the
    smallest host ``c`` with ``c + (sum of the j-1 largest others) >=
    remaining``: the rest can still be done with ``j - 1`` hosts, so the
    total stays ``k``. Requires ``sum(pool.values()) >= amount``.
    """
    ordered = sorted((free, host) for host, free in pool.items())
    needed, reached = 0, 0
    for free, _host in reversed(ordered):
        if reached >= amount:
            break
        needed, reached = needed + 1, reached + free
    picked: dict[str, int] = {}
    remaining = amount
    for hosts_left in range(needed, 0, -1):
        if remaining <= 0:
            break
        largest_others = sum(free for free, _host in
                             ordered[len(ordered) - hosts_left + 1:])
        at_least = max(1, remaining - largest_others)
        free, host = ordered.pop(bisect.bisect_left(ordered, (at_least,)))
        picked[host] = min(free, remaining)
        remaining -= picked[host]
    return picked
