"""The cloud as the grant evaluator sees it: zones, hosts, flavours.

Plain data the caller builds (from Placement inventories and usages, or
from the ``--zones`` file of ``placement-ext grant evaluate``, whose
format :mod:`placement_ext.schemas.grant_evaluation` describes).
"""

import dataclasses
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.decision import placement_search as search
from placement_ext.schemas import grant_evaluation as zones_schema
from placement_ext.schemas import validate as schema_validate
from placement_ext.vocabulary import sol_enums

# Scopes whose instances are hosts: they need an allocated resource's host.
HOST_SCOPES = (sol_enums.NFVI_NODE, sol_enums.CIS_NODE)


@dataclasses.dataclass(frozen=True)
class Host:
    name: str
    free: Mapping[str, int]


@dataclasses.dataclass(frozen=True)
class Zone:
    zone_id: str
    hosts: tuple[Host, ...]
    zone_group: str | None = None
    nfvi_pop: str | None = None


@dataclasses.dataclass(frozen=True)
class Location:
    """Where an allocated resource is."""

    zone_id: str
    host: str | None = None


@dataclasses.dataclass(frozen=True)
class Cloud:
    """Zones with their hosts' free capacity, flavours, allocated ones.

    :ivar flavours: resourceTemplateId -> consumption of one instance.
    :ivar existing: VIM resource id -> Location (RES_MGMT references).
    """

    zones: tuple[Zone, ...]
    flavours: Mapping[str, Mapping[str, int]] = dataclasses.field(
        default_factory=dict)
    existing: Mapping[str, Location] = dataclasses.field(
        default_factory=dict)
    vim_connection_id: str | None = None

    @classmethod
    def from_dict(cls, data: object) -> 'Cloud':
        """Validate a zones document (see ``schemas.grant_evaluation``)."""
        schema_validate.validate(zones_schema.CLOUD_ZONES_V1_0, data,
                                 'zones')
        cloud = cls(
            zones=tuple(Zone(
                zone['zoneId'],
                tuple(Host(h['name'], h['free']) for h in zone['hosts']),
                zone.get('zoneGroup'), zone.get('nfviPop'))
                for zone in data['zones']),
            flavours=data.get('flavours', {}),
            existing={rid: Location(loc['zoneId'], loc.get('host'))
                      for rid, loc in data.get('existing', {}).items()},
            vim_connection_id=data.get('vimConnectionId'))
        cloud.check()
        return cloud

    def check(self) -> None:
        """Names unique, allocated resources in known zones and hosts."""
        hosts: dict[str, set[str]] = {}
        seen_hosts: set[str] = set()
        for index, zone in enumerate(self.zones):
            if zone.zone_id in hosts:
                raise exception.InvalidInput(
                    field=f'zones[{index}].zoneId',
                    reason=f'{zone.zone_id!r} is listed twice')
            hosts[zone.zone_id] = set()
            for h_index, host in enumerate(zone.hosts):
                if host.name in seen_hosts:
                    raise exception.InvalidInput(
                        field=f'zones[{index}].hosts[{h_index}].name',
                        reason=f'{host.name!r} is listed twice')
                seen_hosts.add(host.name)
                hosts[zone.zone_id].add(host.name)
        for rid, loc in self.existing.items():
            if loc.zone_id not in hosts:
                raise exception.InvalidInput(
                    field=f'existing.{rid}.zoneId',
                    reason=f'{loc.zone_id!r} is not one of the zones')
            if loc.host is not None and loc.host not in hosts[loc.zone_id]:
                raise exception.InvalidInput(
                    field=f'existing.{rid}.host',
                    reason=f'{loc.host!r} is not a host of {loc.zone_id}')

    def slot(self, zone: Zone, host: str | None) -> search.Slot:
        return search.Slot(zone.zone_id, host, zone.zone_group,
                           zone.nfvi_pop or self.vim_connection_id)
