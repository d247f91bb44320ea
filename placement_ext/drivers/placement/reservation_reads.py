"""Placement reads of the reservation manager, on top of the driver.

:class:`ReservationPlacement` is the reservation-provider client
(:class:`~placement_ext.drivers.placement.ReservationProviders`: providers,
classes, inventories with generation retries) plus what the manager
reads to decide and to reconcile:

* :meth:`~ReservationPlacement.pool_generations`: the generation of
  every compute node of the free pool, in one call, to tell which hosts
  changed since they were last read;
* :meth:`~ReservationPlacement.host_usage`: inventories and usages of
  one host's compute node (and its reservation provider's usage), the
  same for every flavor, so the manager can keep them;
* :meth:`~ReservationPlacement.pool_usages`: the usage of every compute
  node of the free pool (and of its reservation provider) with its
  capacities, in one call, for many changed hosts at once;
* :meth:`~ReservationPlacement.tree_usage`: the same for one compute
  node (a host a decision chose), in one call;
* listings of every reservation provider and reservation class.
"""

import dataclasses
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.drivers.placement import candidates as ac
from placement_ext.drivers.placement import driver as pdriver
from placement_ext.drivers.placement import reservation
from placement_ext.vocabulary import reservation_names as names

# The flavor's resource classes: what a reservation's instance takes from
# the compute node (its reservation class comes from the child).
STANDARD_CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')
V_LIST = (1, 14)
# Provider summaries of whole trees (parent and root UUIDs), every class.
BULK_VERSION = (1, 29)
# What every compute node has, asked once so that every tree with room
# for it is summarised.
BULK_PROBE = 'MEMORY_MB'


@dataclasses.dataclass(frozen=True)
class HostUsage:
    """One host tree as Placement sees it now.

    ``inventories`` and ``usages`` are Placement's bodies for the compute
    node (``{rc: {total, reserved, allocation_ratio, ...}}`` and ``{rc:
    used}``), VCPU, MEMORY_MB and DISK_GB only. ``reservation_usages``
    are the units of each ``CUSTOM_RESERVATION_*`` class in use on its
    reservation provider (booted reserved instances). ``source`` says
    where it came from (``inventories``: read now; ``kept``: stored).
    """

    inventories: Mapping[str, Mapping]
    usages: Mapping[str, int]
    reservation_usages: Mapping[str, int]
    source: str


@dataclasses.dataclass(frozen=True)
class PoolUsage:
    """One compute node tree in an allocation-candidates answer:
    ``capacities`` (``(total - reserved) * allocation_ratio``) and
    ``usages`` of the compute node's VCPU, MEMORY_MB and DISK_GB, and the
    ``CUSTOM_RESERVATION_*`` units in use below it."""

    capacities: Mapping[str, int]
    usages: Mapping[str, int]
    reservation_usages: Mapping[str, int]


class ReservationPlacement(reservation.ReservationProviders):
    """Reservation providers plus the manager's reads.

    :param driver: the Placement driver (its client is shared).
    """

    def __init__(self, driver: pdriver.PlacementDriver,
                 **kwargs: object) -> None:
        super().__init__(driver.client, **kwargs)
        self.driver = driver

    def pool_generations(self, aggregate_uuid: str) -> dict[str, int]:
        """Provider UUID -> generation of every provider in the aggregate
        (one call: the free pool's compute nodes, as Nova mirrors its
        host aggregates into Placement)."""
        body = self.client.request(
            'GET', '/resource_providers', what='/resource_providers?member_of',
            microversion=V_LIST, params={'member_of': aggregate_uuid}).json()
        return {rp['uuid']: rp['generation']
                for rp in body['resource_providers']}

    def pool_usages(self, aggregate_uuid: str) -> dict[str, PoolUsage]:
        """Compute node provider UUID -> :class:`PoolUsage` of every tree
        of the aggregate with a megabyte of memory free, in one call.

        Placement has no bulk read of usages; the provider summaries of
        ``GET /allocation_candidates`` (1.29: whole trees, every class)
        are one. A tree without a free megabyte is left out (the caller
        reads it alone); so are inventories' unit limits.
        """
        self.client.require(BULK_VERSION, 'reading the free pool in bulk')
        body = self.client.request(
            'GET', '/allocation_candidates',
            what='/allocation_candidates?member_of', microversion=BULK_VERSION,
            params={'resources': f'{BULK_PROBE}:1',
                    'member_of': aggregate_uuid}).json()
        return _trees(ac.AllocationCandidates.from_json(
            body, '.'.join(map(str, BULK_VERSION))).provider_summaries)

    def tree_usage(self, compute_provider_uuid: str,
                   resources: Mapping[str, int]) -> PoolUsage | None:
        """The :class:`PoolUsage` of one host's tree, in one call
        (``in_tree``); None when it has no room for ``resources`` (one
        instance of the flavor, so Placement applies the unit limits
        too) now.

        Placement puts every allocation request in one tree, so there
        is no such read of several named trees at once.

        :raises NotFound: the compute node provider does not exist.
        """
        found = self.driver.candidates_on_host(
            compute_provider_uuid,
            {rc: n for rc, n in resources.items() if n})
        return _trees(found.provider_summaries).get(compute_provider_uuid)

    def host_usage(self, compute_provider_uuid: str,
                   reservation_provider_uuid: str | None
                   ) -> tuple[int, HostUsage]:
        """(generation, usage) of the host's compute node provider.

        Inventories come with the generation they were read at, and the
        usages are read after them, so the answer is at least as new as
        that generation. Two calls; a third for the reservation
        provider's usage only when something runs on the host. Unlike an
        allocation-candidates answer this is the same for every flavor
        (unit limits included), so it can be kept.

        :raises NotFound: the compute node provider does not exist.
        """
        generation, inventories = self.inventories(compute_provider_uuid)
        usages = _standard(self.usages(compute_provider_uuid))
        reserved: dict[str, int] = {}
        # a reserved instance takes its flavor from the compute node too
        if reservation_provider_uuid and any(usages.values()):
            try:
                reserved = _reservation_classes(
                    self.usages(reservation_provider_uuid))
            except exception.NotFound:
                pass
        return generation, HostUsage(_standard(inventories), usages,
                                     reserved, 'inventories')

    def reservation_providers(self) -> list[reservation.Provider]:
        """Every ``blazar_*`` provider, by name (one call)."""
        body = self.client.request(
            'GET', '/resource_providers', what='/resource_providers',
            microversion=V_LIST).json()
        found = [reservation.Provider.from_json(rp)
                 for rp in body['resource_providers']
                 if names.hostname_for_provider(rp['name'])]
        return sorted(found, key=lambda rp: rp.name)

    def reservation_classes(self) -> list[str]:
        """Every ``CUSTOM_RESERVATION_<ID>`` resource class (one call)."""
        body = self.client.request(
            'GET', '/resource_classes', what='/resource_classes',
            microversion=V_LIST).json()
        return sorted(rc['name'] for rc in body['resource_classes']
                      if names.reservation_for_resource_class(rc['name']))

    def consumers(self, provider_uuid: str, resource_class: str
                  ) -> list[str]:
        """Consumers (server UUIDs) holding ``resource_class`` there."""
        try:
            allocations = self.allocations(provider_uuid)
        except exception.NotFound:
            return []
        return sorted(consumer for consumer, amounts in allocations.items()
                      if amounts.get(resource_class))


def _trees(summaries: Mapping[str, ac.ProviderSummary]
           ) -> dict[str, PoolUsage]:
    """Root UUID -> :class:`PoolUsage` from the provider summaries of
    an allocation-candidates answer (1.29: whole trees)."""
    trees: dict[str, tuple[dict, dict, dict]] = {}
    for uuid, summary in summaries.items():
        root = summary.root_provider_uuid
        capacities, usages, reserved = trees.setdefault(root, ({}, {}, {}))
        for rc, usage in summary.resources.items():
            if uuid == root and rc in STANDARD_CLASSES:
                capacities[rc] = usage.capacity
                usages[rc] = usage.used
            elif uuid != root and names.reservation_for_resource_class(rc):
                reserved[rc] = reserved.get(rc, 0) + usage.used
    return {root: PoolUsage(*parts) for root, parts in trees.items()}


def _standard(by_class: Mapping[str, object]) -> dict:
    return {rc: value for rc, value in by_class.items()
            if rc in STANDARD_CLASSES}


def _reservation_classes(amounts: Mapping[str, int]) -> dict[str, int]:
    return {rc: used for rc, used in amounts.items()
            if names.reservation_for_resource_class(rc)}
