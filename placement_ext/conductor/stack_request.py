"""What a lifecycle operation asks of Heat: semantic request checks, and
the stack parameters for a given placement.

The JSON schema (``schemas/operation.py``) checks shapes; the rules that
relate fields to each other are checked here, so a bad request is refused
before an operation record exists.
"""

import copy

from placement_ext import exception
from placement_ext.schemas import operation as operation_schema
from placement_ext.schemas import validate as schema_validate
from placement_ext.sol import placement_constraint as pc


def validate(request: dict) -> dict:
    """Check ``request`` fully; return it unchanged when it is good."""
    schema_validate.validate(operation_schema.OPERATION_REQUEST_V1_0,
                             request, 'operation request')
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
    flavors = request.get('flavors', {})
    flavor = flavors.get(vnfc) or flavors.get(vnfc.rsplit('-', 1)[0])
    if flavor is None:
        return None
    resources = {'VCPU': flavor['vcpus'], 'MEMORY_MB': flavor['memory_mb'],
                 'DISK_GB': flavor['disk_gb']}
    return {rc: amount for rc, amount in resources.items() if amount}
