"""VNFM side: the GrantRequest of an INSTANTIATE, scale-out or HEAL.

Pure: the caller parses the VNFD (:func:`placement_ext.sol.vnfd.parse`),
reads the instance's current VNFCs (:func:`vnfcs_from`) and the
configuration, and :func:`build` returns the SOL 003 v3.3.1 GrantRequest,
its ``placementConstraints`` from
:func:`placement_ext.decision.grant_constraints.build`, and the policies
that gave no constraint.

* INSTANTIATE: every VNFC is new; ``add`` (VDU -> count) defaults to the
  VNFD's initial deltas. No VNFC may exist yet.
* SCALE (scale out): ``add`` names at least one VDU; the ``existing``
  VNFCs stay and are ``RES_MGMT`` references in the constraints.
* HEAL: the ``heal`` VNFCs (default: every existing one, a whole-VNF
  heal) are re-created: each is in ``removeResources`` (id: its VIM
  resource id) and in ``addResources`` (id: its VNFC id); the other
  existing VNFCs stay. Tacker sends no placement constraints for heal; we
  do, so the NFVO can keep anti-affinity for the re-created VNFCs.

New VNFCs are named ``<VDU>-<n>`` (``VDU1-0``, ``VDU1-1``), numbered
after the highest ``n`` among the VDU's existing VNFCs; the name is the
``addResources`` id and the VNFC name zone reselection speaks of. The
``vnfLcmOpOccId`` defaults to a uuid5 of the instance and the operation,
so a dry run repeats. Errors name the argument at fault (``add.VDU9``,
``existing[0].vduId``, ``heal``, ``fallback_best_effort.<policy>``).
"""

import dataclasses
import re
import uuid
from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext import exception
from placement_ext.decision import grant_constraints as gc
from placement_ext.schemas import sol003
from placement_ext.schemas import validate as schema_validate
from placement_ext.sol import grant_request
from placement_ext.sol import vnfd as vnfd_mod
from placement_ext.vocabulary import sol_enums

INSTANTIATE = 'INSTANTIATE'
SCALE = 'SCALE'
HEAL = 'HEAL'
OPERATIONS = (INSTANTIATE, SCALE, HEAL)
PLACEMENT_RULES = (gc.AFFINITY_RULE, gc.ANTI_AFFINITY_RULE)
# New VNFCs one GrantRequest may add (a count of 10**7 used to run for
# ever): the GrantRequest schema's own bound, so the output is accepted.
MAX_NEW_VNFCS = sol003.MAX_NEW_RESOURCES

# vnfLcmOpOccIds derived from instance and operation, so a dry run repeats.
_OP_OCC_NAMESPACE = uuid.UUID('505c6f53-5c6a-4da7-9bad-7370e99dee2b')

# The current VNFCs, wrapped in {"existing": [...]} so that an error's
# field reads existing[0].vduId.
_EXISTING_SCHEMA = {
    'type': 'object',
    'properties': {'existing': {'type': 'array', 'items': {
        'type': 'object',
        'properties': {key: sol003.IDENTIFIER for key in (
            'vnfcId', 'vduId', 'resourceId', 'vimConnectionId',
            'resourceProviderId')},
        'required': ['vnfcId', 'vduId', 'resourceId'],
        'additionalProperties': False}}},
}


@dataclasses.dataclass(frozen=True)
class Vnfc:
    """A VNFC of the instance: its name, VDU and compute resource."""

    vnfc_id: str
    vdu_id: str
    resource_id: str
    vim_connection_id: str | None = None
    resource_provider_id: str | None = None

    def as_existing(self) -> gc.ExistingVnfc:
        return gc.ExistingVnfc(self.vdu_id, self.resource_id,
                               self.vim_connection_id,
                               self.resource_provider_id)

    def removal(self) -> grant_request.ResourceDefinition:
        """Its removeResources entry: the VIM resource that goes."""
        return grant_request.ResourceDefinition(
            id=self.resource_id, type=sol_enums.COMPUTE,
            resource_template_id=self.vdu_id,
            resource=grant_request.ResourceHandle(
                resource_id=self.resource_id,
                vim_connection_id=self.vim_connection_id,
                resource_provider_id=self.resource_provider_id))


@dataclasses.dataclass(frozen=True)
class Built:
    """The GrantRequest and the policies that gave no constraint."""

    request: grant_request.GrantRequest
    skipped: tuple[gc.SkippedPolicy, ...]


def vnfcs_from(data: object) -> tuple[Vnfc, ...]:
    """The VNFCs of ``[{"vnfcId", "vduId", "resourceId",
    "vimConnectionId"?, "resourceProviderId"?}, ...]``.

    :raises InvalidInput: ``existing[i].<key>`` at fault, a vnfcId or
        resourceId given twice.
    """
    schema_validate.validate(_EXISTING_SCHEMA, {'existing': data},
                             'existing')
    vnfcs = tuple(Vnfc(item['vnfcId'], item['vduId'], item['resourceId'],
                       item.get('vimConnectionId'),
                       item.get('resourceProviderId')) for item in data)
    for attribute, key in (('vnfc_id', 'vnfcId'),
                           ('resource_id', 'resourceId')):
        seen: dict[str, int] = {}
        for index, vnfc in enumerate(vnfcs):
            value = getattr(vnfc, attribute)
            if value in seen:
                raise exception.InvalidInput(
                    field=f'existing[{index}].{key}',
                    reason=f'{value!r} is already existing[{seen[value]}]'
                           f"'s")
            seen[value] = index
    return vnfcs


def build(vnfd: vnfd_mod.Vnfd, operation: str, vnf_instance_id: str, *,
          add: Mapping[str, int] | None = None,
          existing: Sequence[Vnfc] = (),
          heal: Sequence[str] | None = None,
          vnfd_id: str | None = None,
          flavour_id: str | None = None,
          vnf_lcm_op_occ_id: str | None = None,
          default_fallback_best_effort: bool = False,
          fallback_best_effort: Mapping[str, bool] | None = None) -> Built:
    """The GrantRequest a VNFM sends before ``operation``.

    :param add: VDU -> number of new VNFCs (INSTANTIATE, SCALE).
    :param existing: the instance's VNFCs (SCALE, HEAL).
    :param heal: vnfcIds of ``existing`` to re-create (HEAL).
    :param vnfd_id: default: the VNFD's ``descriptor_id``.
    :param flavour_id: default: the VNFD's ``flavour_id``.
    :param fallback_best_effort: policy name -> fallbackBestEffort of its
        constraint, overriding the policy and the default.
    :raises InvalidInput: naming the argument at fault and why.
    """
    _check_operation(operation, add, existing, heal)
    _check_existing(vnfd, existing)
    _check_overrides(vnfd, fallback_best_effort)
    if operation == HEAL:
        healed = _healed(existing, heal)
        new = [(vnfc.vdu_id, vnfc.vnfc_id) for vnfc in healed]
        staying = [vnfc for vnfc in existing if vnfc not in healed]
    else:
        healed = []
        new = _new_names(_checked_add(vnfd, operation, add, existing),
                         existing)
        staying = list(existing)
    add_resources = tuple(grant_request.ResourceDefinition(
        id=name, type=sol_enums.COMPUTE, resource_template_id=vdu_id)
        for vdu_id, name in new)
    result = gc.build(vnfd.policies, vnfd.groups,
                      gc.new_vnfcs_from(add_resources),
                      [vnfc.as_existing() for vnfc in staying],
                      default_fallback_best_effort, fallback_best_effort)
    op_occ_id = vnf_lcm_op_occ_id or str(uuid.uuid5(
        _OP_OCC_NAMESPACE, f'{vnf_instance_id}/{operation}'))
    request = grant_request.GrantRequest(
        vnf_instance_id=vnf_instance_id, vnf_lcm_op_occ_id=op_occ_id,
        vnfd_id=_vnfd_id(vnfd, vnfd_id),
        flavour_id=_flavour_id(vnfd, operation, flavour_id),
        operation=operation, is_automatic_invocation=False,
        add_resources=add_resources,
        remove_resources=tuple(v.removal() for v in healed) or None,
        placement_constraints=result.constraints or None,
        links={'vnfLcmOpOcc': {
                   'href': f'/vnflcm/v2/vnf_lcm_op_occs/{op_occ_id}'},
               'vnfInstance': {
                   'href': f'/vnflcm/v2/vnf_instances/{vnf_instance_id}'}})
    # the checks a receiver makes (schema, unique ids, every GRANT
    # reference resolves), so the output can be fed to the evaluator
    return Built(grant_request.parse(request.to_dict()), result.skipped)


def _check_operation(operation: str, add: Mapping | None,
                     existing: Sequence[Vnfc],
                     heal: Sequence[str] | None) -> None:
    if operation not in OPERATIONS:
        raise exception.InvalidInput(
            field='operation',
            reason=f'{operation!r} is not one of {", ".join(OPERATIONS)}')
    if add and operation == HEAL:
        raise exception.InvalidInput(
            field='add', reason='only for INSTANTIATE and SCALE; HEAL '
                                're-creates the healed VNFCs')
    if heal and operation != HEAL:
        raise exception.InvalidInput(field='heal',
                                     reason=f'only for HEAL, not {operation}')
    if existing and operation == INSTANTIATE:
        raise exception.InvalidInput(
            field='existing', reason='INSTANTIATE creates every VNFC; no '
                                     'VNFC may exist yet')
    if not existing and operation == HEAL:
        raise exception.InvalidInput(
            field='existing', reason='HEAL re-creates existing VNFCs; '
                                     'none given')


def _check_existing(vnfd: vnfd_mod.Vnfd, existing: Sequence[Vnfc]) -> None:
    for index, vnfc in enumerate(existing):
        if vnfc.vdu_id not in vnfd.vdus:
            raise exception.InvalidInput(
                field=f'existing[{index}].vduId',
                reason=_not_a_vdu(vnfd, vnfc.vdu_id))


def _check_overrides(vnfd: vnfd_mod.Vnfd,
                     overrides: Mapping[str, bool] | None) -> None:
    known = vnfd.placement_policies(PLACEMENT_RULES)
    for name in overrides or {}:
        if name not in known:
            raise exception.InvalidInput(
                field=f'fallback_best_effort.{name}',
                reason='no AffinityRule or AntiAffinityRule of that name in '
                       f'the VNFD ({", ".join(known) or "none"})')


def _checked_add(vnfd: vnfd_mod.Vnfd, operation: str,
                 add: Mapping[str, int] | None,
                 existing: Sequence[Vnfc]) -> Mapping[str, int]:
    if not add:
        if operation != INSTANTIATE:
            raise exception.InvalidInput(
                field='add', reason=f'{operation} needs at least one VDU '
                                    'to add VNFCs to')
        add = vnfd.vdus  # the initial deltas, checked by vnfd.parse
        if sum(add.values()) > MAX_NEW_VNFCS:
            raise exception.InvalidInput(
                field='add', reason=f'the VNFD\'s initial deltas make '
                                    f'{sum(add.values())} VNFCs; at most '
                                    f'{MAX_NEW_VNFCS} per request')
        return add
    for vdu_id, count in add.items():
        if vdu_id not in vnfd.vdus:
            raise exception.InvalidInput(field=f'add.{vdu_id}',
                                         reason=_not_a_vdu(vnfd, vdu_id))
        if isinstance(count, bool) or not isinstance(count, int) \
                or not 1 <= count <= MAX_NEW_VNFCS:
            raise exception.InvalidInput(
                field=f'add.{vdu_id}',
                reason=f'the count must be a whole number from 1 to '
                       f'{MAX_NEW_VNFCS}, not {count!r}')
        _check_max_instances(vnfd, vdu_id, count, existing)
    if sum(add.values()) > MAX_NEW_VNFCS:
        raise exception.InvalidInput(
            field='add', reason=f'{sum(add.values())} new VNFCs in one '
                                f'request; at most {MAX_NEW_VNFCS}')
    return add


def _check_max_instances(vnfd: vnfd_mod.Vnfd, vdu_id: str, count: int,
                         existing: Sequence[Vnfc]) -> None:
    limit = vnfd.max_instances.get(vdu_id)
    have = sum(1 for vnfc in existing if vnfc.vdu_id == vdu_id)
    if limit is not None and have + count > limit:
        raise exception.InvalidInput(
            field=f'add.{vdu_id}',
            reason=f'{have} existing + {count} new VNFCs exceed the VDU\'s '
                   f'max_number_of_instances {limit}')


def _new_names(add: Mapping[str, int],
               existing: Sequence[Vnfc]) -> list[tuple[str, str]]:
    """(VDU, VNFC name) of each new VNFC, after the VDU's highest index."""
    new = []
    for vdu_id, count in add.items():
        pattern = re.compile(re.escape(vdu_id) + r'-(\d+)')
        taken = [int(match.group(1)) for match in (
            pattern.fullmatch(vnfc.vnfc_id) for vnfc in existing
            if vnfc.vdu_id == vdu_id) if match]
        first = max(taken, default=-1) + 1
        new += [(vdu_id, f'{vdu_id}-{index}')
                for index in range(first, first + count)]
    if not new:
        raise exception.InvalidInput(
            field='add', reason='no VNFC to create: every initial delta of '
                                'the VNFD is 0')
    return new


def _healed(existing: Sequence[Vnfc],
            heal: Sequence[str] | None) -> list[Vnfc]:
    if not heal:
        return list(existing)  # a whole-VNF heal
    by_id = {vnfc.vnfc_id: vnfc for vnfc in existing}
    healed: list[Vnfc] = []
    for vnfc_id in heal:
        if vnfc_id not in by_id:
            raise exception.InvalidInput(
                field='heal', reason=f'{vnfc_id!r} is not an existing VNFC '
                                     f'({", ".join(by_id)})')
        if by_id[vnfc_id] in healed:
            raise exception.InvalidInput(
                field='heal', reason=f'{vnfc_id!r} is given twice')
        healed.append(by_id[vnfc_id])
    return healed


def _vnfd_id(vnfd: vnfd_mod.Vnfd, vnfd_id: str | None) -> str:
    if vnfd_id or vnfd.descriptor_id:
        return vnfd_id or vnfd.descriptor_id
    raise exception.InvalidInput(
        field='vnfd_id', reason='the VNFD has no descriptor_id; give the '
                                'VNFD id')


def _flavour_id(vnfd: vnfd_mod.Vnfd, operation: str,
                flavour_id: str | None) -> str | None:
    flavour_id = flavour_id or vnfd.flavour_id
    if flavour_id is None and operation == INSTANTIATE:
        raise exception.InvalidInput(
            field='flavour_id',
            reason='INSTANTIATE needs the deployment flavour and the VNFD '
                   'names none (substitution_mappings.properties.'
                   'flavour_id); give it')
    return flavour_id


def _not_a_vdu(vnfd: vnfd_mod.Vnfd, name: str) -> str:
    return f'{name!r} is not a VDU of the VNFD ({", ".join(vnfd.vdus)})'
