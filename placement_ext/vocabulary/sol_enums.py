"""Enumerations of ETSI NFV-SOL 003 v3.3.1 used by the Grant interface.

Kept in a module of their own so the JSON Schemas
(:mod:`placement_ext.schemas.sol003`) and the data types share one list.
"""

# PlacementConstraint.affinityOrAntiAffinity
AFFINITY = 'AFFINITY'
ANTI_AFFINITY = 'ANTI_AFFINITY'
AFFINITY_TYPES = (AFFINITY, ANTI_AFFINITY)

# PlacementConstraint.scope (SOL 003 v3.3.1 clause 9.5.3.x)
ZONE = 'ZONE'
ZONE_GROUP = 'ZONE_GROUP'
NFVI_NODE = 'NFVI_NODE'
NFVI_POP = 'NFVI_POP'
CIS_NODE = 'CIS_NODE'
SCOPES = (NFVI_POP, ZONE, ZONE_GROUP, NFVI_NODE, CIS_NODE)

# ConstraintResourceRef.idType
GRANT = 'GRANT'
RES_MGMT = 'RES_MGMT'
ID_TYPES = (RES_MGMT, GRANT)

# ResourceDefinition.type
COMPUTE = 'COMPUTE'
VL = 'VL'
STORAGE = 'STORAGE'
LINKPORT = 'LINKPORT'
RESOURCE_TYPES = (COMPUTE, VL, STORAGE, LINKPORT)

# GrantRequest.operation (GrantedLcmOperationType)
CHANGE_VNFPKG = 'CHANGE_VNFPKG'
OPERATIONS = (
    'INSTANTIATE', 'SCALE', 'SCALE_TO_LEVEL', 'CHANGE_FLAVOUR', 'TERMINATE',
    'HEAL', 'OPERATE', 'CHANGE_EXT_CONN', CHANGE_VNFPKG,
    'CREATE_SNAPSHOT', 'REVERT_TO_SNAPSHOT')
