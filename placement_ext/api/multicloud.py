"""ONAP Multi-Cloud's two APIs of the homing specification.

The capacity check, as HAS's multicloud plugin calls it
(``conductor/data/plugins/vim_controller/multicloud.py`` of
onap/optf-has; the API is Multi-Cloud's ``check_vim_capacity``, its
``docs/specs/multicloud_resource_capacity_check.rst``):

``POST /api/multicloud/v0/check_vim_capacity`` ``{"vCPU": int, "Memory":
GB, "Storage": GB, "VIMs": ["<cloud-owner>_<cloud-region-id>", ...]}``
-> ``200 {"VIMs": [the VIMs named that have room for one instance of
that size]}``, in the order given. A VIM is a region of ``[homing]
regions_file``; its room is what the region's Placement and the
project's quota allow (a public cloud type: ``[homing]
public_cloud_capacity``). A VIM we do not know, or whose capacity
cannot be read, is not in the answer.

The Workload Deployment Policy (Intent) API (the specification's "MC
could be exposing a Workload Deployment Policy (Intent) API"; ONAP
defines no path for it, ours is in Multi-Cloud's per-region form):
``POST /api/multicloud/v1/{cloud-owner}/{cloud-region-id}/intent``
``{"policy": the cloud selection policy OOF gave SO, "template": a Heat
template, "environment"?: its environment}`` (template and environment
as objects or YAML text) -> ``200 {"result": "success", "template",
"environment"?, "changes", "flavor"}`` (in the form they came), or
``200 {"result": "failure", "reason"}`` when the region or the template
cannot realise the intent; ``404`` for a region not in the regions file.

Request handling only: the work is :mod:`placement_ext.conductor.multicloud`.
"""

from collections.abc import Callable

import webob
import yaml

from placement_ext import exception
from placement_ext.api import wsgi
from placement_ext.schemas import files
from placement_ext.schemas import validate

PATH = r'^/api/multicloud/v0/check_vim_capacity/?$'
INTENT_PATH = (r'^/api/multicloud/v1/(?P<cloud_owner>[^/]+)/'
               r'(?P<region_id>[^/]+)/intent/?$')
_DOCUMENT = {'type': ['object', 'string'], 'maxLength': 2 * 1024 * 1024}
INTENT_REQUEST = {
    'type': 'object',
    'properties': {'policy': {'type': 'object'}, 'template': _DOCUMENT,
                   'environment': _DOCUMENT},
    'required': ['policy', 'template'],
    'additionalProperties': False,
}
_QUANTITY = {'type': ['number', 'string'], 'minimum': 0,
             'pattern': r'^[0-9]{1,9}(\.[0-9]{1,6})?$'}
CHECK_REQUEST = {
    'type': 'object',
    'properties': {
        'vCPU': {'type': ['integer', 'string'], 'minimum': 1,
                 'maximum': 100000, 'pattern': '^[0-9]{1,6}$'},
        'Memory': _QUANTITY,
        'Storage': _QUANTITY,
        # Multi-Cloud's later form, objects with cloud-owner and
        # cloud-region-id, is refused here (HAS sends VIM ids)
        'VIMs': {'type': 'array', 'maxItems': 10000,
                 'items': {'type': 'string', 'minLength': 1,
                           'maxLength': 255}},
    },
    'required': ['vCPU', 'Memory', 'Storage', 'VIMs'],
    'additionalProperties': False,
}

# (vcpus, memory_gb, storage_gb, vim ids) -> the vim ids with room
Check = Callable[[int, float, float, list[str]], list[str]]
# (cloud owner, region id, policy, template, environment) -> the answer
Realize = Callable[[str, str, dict, dict, dict | None], dict]


def routes(check: Check, realize: Realize, *,
           public: bool = False) -> list[wsgi.Route]:
    """The capacity check's and the intent API's routes.

    :param public: answered without the API's credentials.
    """
    def check_vim_capacity(request: webob.Request) -> webob.Response:
        body = wsgi.read_json(request, 1024 * 1024)
        validate.validate(CHECK_REQUEST, body, 'body')
        vims = check(int(body['vCPU']), float(body['Memory']),
                     float(body['Storage']), list(body['VIMs']))
        return wsgi.json_response(200, {'VIMs': vims})

    def intent(request: webob.Request, cloud_owner: str,
               region_id: str) -> webob.Response:
        body = wsgi.read_json(request, 4 * 1024 * 1024)
        validate.validate(INTENT_REQUEST, body, 'body')
        texts = [key for key in ('template', 'environment')
                 if isinstance(body.get(key), str)]
        answer = realize(cloud_owner, region_id, body['policy'],
                         _document(body, 'template'),
                         _document(body, 'environment'))
        for key in texts:
            if key in answer:
                answer[key] = yaml.safe_dump(answer[key], sort_keys=False)
        return wsgi.json_response(200, answer)

    return [wsgi.Route(PATH, public=public, POST=check_vim_capacity),
            wsgi.Route(INTENT_PATH, public=public, POST=intent)]


def _document(body: dict, key: str) -> dict | None:
    """``body[key]``, a mapping given as such or as YAML text (aliases
    bounded: a few KB of nested aliases would otherwise expand to
    gigabytes when checked and answered).

    :raises InvalidInput: text that is not YAML of a mapping.
    """
    value = body.get(key)
    if isinstance(value, str):
        try:
            value = files.parse_yaml(value)
        except yaml.YAMLError as exc:
            raise exception.InvalidInput(field=key,
                                         reason=f'is not YAML: {exc}')
        if not isinstance(value, dict):
            raise exception.InvalidInput(field=key,
                                         reason='must be a mapping')
        validate.check_document(value, key)
    return value
