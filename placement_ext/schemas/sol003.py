"""JSON Schemas of the ETSI NFV-SOL 003 v3.3.1 Grant interface.

Constants carry the SOL 003 version they describe (``_V3_3_1``); a later
version is built by deep-copying the previous one and changing what the
new version changes. SOL structures are closed (``additionalProperties:
False``) except where SOL 003 itself allows any content: the
``KeyValuePairs`` attributes (``additionalParams``, ``vimConnectionInfo``,
``vimAssets``) and the structures this service passes through without
reading (``snapshotResDef``, ``extVirtualLinks``,
``extManagedVirtualLinks``).

What a schema cannot express (a ``GRANT`` reference naming a resource
definition of the same request, ``addResources[].zoneId`` naming a
``ZoneInfo.id`` of the same Grant) is checked by the data types in
:mod:`placement_ext.sol`.
"""

from placement_ext.vocabulary import sol_enums

IDENTIFIER = {'type': 'string', 'minLength': 1, 'maxLength': 255}
KEY_VALUE_PAIRS = {'type': 'object'}
LINK = {
    'type': 'object',
    'properties': {'href': {'type': 'string', 'minLength': 1}},
    'required': ['href'],
    'additionalProperties': False,
}


# Resources one GrantRequest may create or use temporarily: far above any
# VNF, and a bound on the evaluator's work (not a SOL 003 limit; ours).
MAX_NEW_RESOURCES = 10_000


def _array_of(items: dict, min_items: int = 0,
              max_items: int | None = None) -> dict:
    schema = {'type': 'array', 'items': items, 'minItems': min_items}
    if max_items is not None:
        schema['maxItems'] = max_items
    return schema


def _links(*names: str) -> dict:
    return {
        'type': 'object',
        'properties': {name: LINK for name in names},
        'required': list(names),
        'additionalProperties': False,
    }


# ConstraintResourceRef: a resource of this request (GRANT) or an
# allocated one (RES_MGMT).
CONSTRAINT_RESOURCE_REF_V3_3_1 = {
    'type': 'object',
    'properties': {
        'idType': {'enum': list(sol_enums.ID_TYPES)},
        'resourceId': IDENTIFIER,
        'vimConnectionId': IDENTIFIER,
        'resourceProviderId': IDENTIFIER,
    },
    'required': ['idType', 'resourceId'],
    'additionalProperties': False,
}

# PlacementConstraint: "resource" has cardinality 2..N.
PLACEMENT_CONSTRAINT_V3_3_1 = {
    'type': 'object',
    'properties': {
        'affinityOrAntiAffinity': {'enum': list(sol_enums.AFFINITY_TYPES)},
        'scope': {'enum': list(sol_enums.SCOPES)},
        'resource': _array_of(CONSTRAINT_RESOURCE_REF_V3_3_1, min_items=2),
        'fallbackBestEffort': {'type': 'boolean'},
    },
    'required': ['affinityOrAntiAffinity', 'scope', 'resource'],
    'additionalProperties': False,
}

VIM_CONSTRAINT_V3_3_1 = {
    'type': 'object',
    'properties': {
        'sameResourceGroup': {'type': 'boolean'},
        'resource': _array_of(CONSTRAINT_RESOURCE_REF_V3_3_1, min_items=1),
    },
    'required': ['resource'],
    'additionalProperties': False,
}

RESOURCE_HANDLE_V3_3_1 = {
    'type': 'object',
    'properties': {
        'vimConnectionId': IDENTIFIER,
        'resourceProviderId': IDENTIFIER,
        'resourceId': IDENTIFIER,
        'vimLevelResourceType': {'type': 'string'},
    },
    'required': ['resourceId'],
    'additionalProperties': False,
}

_RESOURCE_DEFINITION_PROPERTIES = {
    'id': IDENTIFIER,
    'type': {'enum': list(sol_enums.RESOURCE_TYPES)},
    'vduId': IDENTIFIER,
    'resourceTemplateId': IDENTIFIER,
    'resource': RESOURCE_HANDLE_V3_3_1,
    'snapshotResDef': {'type': 'object'},
}

# ResourceDefinition of a resource to be created (addResources,
# tempResources): "resourceTemplateId ... shall be present for new
# resources".
NEW_RESOURCE_DEFINITION_V3_3_1 = {
    'type': 'object',
    'properties': _RESOURCE_DEFINITION_PROPERTIES,
    'required': ['id', 'type', 'resourceTemplateId'],
    'additionalProperties': False,
}

# ResourceDefinition of an allocated resource (removeResources,
# updateResources): "resource ... shall be present for existing
# resources".
EXISTING_RESOURCE_DEFINITION_V3_3_1 = {
    'type': 'object',
    'properties': _RESOURCE_DEFINITION_PROPERTIES,
    'required': ['id', 'type', 'resource'],
    'additionalProperties': False,
}

# GrantRequest (VNFM -> NFVO)
GRANT_REQUEST_V3_3_1 = {
    'type': 'object',
    'properties': {
        'vnfInstanceId': IDENTIFIER,
        'vnfLcmOpOccId': IDENTIFIER,
        'vnfdId': IDENTIFIER,
        'dstVnfdId': IDENTIFIER,
        'flavourId': IDENTIFIER,
        'operation': {'enum': list(sol_enums.OPERATIONS)},
        'isAutomaticInvocation': {'type': 'boolean'},
        'instantiationLevelId': IDENTIFIER,
        'addResources': _array_of(NEW_RESOURCE_DEFINITION_V3_3_1,
                                  max_items=MAX_NEW_RESOURCES),
        'tempResources': _array_of(NEW_RESOURCE_DEFINITION_V3_3_1,
                                   max_items=MAX_NEW_RESOURCES),
        'removeResources': _array_of(EXISTING_RESOURCE_DEFINITION_V3_3_1),
        'updateResources': _array_of(EXISTING_RESOURCE_DEFINITION_V3_3_1),
        'placementConstraints': _array_of(PLACEMENT_CONSTRAINT_V3_3_1),
        'vimConstraints': _array_of(VIM_CONSTRAINT_V3_3_1),
        'additionalParams': KEY_VALUE_PAIRS,
        '_links': _links('vnfLcmOpOcc', 'vnfInstance'),
    },
    'required': ['vnfInstanceId', 'vnfLcmOpOccId', 'vnfdId', 'operation',
                 'isAutomaticInvocation', '_links'],
    'additionalProperties': False,
}

# ZoneInfo: "id" is what GrantInfo.zoneId refers to; "zoneId" is
# the zone's identifier in the VIM (the availability zone name).
ZONE_INFO_V3_3_1 = {
    'type': 'object',
    'properties': {
        'id': IDENTIFIER,
        'zoneId': IDENTIFIER,
        'vimConnectionId': IDENTIFIER,
        'resourceProviderId': IDENTIFIER,
    },
    'required': ['id', 'zoneId'],
    'additionalProperties': False,
}

ZONE_GROUP_INFO_V3_3_1 = {
    'type': 'object',
    'properties': {'zoneId': _array_of(IDENTIFIER, min_items=1)},
    'required': ['zoneId'],
    'additionalProperties': False,
}

# GrantInfo: one granted resource; zoneId refers to ZoneInfo.id.
GRANT_INFO_V3_3_1 = {
    'type': 'object',
    'properties': {
        'resourceDefinitionId': IDENTIFIER,
        'reservationId': IDENTIFIER,
        'vimConnectionId': IDENTIFIER,
        'resourceProviderId': IDENTIFIER,
        'zoneId': IDENTIFIER,
        'resourceGroupId': IDENTIFIER,
    },
    'required': ['resourceDefinitionId'],
    'additionalProperties': False,
}

# Grant (NFVO -> VNFM)
GRANT_V3_3_1 = {
    'type': 'object',
    'properties': {
        'id': IDENTIFIER,
        'vnfInstanceId': IDENTIFIER,
        'vnfLcmOpOccId': IDENTIFIER,
        'vimConnectionInfo': KEY_VALUE_PAIRS,
        'zones': _array_of(ZONE_INFO_V3_3_1),
        'zoneGroups': _array_of(ZONE_GROUP_INFO_V3_3_1),
        'addResources': _array_of(GRANT_INFO_V3_3_1),
        'tempResources': _array_of(GRANT_INFO_V3_3_1),
        'removeResources': _array_of(GRANT_INFO_V3_3_1),
        'updateResources': _array_of(GRANT_INFO_V3_3_1),
        'vimAssets': KEY_VALUE_PAIRS,
        'extVirtualLinks': _array_of({'type': 'object'}),
        'extManagedVirtualLinks': _array_of({'type': 'object'}),
        'additionalParams': KEY_VALUE_PAIRS,
        '_links': _links('self', 'vnfLcmOpOcc', 'vnfInstance'),
    },
    'required': ['id', 'vnfInstanceId', 'vnfLcmOpOccId', '_links'],
    'additionalProperties': False,
}
