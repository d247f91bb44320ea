"""The lifecycle operation request: what the conductor deploys and where.

The stack follows Tacker's StandardUserData convention: its ``nfv`` json
parameter carries ``VDU.<VNFC>.locationConstraints``, which the
conductor sets from ``placement`` (and changes on reselection).
"""

from placement_ext.schemas import reselection
from placement_ext.schemas import sol003

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_NAMES = {'type': 'array', 'items': _NAME, 'uniqueItems': True}
_FLAVOR = {
    'type': 'object',
    'properties': {
        'vcpus': {'type': 'integer', 'minimum': 0},
        'memory_mb': {'type': 'integer', 'minimum': 0},
        'disk_gb': {'type': 'integer', 'minimum': 0},
    },
    'required': ['vcpus', 'memory_mb', 'disk_gb'],
    'additionalProperties': False,
}

# Version 1.0 of the request of conductor RPC create_operation.
OPERATION_REQUEST_V1_0 = {
    'type': 'object',
    'properties': {
        'operation': {'enum': ['INSTANTIATE', 'SCALE', 'HEAL']},
        # Tacker's VNF instance ids are UUIDs; stored in a 36-character
        # column (db/models.py Operation.vnf_instance_id)
        'vnf_instance_id': {'type': 'string', 'minLength': 1,
                            'maxLength': 36},
        # Heat stack names: a letter, then letters, digits, _ - .
        'stack_name': {'type': 'string',
                       'pattern': '^[A-Za-z][A-Za-z0-9_.-]{0,254}$'},
        'template': {'type': 'object'},
        'files': {'type': 'object',
                  'additionalProperties': {'type': 'string'}},
        'parameters': {'type': 'object'},
        # every VNFC of the VNF (existing and new) -> its zone
        'placement': {'type': 'object', 'minProperties': 1,
                      'maxProperties': reselection.MAX_VNFCS,
                      'additionalProperties': _NAME},
        # the VNFCs this operation creates or heals: the only ones it moves
        'targets': dict(_NAMES, minItems=1, maxItems=reselection.MAX_VNFCS),
        'constraints': {'type': 'array',
                        'items': sol003.PLACEMENT_CONSTRAINT_V3_3_1},
        # constraint resourceId -> VNFC name, when they differ
        'resource_names': {'type': 'object', 'additionalProperties': _NAME},
        # VNFC or VDU name -> flavor size, for capacity-ranked reselection
        'flavors': {'type': 'object', 'additionalProperties': _FLAVOR},
        'grant_zones': _NAMES,
        # Heat resources to mark unhealthy before a heal's update
        'heal_resources': _NAMES,
        # the SOL 003 GrantRequest this operation was granted with, sent
        # again before a move ([v2_vnfm] placement_regrant_before_move)
        'grant_request': {'type': 'object'},
        # the host service's LCM operation occurrence (Tacker's lcmocc id)
        # this operation runs in: its retry resumes this operation
        'lcm_op_occ_id': {'type': 'string', 'minLength': 1,
                          'maxLength': 255},
    },
    'required': ['operation', 'vnf_instance_id', 'stack_name', 'placement',
                 'targets'],
    'additionalProperties': False,
}
