"""What a lifecycle operation asks of Heat: semantic request checks, and
the stack parameters for a given placement.

The JSON schema (``schemas/operation.py``) checks shapes; the rules that
relate fields to each other are checked here, so a bad request is refused
before an operation record exists.
"""

import copy

from placement_ext import exception
from placement_ext.decision import flavors
from placement_ext.decision import regrant
from placement_ext.schemas import operation as operation_schema
from placement_ext.schemas import validate as schema_validate
from placement_ext.sol import grant_request
from placement_ext.sol import placement_constraint as pc


def validate(request: dict, needs_grant_request: bool = False) -> dict:
    """Check ``request`` fully; return it unchanged when it is good.

    :param needs_grant_request: moves are granted again
        (``[v2_vnfm] placement_regrant_before_move``), so the request
        must carry the GrantRequest, with every target in addResources.
    """
    schema_validate.validate(operation_schema.OPERATION_REQUEST_V1_0,
                             request, 'operation request')
    if 'grant_request' in request or needs_grant_request:
        _check_grant_request(request)
    unplaced = sorted(set(request['targets']) - set(request['placement']))
    if unplaced:
        raise exception.InvalidInput(
            field='targets',
            reason=f'{", ".join(unplaced)} not in placement: every target '
                   f'needs a starting zone')
    if request['operation'] == 'INSTANTIATE' and 'template' not in request:
        raise exception.InvalidInput(
            field='template', reason='INSTANTIATE needs the stack template')
    return request


def _check_grant_request(request: dict) -> None:
    if 'grant_request' not in request:
        raise exception.InvalidInput(
            field='grant_request',
            reason='required when [v2_vnfm] placement_regrant_before_move '
                   'is true: the GrantRequest this operation was granted '
                   'with')
    try:
        granted = grant_request.parse(request['grant_request'])
    except exception.InvalidInput as exc:
        raise exception.InvalidInput(field=f'grant_request.{exc.field}',
                                     reason=exc.reason)
    new_ids = {res.id for res in granted.new_resources()}
    ids = regrant.resource_ids(request['targets'],
                               request.get('resource_names', {}))
    missing = sorted(vnfc for vnfc, rid in ids.items() if rid not in new_ids)
    if missing:
        raise exception.InvalidInput(
            field='grant_request.addResources',
            reason=f'no resource definition for target(s) '
                   f'{", ".join(missing)}: a new Grant could not place them')


def constraints(request: dict) -> list[pc.PlacementConstraint]:
    """The request's constraints, speaking of VNFC names."""
    names = request.get('resource_names', {})
    return [pc.PlacementConstraint.from_dict(item).renamed(names)
            for item in request.get('constraints', ())]


def stack_parameters(request: dict, placement: dict) -> dict:
    """Stack parameters with ``nfv.VDU.<VNFC>.locationConstraints`` set."""
    parameters = copy.deepcopy(request.get('parameters', {}))
    nfv = parameters.setdefault('nfv', {})
    vdus = nfv.setdefault('VDU', {})
    for vnfc, zone in placement.items():
        vdus.setdefault(vnfc, {})['locationConstraints'] = zone
    return parameters


def flavor_resources(request: dict, vnfc: str) -> dict[str, int] | None:
    """Placement resources of one instance of ``vnfc``, if known.

    ``flavors`` may be keyed by VNFC (``VDU1-0``) or by VDU (``VDU1``).
    """
    sizes = request.get('flavors', {})
    size = sizes.get(vnfc) or sizes.get(vnfc.rsplit('-', 1)[0])
    return None if size is None else flavors.resources(size)
