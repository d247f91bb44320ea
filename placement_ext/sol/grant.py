"""Grant, ZoneInfo, ZoneGroupInfo and GrantInfo (SOL 003 v3.3.1).

The NFVO's answer to a GrantRequest. ``zones`` lists the resource zones
it chose (``ZoneInfo.zoneId``: the availability zone name in the VIM)
under identifiers local to the Grant (``ZoneInfo.id``), and each new
resource's ``GrantInfo.zoneId`` refers to one of those identifiers, not to
the zone name. Allocated resources carry no zone.

:func:`parse` validates a received document: its JSON Schema
(:data:`~placement_ext.schemas.sol003.GRANT_V3_3_1`), then the zone
references a schema cannot check.
"""

import dataclasses

from placement_ext import exception
from placement_ext.schemas import sol003
from placement_ext.schemas import validate as schema_validate
from placement_ext.sol import base


@dataclasses.dataclass(frozen=True)
class ZoneInfo(base.SolType):

    id: str = base.attr('id', required=True)
    zone_id: str = base.attr('zoneId', required=True)
    vim_connection_id: str | None = base.attr('vimConnectionId')
    resource_provider_id: str | None = base.attr('resourceProviderId')


@dataclasses.dataclass(frozen=True)
class ZoneGroupInfo(base.SolType):

    zone_id: tuple[str, ...] = base.attr('zoneId', many=True, required=True)


@dataclasses.dataclass(frozen=True)
class GrantInfo(base.SolType):

    resource_definition_id: str = base.attr('resourceDefinitionId',
                                            required=True)
    reservation_id: str | None = base.attr('reservationId')
    vim_connection_id: str | None = base.attr('vimConnectionId')
    resource_provider_id: str | None = base.attr('resourceProviderId')
    zone_id: str | None = base.attr('zoneId')
    resource_group_id: str | None = base.attr('resourceGroupId')


@dataclasses.dataclass(frozen=True)
class Grant(base.SolType):

    id: str = base.attr('id', required=True)
    vnf_instance_id: str = base.attr('vnfInstanceId', required=True)
    vnf_lcm_op_occ_id: str = base.attr('vnfLcmOpOccId', required=True)
    links: dict = base.attr('_links', required=True)
    vim_connection_info: dict | None = base.attr('vimConnectionInfo')
    zones: tuple[ZoneInfo, ...] | None = base.attr(
        'zones', kind=ZoneInfo, many=True)
    zone_groups: tuple[ZoneGroupInfo, ...] | None = base.attr(
        'zoneGroups', kind=ZoneGroupInfo, many=True)
    add_resources: tuple[GrantInfo, ...] | None = base.attr(
        'addResources', kind=GrantInfo, many=True)
    temp_resources: tuple[GrantInfo, ...] | None = base.attr(
        'tempResources', kind=GrantInfo, many=True)
    remove_resources: tuple[GrantInfo, ...] | None = base.attr(
        'removeResources', kind=GrantInfo, many=True)
    update_resources: tuple[GrantInfo, ...] | None = base.attr(
        'updateResources', kind=GrantInfo, many=True)
    vim_assets: dict | None = base.attr('vimAssets')
    ext_virtual_links: tuple[dict, ...] | None = base.attr(
        'extVirtualLinks', many=True)
    ext_managed_virtual_links: tuple[dict, ...] | None = base.attr(
        'extManagedVirtualLinks', many=True)
    additional_params: dict | None = base.attr('additionalParams')

    def zone_name(self, resource_definition_id: str) -> str | None:
        """The VIM zone (``ZoneInfo.zoneId``) granted to a new resource."""
        zones = {zone.id: zone.zone_id for zone in self.zones or ()}
        for info in (self.add_resources or ()) + (self.temp_resources or ()):
            if info.resource_definition_id == resource_definition_id:
                return zones.get(info.zone_id)
        return None


def parse(data: object) -> Grant:
    """Validate a Grant document and build the object.

    :raises InvalidInput: naming the field at fault and why.
    """
    schema_validate.validate(sol003.GRANT_V3_3_1, data, 'Grant')
    grant = Grant.from_dict(data)
    _check_zones(grant)
    return grant


def _check_zones(grant: Grant) -> None:
    zone_ids: set[str] = set()
    for index, zone in enumerate(grant.zones or ()):
        if zone.id in zone_ids:
            raise exception.InvalidInput(
                field=f'zones[{index}].id',
                reason=f'{zone.id!r} is the id of another zone')
        zone_ids.add(zone.id)
    for index, group in enumerate(grant.zone_groups or ()):
        for z_index, zone_id in enumerate(group.zone_id):
            _check_known(f'zoneGroups[{index}].zoneId[{z_index}]', zone_id,
                         zone_ids)
    for wire, infos in (('addResources', grant.add_resources),
                        ('tempResources', grant.temp_resources)):
        for index, info in enumerate(infos or ()):
            if info.zone_id is not None:
                _check_known(f'{wire}[{index}].zoneId', info.zone_id,
                             zone_ids)
    for wire, infos in (('removeResources', grant.remove_resources),
                        ('updateResources', grant.update_resources)):
        for index, info in enumerate(infos or ()):
            if info.zone_id is not None:
                raise exception.InvalidInput(
                    field=f'{wire}[{index}].zoneId',
                    reason='must be absent: the resource is already '
                           'allocated')


def _check_known(field: str, zone_id: str, zone_ids: set[str]) -> None:
    if zone_id not in zone_ids:
        raise exception.InvalidInput(
            field=field,
            reason=f'{zone_id!r} is not the id of a ZoneInfo in zones '
                   f'(it must refer to ZoneInfo.id, not to the zone name)')
