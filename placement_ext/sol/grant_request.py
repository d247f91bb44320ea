"""GrantRequest and its ResourceDefinition (SOL 003 v3.3.1).

The VNFM asks the NFVO for permission before a lifecycle operation:
``addResources``/``tempResources`` are the resources it will create,
``removeResources``/``updateResources`` allocated ones, and
``placementConstraints`` how the new ones must be placed relative to
each other and to allocated ones.

:func:`parse` validates a received document: its JSON Schema
(:data:`~placement_ext.schemas.sol003.GRANT_REQUEST_V3_3_1`), then that
resource definition ids are unique and that every ``GRANT`` reference
names one of them.
"""

import dataclasses
from collections.abc import Iterator
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.schemas import sol003
from placement_ext.schemas import validate as schema_validate
from placement_ext.sol import base
from placement_ext.sol import placement_constraint as pc
from placement_ext.vocabulary import sol_enums


@dataclasses.dataclass(frozen=True)
class ResourceHandle(base.SolType):

    resource_id: str = base.attr('resourceId', required=True)
    vim_connection_id: str | None = base.attr('vimConnectionId')
    resource_provider_id: str | None = base.attr('resourceProviderId')
    vim_level_resource_type: str | None = base.attr('vimLevelResourceType')


@dataclasses.dataclass(frozen=True)
class ResourceDefinition(base.SolType):

    id: str = base.attr('id', required=True)
    type: str = base.attr('type', required=True)
    vdu_id: str | None = base.attr('vduId')
    resource_template_id: str | None = base.attr('resourceTemplateId')
    resource: ResourceHandle | None = base.attr('resource',
                                                kind=ResourceHandle)
    snapshot_res_def: dict | None = base.attr('snapshotResDef')

    @property
    def is_compute(self) -> bool:
        return self.type == sol_enums.COMPUTE

    @property
    def template(self) -> str | None:
        """The VDU this resource instantiates (template id, else vduId)."""
        return self.resource_template_id or self.vdu_id


@dataclasses.dataclass(frozen=True)
class VimConstraint(base.SolType):

    resource: tuple[pc.ConstraintResourceRef, ...] = base.attr(
        'resource', kind=pc.ConstraintResourceRef, many=True, required=True)
    same_resource_group: bool | None = base.attr('sameResourceGroup')


@dataclasses.dataclass(frozen=True)
class GrantRequest(base.SolType):

    vnf_instance_id: str = base.attr('vnfInstanceId', required=True)
    vnf_lcm_op_occ_id: str = base.attr('vnfLcmOpOccId', required=True)
    vnfd_id: str = base.attr('vnfdId', required=True)
    operation: str = base.attr('operation', required=True)
    is_automatic_invocation: bool = base.attr('isAutomaticInvocation',
                                              required=True)
    links: dict = base.attr('_links', required=True)
    dst_vnfd_id: str | None = base.attr('dstVnfdId')
    flavour_id: str | None = base.attr('flavourId')
    instantiation_level_id: str | None = base.attr('instantiationLevelId')
    add_resources: tuple[ResourceDefinition, ...] | None = base.attr(
        'addResources', kind=ResourceDefinition, many=True)
    temp_resources: tuple[ResourceDefinition, ...] | None = base.attr(
        'tempResources', kind=ResourceDefinition, many=True)
    remove_resources: tuple[ResourceDefinition, ...] | None = base.attr(
        'removeResources', kind=ResourceDefinition, many=True)
    update_resources: tuple[ResourceDefinition, ...] | None = base.attr(
        'updateResources', kind=ResourceDefinition, many=True)
    placement_constraints: tuple[pc.PlacementConstraint, ...] | None = (
        base.attr('placementConstraints', kind=pc.PlacementConstraint,
                  many=True))
    vim_constraints: tuple[VimConstraint, ...] | None = base.attr(
        'vimConstraints', kind=VimConstraint, many=True)
    additional_params: dict | None = base.attr('additionalParams')

    def definitions(self) -> Iterator[tuple[str, int, ResourceDefinition]]:
        """Every resource definition as (list name, index, definition)."""
        for wire, items in (('addResources', self.add_resources),
                            ('tempResources', self.temp_resources),
                            ('removeResources', self.remove_resources),
                            ('updateResources', self.update_resources)):
            for index, definition in enumerate(items or ()):
                yield wire, index, definition

    def new_resources(self) -> tuple[ResourceDefinition, ...]:
        """The resources to be created: addResources then tempResources."""
        return (self.add_resources or ()) + (self.temp_resources or ())

    def constraints(self) -> tuple[pc.PlacementConstraint, ...]:
        return self.placement_constraints or ()


def parse(data: object) -> GrantRequest:
    """Validate a GrantRequest document and build the object.

    :raises InvalidInput: naming the field at fault and why.
    """
    schema_validate.validate(sol003.GRANT_REQUEST_V3_3_1, data,
                             'GrantRequest')
    request = GrantRequest.from_dict(data)
    _check_references(request)
    return request


def _check_references(request: GrantRequest) -> None:
    seen: dict[str, str] = {}
    for wire, index, definition in request.definitions():
        field = f'{wire}[{index}].id'
        if definition.id in seen:
            raise exception.InvalidInput(
                field=field,
                reason=f'{definition.id!r} is already the id of '
                       f'{seen[definition.id]}')
        seen[definition.id] = field
    for c_index, constraint in enumerate(request.constraints()):
        _check_refs(f'placementConstraints[{c_index}]', constraint.resource,
                    seen)
    for c_index, constraint in enumerate(request.vim_constraints or ()):
        _check_refs(f'vimConstraints[{c_index}]', constraint.resource, seen)


def _check_refs(field: str, refs: tuple[pc.ConstraintResourceRef, ...],
                definitions: Mapping[str, str]) -> None:
    for index, ref in enumerate(refs):
        if ref.id_type == sol_enums.GRANT \
                and ref.resource_id not in definitions:
            raise exception.InvalidInput(
                field=f'{field}.resource[{index}].resourceId',
                reason=f'GRANT reference {ref.resource_id!r} names no '
                       f'resource definition of this GrantRequest')
