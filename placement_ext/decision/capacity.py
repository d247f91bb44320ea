"""How many instances of one flavor fit on each host for a whole period.

Pure: plain data in, plain data out, no I/O. The manager gathers the
inputs (host inventories and usages from Placement, reservation slots from
our DB) and passes the result to :mod:`placement_ext.decision.host_pickup`.

Overlap semantics
-----------------
A reservation holds ``slots`` instances of its flavor on a host from
``start`` to ``end`` (half-open: a lease ending at 10:00 and one starting
at 10:00 do not overlap; widen the requested period by the cleaning time
if instances need time to go away). For the requested period we sweep the
start/end events of every overlapping reservation on the host and keep the
PEAK concurrent use of each resource. That is exact: counting every
overlapping reservation at once would refuse requests that fit (two
back-to-back reservations never coexist), and counting one instance per
reservation, as upstream Blazar's ``max_usages`` does, overbooks a host
where a reservation holds several slots.

Real usage from Placement
-------------------------
``Host.usage`` is the compute node's current Placement usage. It contains
every running instance: ordinary ones and reserved ones. Reserved
instances are already counted through their reservation's slots over the
reservation's own period, so their part (``ReservedSlots.running`` times
the reservation's flavor) is taken out of the usage first, to count them
once. What remains is usage by non-reserved instances; they have no end
date, so it counts for the whole requested period, whether the lease
starts now or in a month (conservative: an instance deleted meanwhile
frees room we do not promise).

Capacity of a resource is Placement's: ``(total - reserved) *
allocation_ratio``, and a request must satisfy the inventory's
``min_unit``/``max_unit``/``step_size``, or Nova's scheduler would fail.
"""

import dataclasses
import datetime
import math
from collections.abc import Iterable
from collections.abc import Mapping

from placement_ext import exception

# The Placement resource classes of the three flavor fields, in order.
RESOURCE_CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')

_START, _END = 1, 0  # ends sort first: back-to-back reservations reuse
_ZERO = (0, 0, 0)


@dataclasses.dataclass(frozen=True, slots=True)
class Resources:
    """One instance's flavor, or a usage, in Placement's units."""

    vcpus: int = 0
    memory_mb: int = 0
    disk_gb: int = 0

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.vcpus, self.memory_mb, self.disk_gb)

    @classmethod
    def from_placement(cls, amounts: Mapping[str, int]) -> 'Resources':
        """From a Placement usages body (``{"VCPU": 2, ...}``)."""
        return cls(*(int(amounts.get(rc, 0)) for rc in RESOURCE_CLASSES))


@dataclasses.dataclass(frozen=True, slots=True)
class Inventory:
    """One resource class of a host, as Placement records it."""

    total: int
    reserved: int = 0
    allocation_ratio: float = 1.0
    min_unit: int = 1
    max_unit: int | None = None  # None: no per-instance limit
    step_size: int = 1

    @property
    def capacity(self) -> int:
        # Placement refuses when used + amount > (total - reserved) * ratio;
        # amounts are integers, so flooring the product gives the same test.
        return max(0, math.floor(
            (self.total - self.reserved) * self.allocation_ratio))

    def accepts(self, amount: int) -> bool:
        """Whether one instance asking ``amount`` passes the unit rules."""
        if amount == 0:
            return True  # Nova does not ask for a zero amount at all
        max_unit = self.total if self.max_unit is None else self.max_unit
        return (self.min_unit <= amount <= max_unit
                and amount % max(1, self.step_size) == 0)

    @classmethod
    def from_placement(cls, record: Mapping | None) -> 'Inventory':
        """From one entry of ``GET /resource_providers/{u}/inventories``."""
        if not record:
            return cls(total=0)
        return cls(total=int(record['total']),
                   reserved=int(record.get('reserved', 0)),
                   allocation_ratio=float(record.get('allocation_ratio', 1.0)),
                   min_unit=int(record.get('min_unit', 1)),
                   max_unit=_optional_int(record.get('max_unit')),
                   step_size=int(record.get('step_size', 1)))


def _optional_int(value: object) -> int | None:
    return None if value is None else int(value)


@dataclasses.dataclass(frozen=True, slots=True)
class Host:
    """A reservable host: inventories and current usage of its compute
    node resource provider (named after the hypervisor hostname)."""

    name: str
    vcpus: Inventory
    memory_mb: Inventory
    disk_gb: Inventory
    usage: Resources = Resources()
    # worked out once (a manager reuses the host for every lease create
    # while its view holds): each inventory's capacity, the usage, and
    # the unit rules (hosts of one hardware share them)
    capacities: tuple[int, int, int] = dataclasses.field(
        init=False, repr=False, compare=False)
    used: tuple[int, int, int] = dataclasses.field(
        init=False, repr=False, compare=False)
    unit_rules: tuple = dataclasses.field(
        init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        inventories = self.inventories()
        object.__setattr__(self, 'capacities', tuple(
            inventory.capacity for inventory in inventories))
        object.__setattr__(self, 'used', self.usage.as_tuple())
        object.__setattr__(self, 'unit_rules', tuple(
            (inventory.total, inventory.min_unit, inventory.max_unit,
             inventory.step_size) for inventory in inventories))

    def inventories(self) -> tuple[Inventory, Inventory, Inventory]:
        return (self.vcpus, self.memory_mb, self.disk_gb)

    @classmethod
    def from_placement(cls, name: str, inventories: Mapping,
                       usages: Mapping[str, int] | None = None) -> 'Host':
        """From the ``inventories`` and ``usages`` dicts Placement returns
        for the host's root provider."""
        return cls(name, *(Inventory.from_placement(inventories.get(rc))
                           for rc in RESOURCE_CLASSES),
                   usage=Resources.from_placement(usages or {}))


@dataclasses.dataclass(frozen=True, slots=True)
class ReservedSlots:
    """What one reservation holds on one host (its allocation rows)."""

    reservation_id: str
    host: str
    start: datetime.datetime
    end: datetime.datetime
    per_instance: Resources
    slots: int
    # Instances booted on these slots now: the Placement usage of the
    # reservation's resource class on the host's ``blazar_<host>`` provider.
    running: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class HostCapacity:
    """Instances that fit on ``host`` for the whole period, and the
    resource class that bounds that number."""

    host: str
    slots: int
    limited_by: str


def host_capacities(hosts: Iterable[Host],
                    reservations: Iterable[ReservedSlots],
                    request: Resources,
                    start: datetime.datetime,
                    end: datetime.datetime,
                    exclude_reservation_id: str | None = None,
                    ) -> list[HostCapacity]:
    """Instances of ``request`` that fit on each host over [start, end).

    :param hosts: candidate hosts (already filtered by the caller, e.g. on
        resource properties or physical host reservations).
    :param reservations: slots held by reservations on those hosts. Pass
        every reservation with slots or running instances on them; the ones
        that do not overlap the period only count through ``running``.
        Entries on hosts not in ``hosts`` are ignored.
    :param exclude_reservation_id: the reservation being updated: its own
        slots are not counted against it.
    :returns: one entry per host, sorted by host name.
    :raises InvalidInput: on a malformed request, period or duplicate host.
    """
    _check_request(request, start, end)
    host_list = sorted(hosts, key=lambda h: h.name)
    names = [h.name for h in host_list]
    if len(set(names)) != len(names):
        raise exception.InvalidInput(field='hosts',
                                     reason='a host is listed twice')
    running, peak = _reserved_use(set(names), reservations, start, end,
                                  exclude_reservation_id)
    asked = request.as_tuple()
    refusals: dict[tuple, int | None] = {}   # unit rules -> refused at
    out = []
    for host in host_list:
        rules = host.unit_rules
        if rules not in refusals:
            refusals[rules] = _refused(host, asked)
        refused = refusals[rules]
        if refused is not None:
            out.append(HostCapacity(host.name, 0, RESOURCE_CLASSES[refused]))
        else:
            out.append(_fit(host, asked, running.get(host.name, _ZERO),
                            peak.get(host.name, _ZERO)))
    return out


def slots_by_host(capacities: Iterable[HostCapacity]) -> dict[str, int]:
    """The ``{host: slots}`` mapping that host pickup takes."""
    return {cap.host: cap.slots for cap in capacities}


def _check_request(request: Resources, start: datetime.datetime,
                   end: datetime.datetime) -> None:
    for field, value in zip(('vcpus', 'memory_mb', 'disk_gb'),
                            request.as_tuple(), strict=True):
        if isinstance(value, bool) or not isinstance(value, int) \
                or value < 0:
            raise exception.InvalidInput(
                field=field, reason='must be an integer >= 0')
    if not any(request.as_tuple()):
        raise exception.InvalidInput(
            field='vcpus', reason='an instance must ask for some resource')
    if not start < end:
        raise exception.InvalidInput(
            field='end_date', reason='must be later than start_date')


def _reserved_use(names: set[str], reservations: Iterable[ReservedSlots],
                  start: datetime.datetime, end: datetime.datetime,
                  exclude: str | None) -> tuple[dict, dict]:
    """Per host: usage of reserved instances running now, and the peak
    use of reserved slots during [start, end)."""
    running: dict[str, tuple[int, int, int]] = {}
    spans: dict[str, list] = {}
    for res in reservations:
        host = res.host
        if host not in names:
            continue
        vcpus, memory_mb, disk_gb = res.per_instance.as_tuple()
        if res.running:
            n = res.running
            used = running.get(host, (0, 0, 0))
            running[host] = (used[0] + n * vcpus, used[1] + n * memory_mb,
                             used[2] + n * disk_gb)
        if (res.reservation_id == exclude or res.slots <= 0
                or not (res.start < end and start < res.end)):
            continue
        n = res.slots
        spans.setdefault(host, []).append(
            (max(res.start, start), min(res.end, end),
             (n * vcpus, n * memory_mb, n * disk_gb)))
    return running, {host: _peak(held) for host, held in spans.items()}


def _peak(spans: list) -> tuple[int, int, int]:
    """The peak of each resource over one host's reserved spans (from,
    to, held), swept in time order."""
    if len(spans) == 1:
        return spans[0][2]
    events = sorted([(begin, _START, held) for begin, _end, held in spans]
                    + [(finish, _END, held) for _begin, finish, held in spans],
                    key=lambda event: (event[0], event[1]))
    now = [0, 0, 0]
    top = [0, 0, 0]
    for _when, kind, held in events:
        sign = 1 if kind == _START else -1
        for i in range(3):
            now[i] += sign * held[i]
            if now[i] > top[i]:
                top[i] = now[i]
    return tuple(top)


def _refused(host: Host, request: tuple[int, int, int]) -> int | None:
    """The first resource whose unit rules refuse one instance, if any."""
    for i, inventory in enumerate(host.inventories()):
        if not inventory.accepts(request[i]):
            return i
    return None


def _fit(host: Host, request: tuple[int, int, int],
         running: tuple[int, int, int],
         peak: tuple[int, int, int]) -> HostCapacity:
    """Instances that fit on a host whose unit rules accept one."""
    best, limited_by = None, 0
    capacities, used = host.capacities, host.used
    for i in (0, 1, 2):
        asked = request[i]
        if asked == 0:
            continue
        # Non-reserved usage: Placement's usage minus reserved instances.
        ordinary = used[i] - running[i]
        fits = (capacities[i] - (ordinary if ordinary > 0 else 0)
                - peak[i]) // asked
        if fits < 0:
            fits = 0
        if best is None or fits < best:
            best, limited_by = fits, i
    return HostCapacity(host.name, best or 0, RESOURCE_CLASSES[limited_by])
