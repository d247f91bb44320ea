"""What a lease decision counts on a host: held slots and pool views.

Pure functions over plain data (no I/O): the manager reads the live
reservations' slots (holdings) and Placement's usages
(:mod:`placement_ext.manager.capacity_inputs`), these turn them into the
inputs of :func:`placement_ext.decision.capacity.host_capacities`, and
say whether a view of a host read in one call still holds in a bulk
read of the pool.

The arguments are typed by their shape (``Protocol``), so the objects
and driver types that have it are taken as they are.
"""

import datetime
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Protocol
from typing import TypeVar

from placement_ext.decision import capacity


class Held(Protocol):
    """A live reservation's slots on one host
    (:class:`placement_ext.objects.lease.Holding`)."""

    @property
    def reservation_id(self) -> str: ...

    @property
    def host_id(self) -> int: ...

    @property
    def start(self) -> datetime.datetime: ...

    @property
    def end(self) -> datetime.datetime: ...

    @property
    def vcpus(self) -> int: ...

    @property
    def memory_mb(self) -> int: ...

    @property
    def disk_gb(self) -> int: ...

    @property
    def slots(self) -> int: ...

    @property
    def resource_class(self) -> str: ...


class _Used(Protocol):
    """A host's compute node usages, and the units of each reservation
    class in use on the host."""

    @property
    def usages(self) -> Mapping[str, int]: ...

    @property
    def reservation_usages(self) -> Mapping[str, int]: ...


class Usage(_Used, Protocol):
    """A host tree as Placement shows it (``HostUsage`` of the
    Placement driver), with the compute node's inventories."""

    @property
    def inventories(self) -> Mapping[str, Mapping]: ...


class Tree(_Used, Protocol):
    """A compute node tree in a bulk read of the pool (``PoolUsage``):
    capacities instead of inventories."""

    @property
    def capacities(self) -> Mapping[str, int]: ...


class Named(Protocol):
    @property
    def hypervisor_hostname(self) -> str: ...


_H = TypeVar('_H', bound=Held)
# (inventories, usages, reservation_usages) of a host as the decision
# takes them
View = tuple[dict[str, dict], dict[str, int], dict[str, int]]


def widened(start: datetime.datetime, end: datetime.datetime,
            cleaning: datetime.timedelta
            ) -> tuple[datetime.datetime, datetime.datetime]:
    """The period a decision for [start, end) counts the slots held in:
    Blazar's ``cleaning_time`` on each side, as upstream widens a new
    reservation's period before it looks for overlapping ones, so that
    two reservations of one host are at least that far apart."""
    return start - cleaning, end + cleaning


def during(holdings: Iterable[_H], start: datetime.datetime,
           end: datetime.datetime, usages: Mapping[int, Usage]) -> list[_H]:
    """The holdings a decision for [start, end) counts: those that
    overlap it, and those with reserved instances running now (their
    usage is Placement's; a started reservation's slots are counted
    through them)."""
    out = []
    for held in holdings:
        if held.start < end and start < held.end:
            out.append(held)
            continue
        usage = usages.get(held.host_id)
        if usage and usage.reservation_usages.get(held.resource_class):
            out.append(held)
    return out


def reserved_slots(holdings: Iterable[Held], hosts: Mapping[int, Named],
                   usages: Mapping[int, Usage]
                   ) -> list[capacity.ReservedSlots]:
    """Slots of live reservations, with the reserved instances running
    on them now (their reservation class's usage on the host); holdings
    on hosts not in ``hosts`` are left out."""
    out = []
    for held in holdings:
        host = hosts.get(held.host_id)
        if host is None:
            continue
        usage = usages.get(held.host_id)
        running = (usage.reservation_usages.get(held.resource_class, 0)
                   if usage else 0)
        out.append(capacity.ReservedSlots(
            reservation_id=held.reservation_id,
            host=host.hypervisor_hostname, start=held.start, end=held.end,
            per_instance=capacity.Resources(held.vcpus, held.memory_mb,
                                            held.disk_gb),
            slots=held.slots, running=running))
    return out


def view_matches(usage: Usage, tree: Tree) -> bool:
    """Whether Placement's tree now gives the decision what the view
    gave it: the same capacities, ordinary and reserved usages."""
    return (_capacities(usage.inventories) == dict(tree.capacities)
            and _used(usage.usages) == _used(tree.usages)
            and _used(usage.reservation_usages)
            == _used(tree.reservation_usages))


def pool_view(sizes: tuple[int, int, int], tree: Tree | None,
              kept_inventories: Mapping[str, dict] | None) -> View | None:
    """A host's view from its tree in a bulk read of the pool, with the
    inventories of its kept view, or for a host without one (the first
    lease after the upgrade, or a view forgotten) inventories made from
    the capacities; None when the tree is missing or its capacities show
    that the kept inventories changed.

    :param sizes: the host's own vcpus, memory_mb and local_gb (as Nova
        reported them at enrolment).
    """
    if tree is None:
        return None
    if kept_inventories is None:
        inventories = inventories_from(sizes, tree.capacities)
    else:
        inventories = dict(kept_inventories)
        if _capacities(inventories) != dict(tree.capacities):
            return None
    return inventories, dict(tree.usages), dict(tree.reservation_usages)


def inventories_from(sizes: tuple[int, int, int],
                     capacities: Mapping[str, int]) -> dict[str, dict]:
    """Inventories with Placement's capacities (the bulk read has no
    total, reserved or ratio, only their product) and the unit limits
    Nova's compute driver sets: at most the host's own size per
    instance, in steps of one."""
    per_class = dict(zip(capacity.RESOURCE_CLASSES, sizes, strict=True))
    return {rc: {'total': total, 'reserved': 0, 'allocation_ratio': 1.0,
                 'min_unit': 1, 'max_unit': min(total, per_class[rc]),
                 'step_size': 1}
            for rc, total in capacities.items()}


def _capacities(inventories: Mapping[str, Mapping]) -> dict[str, int]:
    return {rc: capacity.Inventory.from_placement(inv).capacity
            for rc, inv in inventories.items()}


def _used(amounts: Mapping[str, int]) -> dict[str, int]:
    return {rc: int(n) for rc, n in amounts.items() if n}
