"""Inputs of a zone reselection: candidate zones (Nova), capacity
(Placement), read fresh at the pre-check and at each reselection (capacity
changes while an operation runs), and degraded with a stated reason when
the account may not read them.
"""

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.conductor import stack_request
from placement_ext.drivers import nova as nova_driver
from placement_ext.drivers import placement as placement_driver

LOG = logging.getLogger(__name__)


class ZoneSource:
    """Candidate zones and per-zone capacity for one conductor.

    :param placement: None disables capacity reads (the ``capacity``
        strategy then ranks every zone as of unknown capacity).
    """

    def __init__(self, nova: nova_driver.NovaDriver,
                 placement: placement_driver.PlacementDriver | None) -> None:
        self._nova = nova
        self._placement = placement

    def candidates(self, request: dict, restrict_to_grant: bool
                   ) -> tuple[list[str], str]:
        """Zones with a working nova-compute, and a note on how we know."""
        listing = self._nova.compute_zones()
        zones, note = list(listing.zones), listing.note
        granted = request.get('grant_zones')
        if restrict_to_grant and granted:
            zones = [zone for zone in zones if zone in granted]
            note = (note + '; ' if note else '') + \
                'candidates restricted to the zones the Grant allowed'
        return zones, note

    def capacity(self, zones: list[str], request: dict, vnfc: str
                 ) -> dict[str, int] | None:
        """Zone -> instances of ``vnfc``'s flavor that still fit, or None.

        None (capacity unknown) when the flavor is not in the request, the
        account cannot list aggregates, or Placement cannot be read.
        """
        resources = stack_request.flavor_resources(request, vnfc)
        if self._placement is None or not resources:
            return None
        aggregates = self._nova.zone_aggregates()
        if not aggregates:
            return None
        try:
            return {zone: self._placement.zone_capacity(
                        aggregates[zone], resources).total
                    for zone in zones if zone in aggregates}
        except exception.PlacementExtError as exc:
            LOG.warning('Zone capacity unavailable, ranking zones without '
                        'it: %s', exc.detail)
            return None


def capacity_by_target(source: ZoneSource, zones: list[str], request: dict,
                       read: dict[str, dict[str, int] | None] | None = None
                       ) -> dict[str, dict[str, int]]:
    """Target -> zone -> instances of its flavor that still fit, read once
    per flavor through ``source.capacity``; targets whose room is unknown
    are left out.

    ``read``: VNFC -> what ``source.capacity`` said for these zones a
    moment ago (the reselection step's own read); its flavor is not
    asked again.
    """
    by_flavor: dict[tuple, dict[str, int] | None] = {
        tuple(sorted(stack_request.flavor_resources(request, vnfc).items())):
        capacity for vnfc, capacity in (read or {}).items()
        if stack_request.flavor_resources(request, vnfc)}
    fits = {}
    for vnfc in request['targets']:
        resources = stack_request.flavor_resources(request, vnfc)
        if not resources:
            continue
        key = tuple(sorted(resources.items()))
        if key not in by_flavor:
            by_flavor[key] = source.capacity(zones, request, vnfc)
        if by_flavor[key] is not None:
            fits[vnfc] = by_flavor[key]
    return fits
