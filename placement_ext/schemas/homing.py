"""JSON Schemas of cloud selection (homing, ONAP OOF).

``CLOUD_SELECTION_POLICY`` is ONAP OOF's cloud selection policy made a
valid JSON Schema: its sets (``{"type", "array"}``) become
``{"type": "array"}``, ``"int"`` becomes ``"integer"``, and its top-level
fields move under ``properties``. The intent keys keep ONAP's spelling
(spaces and all) so a policy written for ONAP loads unchanged.

``SELECTION_REQUEST`` is ours: the policy, the candidate regions (what
ONAP reads from A&AI), where the customer is, the weights of distance and
cost, and the demand (a flavor and a count)::

  {"policy": {...},
   "candidates": [{"cloud_owner": "CloudOwner", "region_id": "RegionOne",
                   "cloud_type": "OpenStack", "latitude": 48.85,
                   "longitude": 2.35, "availability_zone": "AZ-1",
                   "project": "<project id>"}, ...],
   "customer_location": {"latitude": 48.1, "longitude": 11.6},
   "weights": {"distance": 1, "cost": 2},
   "demand": {"flavor": "m1.small", "count": 2},   or a size:
              {"vcpus": 2, "memory_mb": 4096, "disk_gb": 20, "count": 2}
   "max_distance_km": 1500,
   "ranking_size": 10}          how many ranked regions to show
"""

from placement_ext.schemas import reselection

CLOUD_TYPES = 'Cloud Type (Cloud Provider)'
VIM_IDS = 'Cloud Owner & Cloud Region (VIM id)'
HIGH_AVAILABILITY = 'Infrastructure High Availability for VNF'
ISOLATION = 'Infrastructure Resource Isolation for VNF'
OVERSUBSCRIPTION = ('Infrastructure Resource Isolation for VNF - '
                    'Burstable QoS Oversubscription Percentage')
GUARANTEED_QOS = 'Guaranteed QoS'
BURSTABLE_QOS = 'Burstable QoS'

# candidate regions one selection may rank (benchmarks/bench_homing.py)
MAX_CANDIDATES = 10_000

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_TEXT = {'type': 'string', 'maxLength': 1024}
_NAMES = {'type': 'array', 'items': _NAME, 'uniqueItems': True}
_LATITUDE = {'type': 'number', 'minimum': -90, 'maximum': 90}
_LONGITUDE = {'type': 'number', 'minimum': -180, 'maximum': 180}
_WEIGHT = {'type': 'number', 'minimum': 0, 'maximum': 1e6}

DEPLOYMENT_INTENT = {
    'type': 'object',
    'properties': {
        CLOUD_TYPES: dict(_NAMES, minItems=1),
        VIM_IDS: dict(_NAMES, minItems=1),
        HIGH_AVAILABILITY: {'type': 'boolean'},
        ISOLATION: {'enum': [GUARANTEED_QOS, BURSTABLE_QOS]},
        # which values are allowed is the operator's choice
        # ([homing] oversubscription_percentages); 1-1000 is the sane range
        OVERSUBSCRIPTION: {'type': 'integer', 'minimum': 1,
                           'maximum': 1000},
    },
    # the percentage's relation to the isolation is checked in
    # decision.homing.parse_intent, with a clearer message than a schema's
    'additionalProperties': False,
}

CLOUD_SELECTION_POLICY = {
    'type': 'object',
    'properties': {
        **{key: _TEXT for key in (
            'service', 'policyName', 'policyDescription', 'templateVersion',
            'version', 'priority', 'riskType', 'riskLevel', 'guard',
            'applicableResources', 'identity', 'policyType')},
        'content': {
            'type': 'object',
            'properties': {
                'vnfc': _NAME,
                'cloud-cost-evaluation': {'type': 'boolean'},
                'cloud-deployment-intent': DEPLOYMENT_INTENT,
            },
            'required': ['cloud-cost-evaluation', 'cloud-deployment-intent'],
        },
        'resources': {'type': 'array', 'items': _NAME},
        'policyScope': {'type': 'array', 'items': _NAME},
    },
    'required': ['content'],
}

LOCATION = {
    'type': 'object',
    'properties': {'latitude': _LATITUDE, 'longitude': _LONGITUDE},
    'required': ['latitude', 'longitude'],
    'additionalProperties': False,
}

CANDIDATE_REGION = {
    'type': 'object',
    'properties': {
        'cloud_owner': _NAME,
        'region_id': _NAME,
        'cloud_type': _NAME,
        'latitude': _LATITUDE,
        'longitude': _LONGITUDE,
        # capacity of a private region is read in this zone only
        'availability_zone': _NAME,
        # the tenant whose quota counts (ONAP: one per owner and region)
        'project': _NAME,
        # A&AI's cloud-region fields, as HAS gives them to SO: the CLLI
        # of its complex (physical-location-id), its version (SO's
        # cloudVersion), zone and complex name (filtering_attributes)
        'physical_location_id': _NAME,
        'cloud_region_version': _NAME,
        'cloud_zone': _NAME,
        'complex_name': _NAME,
        # A&AI's flavors of the region with their HPA capabilities, as
        # HAS's hpa constraint reads them (decision.has_hpa)
        'flavors': {'type': 'array', 'maxItems': 1000, 'items': {
            'type': 'object',
            'properties': {'flavor-name': _NAME, 'flavor-id': _NAME,
                           'hpa-capabilities': {'type': 'object'}},
            'required': ['flavor-name']}},
    },
    'required': ['cloud_owner', 'region_id', 'cloud_type', 'latitude',
                 'longitude'],
    'additionalProperties': False,
}

_AMOUNT = {'type': 'integer', 'minimum': 0, 'maximum': 2 ** 31 - 1}

# One instance is a flavor (looked up in each region's Nova) or a size
# (ONAP HAS's vim_fit request: vCPU, memory, storage).
DEMAND = {
    'type': 'object',
    'properties': {
        'flavor': _NAME,
        'vcpus': dict(_AMOUNT, minimum=1),
        'memory_mb': _AMOUNT,
        'disk_gb': _AMOUNT,
        'count': {'type': 'integer', 'minimum': 1,
                  'maximum': reselection.MAX_VNFCS},
        # for the operator's per instance type costs
        'service': _NAME,
        'instance_type': _NAME,
    },
    # flavor xor size: checked by conductor.homing, naming the field
    'additionalProperties': False,
}

SELECTION_REQUEST = {
    'type': 'object',
    'properties': {
        'policy': CLOUD_SELECTION_POLICY,
        'candidates': {'type': 'array', 'items': CANDIDATE_REGION,
                       'minItems': 1, 'maxItems': MAX_CANDIDATES},
        'customer_location': LOCATION,
        'weights': {
            'type': 'object',
            'properties': {'distance': _WEIGHT, 'cost': _WEIGHT},
            'additionalProperties': False,
        },
        'demand': DEMAND,
        'max_distance_km': {'type': 'number', 'exclusiveMinimum': 0},
        # how many of the ranked regions the answer lists (default 10)
        'ranking_size': {'type': 'integer', 'minimum': 1,
                         'maximum': MAX_CANDIDATES},
    },
    'required': ['policy', 'candidates', 'customer_location', 'demand'],
    'additionalProperties': False,
}

# The operator's inventory of candidate regions ([homing] regions_file),
# used by HAS plans.
REGIONS = {'type': 'array', 'items': CANDIDATE_REGION, 'minItems': 1,
           'maxItems': MAX_CANDIDATES}

_COST = {'type': 'number', 'minimum': -1e9, 'maximum': 1e9}

# The operator's workload deployment cost file ([homing] cost_file); the
# wiki's "Workload Deployment Cost Policy", in one document.
COST_CONFIG = {
    'type': 'object',
    'properties': {
        # fixed cost of a deployment per cloud type
        'cloud_types': {'type': 'object', 'propertyNames': _NAME,
                        'additionalProperties': _COST},
        # <service, vnfc, cloud owner> -> instance type
        'instance_types': {'type': 'array', 'items': {
            'type': 'object',
            'properties': {'service': _NAME, 'vnfc': _NAME,
                           'cloud_owner': _NAME, 'instance_type': _NAME},
            'required': ['cloud_owner', 'instance_type'],
            'additionalProperties': False}},
        # cost of one instance type in one region
        'instance_costs': {'type': 'array', 'items': {
            'type': 'object',
            'properties': {'cloud_owner': _NAME, 'region_id': _NAME,
                           'instance_type': _NAME, 'cost': _COST},
            'required': ['cloud_owner', 'region_id', 'instance_type',
                         'cost'],
            'additionalProperties': False}},
        # cost (or discount, negative) of realising one intent
        'feature_groups': {'type': 'array', 'items': {
            'type': 'object',
            'properties': {
                'cloud_type': _NAME,
                'feature': {'enum': ['high_availability', 'guaranteed_qos',
                                     'burstable_qos']},
                'cost': _COST},
            'required': ['feature', 'cost'],
            'additionalProperties': False}},
    },
    'additionalProperties': False,
}

_SIZE = {'type': 'integer', 'minimum': 0}

# A region's flavors, as ``placement-ext homing realize --flavors`` reads
# them (and as Nova lists them, extra specs included).
FLAVORS = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'name': _NAME, 'id': _NAME,
            'vcpus': _SIZE, 'ram': _SIZE, 'disk': _SIZE,
            'extra_specs': {'type': 'object', 'propertyNames': _NAME,
                            'additionalProperties': {'type': 'string'}},
        },
        'required': ['name', 'vcpus', 'ram', 'disk'],
        'additionalProperties': False,
    },
}
