"""JSON Schema of the cloud view the grant evaluator decides on.

The ``--zones`` file of ``placement-ext grant evaluate`` (our own format,
closed: ``additionalProperties: False``)::

  {"vimConnectionId": "vim-1",                 optional, copied to zones
   "zones": [{"zoneId": "AZ-1",                availability zone name
              "zoneGroup": "G1",               optional (ZONE_GROUP)
              "nfviPop": "pop-1",              optional (NFVI_POP)
              "hosts": [{"name": "az1-h1",
                         "free": {"VCPU": 8, "MEMORY_MB": 16384}}]}],
   "flavours": {"VDU1": {"VCPU": 2, "MEMORY_MB": 2048}},
   "existing": {"<VIM resource id>": {"zoneId": "AZ-1",
                                      "host": "az1-h1"}}}

``free`` is what each host can still take, in Placement resource
classes; ``flavours`` what one instance of each VDU (by
``resourceTemplateId``) consumes; ``existing`` where the allocated
resources named by ``RES_MGMT`` references are (``host`` is needed only
by NFVI_NODE and CIS_NODE constraints).
"""

from placement_ext.schemas import sol003

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_AMOUNTS = {'type': 'object', 'propertyNames': _NAME,
            'additionalProperties': {'type': 'integer', 'minimum': 0}}

HOST_V1_0 = {
    'type': 'object',
    'properties': {'name': _NAME, 'free': _AMOUNTS},
    'required': ['name', 'free'],
    'additionalProperties': False,
}

ZONE_V1_0 = {
    'type': 'object',
    'properties': {
        'zoneId': _NAME,
        'zoneGroup': _NAME,
        'nfviPop': _NAME,
        'hosts': {'type': 'array', 'items': HOST_V1_0},
    },
    'required': ['zoneId', 'hosts'],
    'additionalProperties': False,
}

LOCATION_V1_0 = {
    'type': 'object',
    'properties': {'zoneId': _NAME, 'host': _NAME},
    'required': ['zoneId'],
    'additionalProperties': False,
}

CLOUD_ZONES_V1_0 = {
    'type': 'object',
    'properties': {
        'vimConnectionId': sol003.IDENTIFIER,
        'zones': {'type': 'array', 'items': ZONE_V1_0},
        'flavours': {'type': 'object', 'propertyNames': _NAME,
                     'additionalProperties': _AMOUNTS},
        'existing': {'type': 'object', 'propertyNames': _NAME,
                     'additionalProperties': LOCATION_V1_0},
    },
    'required': ['zones'],
    'additionalProperties': False,
}
