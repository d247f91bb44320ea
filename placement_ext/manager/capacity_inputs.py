"""Inputs of the capacity decision, read from Placement and the database.

For every candidate host, one Placement read gives its capacity, its
real usage and how many reserved instances run on it per reservation
class (:meth:`ReservationPlacement.host_usage`, ``in_tree``). The
database gives every live reservation's slots on those hosts. Both
become the plain data :func:`placement_ext.decision.capacity.
host_capacities` takes.
"""

from collections.abc import Iterable
from collections.abc import Mapping

from placement_ext.decision import capacity
from placement_ext.drivers.placement import reservation_reads
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj

Usages = Mapping[int, reservation_reads.HostUsage]


def flavor_of(request: capacity.Resources) -> dict[str, int]:
    """The Placement resources one instance of ``request`` takes."""
    return dict(zip(capacity.RESOURCE_CLASSES, request.as_tuple(),
                    strict=True))


def read_usages(placement: reservation_reads.ReservationPlacement,
                hosts: Iterable[host_obj.Host],
                request: capacity.Resources) -> dict[int, object]:
    """Host id -> HostUsage, one ``in_tree`` query per host."""
    flavor = flavor_of(request)
    return {host.id: placement.host_usage(host.compute_provider_uuid,
                                          host.reservation_provider_uuid,
                                          flavor)
            for host in hosts}


def decision_hosts(hosts: Iterable[host_obj.Host],
                   usages: Usages) -> list[capacity.Host]:
    return [capacity.Host.from_placement(host.hypervisor_hostname,
                                         usages[host.id].inventories,
                                         usages[host.id].usages)
            for host in hosts]


def reserved_slots(holdings: Iterable[lease_obj.Holding],
                   hosts: Mapping[int, host_obj.Host],
                   usages: Usages) -> list[capacity.ReservedSlots]:
    """Slots of live reservations, with the reserved instances running
    on them now (their reservation class's usage on the host)."""
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
