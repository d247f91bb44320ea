"""Inputs of an NFVO-side Grant evaluation, read from the live cloud.

:mod:`placement_ext.decision.grant_evaluator` decides on a
:class:`~placement_ext.decision.cloud_zones.Cloud`; here it is built
from Nova (zones and their aggregates, flavours, where existing servers
are) and Placement (what each host of each zone can still take), for the
VDUs of one GrantRequest.
"""

from collections.abc import Iterable
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.decision import cloud_zones
from placement_ext.decision import flavors
from placement_ext.drivers import nova as nova_driver
from placement_ext.drivers import placement as placement_driver


def flavour_amounts(vdu_sizes: Mapping[str, dict], nova_flavors: list[dict]
                    ) -> dict[str, dict[str, int]]:
    """VDU -> Placement amounts of one instance, from the VNFD's flavour
    names (or sizes) and Nova's flavours; unknown flavours are left out
    (the evaluator then refuses, naming the VDU)."""
    by_key = flavors.by_name_or_id(nova_flavors)
    found = {}
    for vdu, size in vdu_sizes.items():
        if size.get('flavor') in by_key:
            found[vdu] = flavors.resources(by_key[size['flavor']])
        elif size.get('vcpus'):
            found[vdu] = {'VCPU': size['vcpus']}
    return found


class CloudReader:
    """Builds the evaluator's view of the cloud, one Grant at a time."""

    def __init__(self, nova: nova_driver.NovaDriver,
                 placement: placement_driver.PlacementDriver) -> None:
        self._nova = nova
        self._placement = placement

    def nova_flavors(self) -> list[dict]:
        return self._nova.flavors()

    def cloud(self, flavours: Mapping[str, Mapping[str, int]],
              existing_ids: Iterable[str] = (),
              vim_connection_id: str | None = None,
              hosts_of: Iterable[str] = ()) -> cloud_zones.Cloud:
        """Every compute zone with the hosts that can take the smallest
        of ``flavours``, and where the servers ``existing_ids`` are: their
        zone, and for those of ``hosts_of`` (members of a host-scope
        constraint) their compute node, named as the zones' hosts are
        (its resource provider, the compute node's uuid).

        :raises ServiceUnavailable: the account cannot list the zones'
            aggregates (admin only), so no capacity can be read.
        """
        with_host = set(hosts_of)
        aggregates = self._nova.zone_aggregates()
        if not aggregates:
            raise exception.ServiceUnavailable(
                service='nova', reason='no zone aggregates are readable '
                                       'with these credentials (admin '
                                       'only): zone capacity is unknown')
        smallest = min(flavours.values(), key=lambda r: sum(r.values()),
                       default={'VCPU': 1})
        zones = tuple(
            cloud_zones.Zone(zone, tuple(
                cloud_zones.Host(uuid, free) for uuid, free in sorted(
                    self._placement.zone_hosts(aggregates[zone],
                                               smallest).items())))
            for zone in self._nova.compute_zones().zones
            if zone in aggregates)
        return cloud_zones.Cloud(
            zones=zones, flavours=dict(flavours),
            existing={rid: self._location(rid, rid in with_host)
                      for rid in existing_ids},
            vim_connection_id=vim_connection_id)

    def _location(self, server_id: str,
                  with_host: bool) -> cloud_zones.Location:
        host, node = self._nova.server_node(server_id)
        if host is None:
            raise exception.NotFound(kind='server host', id=server_id)
        zone = self._nova.compute_zone(host)
        if not with_host or node is None:
            return cloud_zones.Location(zone)
        return cloud_zones.Location(zone, self._nova.hypervisor(node).id)
