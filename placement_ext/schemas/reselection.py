"""JSON Schemas of ``placement-ext reselection plan`` (our own format).

Input: one reselection step as the conductor would see it::

  {"zones": ["AZ-1", ...],                 candidate zones
   "placement": {"VDU1-0": "AZ-1", ...},   every VNFC's current zone
   "targets": ["VDU1-0", ...],             VNFCs this operation may move
   "constraints": [PlacementConstraint, ...],  resourceId = VNFC name
   "failed": {"VDU2-0": ["AZ-2"]},         zones where each VNFC failed
   "capacity": {"AZ-4": 3}}                optional: instances of the
                                           failed VDU's flavor that fit

Output: ``{"placement", "moved", "broken", "exhausted"}`` (and
``"reasons"`` with ``--explain``).

Both are closed (``additionalProperties: False``): a misspelt key is an
error, not a silently ignored option.
"""

from placement_ext.schemas import sol003

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_NAMES = {'type': 'array', 'items': _NAME, 'uniqueItems': True}


def _map_of(values: dict) -> dict:
    return {'type': 'object', 'propertyNames': _NAME,
            'additionalProperties': values}


# VNFCs one step may hold: reselection stays near-linear, about 15 s at
# this size on a 2-core machine (benchmarks/results/decision_scale.rst).
MAX_VNFCS = 10_000

RESELECTION_PLAN_INPUT_V1_0 = {
    'type': 'object',
    'properties': {
        'zones': _NAMES,
        'placement': dict(_map_of(_NAME), maxProperties=MAX_VNFCS),
        'targets': dict(_NAMES, maxItems=MAX_VNFCS),
        'constraints': {'type': 'array',
                        'items': sol003.PLACEMENT_CONSTRAINT_V3_3_1},
        'failed': _map_of(_NAMES),
        'capacity': _map_of({'type': 'integer', 'minimum': 0}),
    },
    'required': ['zones', 'placement', 'targets', 'failed'],
    'additionalProperties': False,
}

RESELECTION_PLAN_OUTPUT_V1_0 = {
    'type': 'object',
    'properties': {
        'placement': _map_of(_NAME),
        # VNFC -> [from zone, to zone]
        'moved': _map_of({'type': 'array', 'items': _NAME,
                          'minItems': 2, 'maxItems': 2}),
        'broken': {'type': 'array',
                   'items': sol003.PLACEMENT_CONSTRAINT_V3_3_1},
        'exhausted': {'type': 'boolean'},
        # only with --explain
        'reasons': {'type': 'array', 'items': {'type': 'string'}},
    },
    'required': ['placement', 'moved', 'broken', 'exhausted'],
    'additionalProperties': False,
}
