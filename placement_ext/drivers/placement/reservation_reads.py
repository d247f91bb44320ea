"""Placement reads of the reservation manager, on top of the driver.

:class:`ReservationPlacement` is the reservation-provider client
(:class:`~placement_ext.drivers.placement.ReservationProviders`: providers,
classes, inventories with generation retries) plus what the manager
reads to decide and to reconcile:

* :meth:`~ReservationPlacement.host_usage`: capacity and usage of one
  host's tree, with ONE ``in_tree`` allocation-candidates call (its
  provider summaries carry capacity and usage of every provider of the
  tree, the ``blazar_<host>`` child included). Only when the host cannot
  take one more instance now (no candidate, so no summaries) does it read
  the inventories and usages themselves (2-3 calls): capacity that is in
  use today may be free during the lease.
* listings of every reservation provider and reservation class.
"""

import dataclasses
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.decision import reservation_names as names
from placement_ext.drivers.placement import driver as pdriver
from placement_ext.drivers.placement import reservation

# The flavor's resource classes: what a reservation's instance takes from
# the compute node (its reservation class comes from the child).
STANDARD_CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')
V_LIST = (1, 14)


@dataclasses.dataclass(frozen=True)
class HostUsage:
    """One host tree as Placement sees it now.

    ``inventories`` and ``usages`` are shaped like Placement's bodies for
    the compute node (``{rc: {total, reserved, allocation_ratio, ...}}``
    and ``{rc: used}``). From provider summaries, ``total`` is already
    ``(total - reserved) * allocation_ratio`` and unit limits are those
    Placement just checked. ``reservation_usages`` are the units of each
    ``CUSTOM_RESERVATION_*`` class in use in the tree (booted reserved
    instances). ``source`` says which way it was read.
    """

    inventories: Mapping[str, Mapping]
    usages: Mapping[str, int]
    reservation_usages: Mapping[str, int]
    source: str


class ReservationPlacement(reservation.ReservationProviders):
    """Reservation providers plus the manager's reads.

    :param driver: the Placement driver (its client is shared).
    """

    def __init__(self, driver: pdriver.PlacementDriver,
                 **kwargs: object) -> None:
        super().__init__(driver.client, **kwargs)
        self.driver = driver

    def host_usage(self, compute_provider_uuid: str,
                   reservation_provider_uuid: str | None,
                   flavor: Mapping[str, int]) -> HostUsage:
        """Capacity and usage of the host, for instances of ``flavor``.

        :param flavor: resource class -> amount of one instance (zero
            amounts are left out of the query).
        :raises NotFound: the compute node provider does not exist.
        """
        wanted = {rc: amount for rc, amount in flavor.items() if amount}
        result = self.driver.candidates_on_host(compute_provider_uuid,
                                                wanted)
        if result.candidates:
            return _from_summaries(result.provider_summaries.values())
        _gen, inventories = self.inventories(compute_provider_uuid)
        usages = self.usages(compute_provider_uuid)
        reserved: dict[str, int] = {}
        if reservation_provider_uuid:
            try:
                reserved = _reservation_classes(
                    self.usages(reservation_provider_uuid))
            except exception.NotFound:
                pass
        return HostUsage(inventories, usages, reserved, 'inventories')

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


def _reservation_classes(amounts: Mapping[str, int]) -> dict[str, int]:
    return {rc: used for rc, used in amounts.items()
            if names.reservation_for_resource_class(rc)}


def _from_summaries(summaries: object) -> HostUsage:
    capacity: dict[str, int] = {}
    used: dict[str, int] = {}
    reserved: dict[str, int] = {}
    for summary in summaries:
        for rc, usage in summary.resources.items():
            if rc in STANDARD_CLASSES:
                capacity[rc] = capacity.get(rc, 0) + usage.capacity
                used[rc] = used.get(rc, 0) + usage.used
            elif names.reservation_for_resource_class(rc):
                reserved[rc] = reserved.get(rc, 0) + usage.used
    inventories = {rc: {'total': total, 'reserved': 0,
                        'allocation_ratio': 1.0, 'min_unit': 1,
                        'max_unit': None, 'step_size': 1}
                   for rc, total in capacity.items()}
    return HostUsage(inventories, used, reserved, 'candidates')
