"""The ONAP OOF-HAS plan API, so an ONAP-style orchestrator (OSDF, SO)
can ask us for a cloud region the way it asks HAS:

- ``POST /v1/plans`` ``{"name", "template", "timeout", "limit", "id"?}``:
  the plan is recorded, solved while the request waits (a selection reads
  a few Nova and Placement answers per region) and answered with ``201``
  and ``{"plan": {...}}``, status ``done``, ``not found`` (no region left;
  ``message`` says why each went) or ``error`` (a template we cannot
  honour; ``message`` names the field);
- ``GET /v1/plans/{id}``: ``{"plans": [{...}]}``, HAS's polling call;
- ``GET /``: the API versions.

Request handling only: translation is ``decision.has_plan``, solving
``conductor.homing.solve_plan``, storage ``objects.plan``. HTTP basic
authentication, as OSDF sends it, when ``[homing] api_username`` is set.
Errors are ``{"error": {"code", "title", "message", "field"?}}``.
"""

import base64
import binascii
import hmac
import json
import re
from collections.abc import Callable
from collections.abc import Iterable

from oslo_log import log as logging
from oslo_utils import uuidutils

from placement_ext import exception
from placement_ext.db import models
from placement_ext.objects import plan as plan_obj
from placement_ext.schemas import validate

LOG = logging.getLogger(__name__)

MAX_BODY = 4 * 1024 * 1024
_PLAN_PATH = re.compile(r'^/v1/plans/(?P<id>[^/]+)/?$')
_STATUS_TEXT = {200: 'OK', 201: 'Created', 400: 'Bad Request',
                401: 'Unauthorized', 404: 'Not Found',
                405: 'Method Not Allowed', 409: 'Conflict',
                413: 'Payload Too Large', 500: 'Internal Server Error',
                503: 'Service Unavailable'}
_HTTP_STATUS = {exception.InvalidInput: 400, exception.NotFound: 404,
                exception.Conflict: 409, exception.ServiceUnavailable: 503}

PLAN_REQUEST = {
    'type': 'object',
    'properties': {
        'id': {'type': 'string', 'pattern': '^[A-Za-z0-9._-]{1,36}$'},
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'template': {'type': 'object'},
        'timeout': {'type': 'integer', 'minimum': 1, 'maximum': 3600},
        'limit': {'type': 'integer', 'minimum': 1, 'maximum': 100},
    },
    'required': ['name', 'template'],
    # OSDF sends more (transaction_id, num_solution...): accepted, unused
}

Solver = Callable[[dict, int], dict]


class _Reply(Exception):
    def __init__(self, status: int, body: dict,
                 headers: Iterable[tuple[str, str]] = ()) -> None:
        super().__init__(status)
        self.status, self.body, self.headers = status, body, list(headers)


class PlanApp:
    """WSGI application of the plan API.

    :param solve: ``solve(template, limit)`` -> the dict of
        :func:`placement_ext.conductor.homing.solve_plan`.
    """

    def __init__(self, database: object, solve: Solver, *,
                 username: str | None = None,
                 password: str | None = None) -> None:
        self._database = database
        self._solve = solve
        self._credentials = (username, password or '') if username else None

    def __call__(self, environ: dict, start_response: Callable) -> list:
        try:
            self._authenticate(environ)
            status, body = self._route(environ)
            headers = []
        except _Reply as reply:
            status, body, headers = reply.status, reply.body, reply.headers
        except exception.PlacementExtError as exc:
            status, body, headers = _error(exc), _error_body(exc), []
        except Exception:
            LOG.exception('Plan API request failed')
            status, body, headers = 500, {'error': {
                'code': 'placement_ext.internal', 'title': 'Internal error',
                'message': 'unexpected error; see the API log'}}, []
        payload = json.dumps(body).encode()
        start_response(f'{status} {_STATUS_TEXT[status]}', [
            ('Content-Type', 'application/json'),
            ('Content-Length', str(len(payload))), *headers])
        return [payload]

    def _authenticate(self, environ: dict) -> None:
        if self._credentials is None:
            return
        header = environ.get('HTTP_AUTHORIZATION', '')
        scheme, _, encoded = header.partition(' ')
        try:
            user, _, password = base64.b64decode(
                encoded, validate=True).decode().partition(':')
        except (binascii.Error, UnicodeDecodeError):
            user = password = None
        expected_user, expected_password = self._credentials
        if scheme.lower() != 'basic' or user is None or not (
                hmac.compare_digest(user, expected_user)
                & hmac.compare_digest(password, expected_password)):
            raise _Reply(401, {'error': {
                'code': 'placement_ext.unauthorized',
                'title': 'Unauthorized',
                'message': 'HTTP basic credentials are required'}},
                [('WWW-Authenticate', 'Basic realm="placement-ext homing"')])

    def _route(self, environ: dict) -> tuple[int, dict]:
        path = environ.get('PATH_INFO', '/') or '/'
        method = environ.get('REQUEST_METHOD', 'GET')
        if path in ('/', ''):
            _allow(method, 'GET')
            return 200, {'versions': [{'id': 'v1', 'status': 'CURRENT',
                                       'links': [{'rel': 'self',
                                                  'href': _url(environ,
                                                               '/v1')}]}]}
        if path.rstrip('/') == '/v1/plans':
            _allow(method, 'POST')
            return self._create(environ)
        match = _PLAN_PATH.match(path)
        if match:
            _allow(method, 'GET')
            plan = plan_obj.get(self._database, match['id'],
                                stale_after=_STALE_AFTER)
            return 200, {'plans': [plan.answer(_self_link(environ,
                                                          plan.id))]}
        raise exception.NotFound(kind='resource', id=path)

    def _create(self, environ: dict) -> tuple[int, dict]:
        body = _read_json(environ)
        validate.validate(PLAN_REQUEST, body, 'plan')
        limit = body.get('limit', 1)
        plan = plan_obj.create(
            self._database, plan_id=body.get('id') or
            uuidutils.generate_uuid(), name=body['name'],
            template=body['template'], limit=limit)
        plan = self._finish(plan, limit)
        return 201, {'plan': plan.answer(_self_link(environ, plan.id))}

    def _finish(self, plan: plan_obj.Plan, limit: int) -> plan_obj.Plan:
        try:
            answer = self._solve(plan.template, limit)
        except exception.PlacementExtError as exc:
            LOG.info('Plan %s: %s', plan.id, exc.detail)
            return plan_obj.finish(self._database, plan.id,
                                   status=models.PLAN_ERROR,
                                   message=exc.detail)
        except Exception as exc:
            LOG.exception('Plan %s failed', plan.id)
            return plan_obj.finish(
                self._database, plan.id, status=models.PLAN_ERROR,
                message=f'unexpected error: {type(exc).__name__}')
        return plan_obj.finish(
            self._database, plan.id, status=answer['status'],
            message=answer['message'],
            recommendations=answer['recommendations'],
            detail={'dropped': answer['dropped'],
                    'calls': answer['calls']})


# a plan still "solving" after this long lost its solver
_STALE_AFTER = 3600 + 60


def _allow(method: str, allowed: str) -> None:
    if method != allowed:
        raise _Reply(405, {'error': {
            'code': 'placement_ext.method_not_allowed',
            'title': 'Method not allowed',
            'message': f'{method} is not allowed here; use {allowed}'}},
            [('Allow', allowed)])


def _read_json(environ: dict) -> object:
    try:
        length = int(environ.get('CONTENT_LENGTH') or 0)
    except ValueError:
        length = -1
    if length < 0 or length > MAX_BODY:
        raise _Reply(413, {'error': {
            'code': 'placement_ext.input.too_large',
            'title': 'Payload too large',
            'message': f'the body must be at most {MAX_BODY} bytes'}})
    raw = environ['wsgi.input'].read(length)
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise exception.InvalidInput(field='body',
                                     reason=f'is not JSON: {exc}')


def _url(environ: dict, path: str) -> str:
    scheme = environ.get('wsgi.url_scheme', 'http')
    host = environ.get('HTTP_HOST') or \
        f"{environ.get('SERVER_NAME', 'localhost')}:" \
        f"{environ.get('SERVER_PORT', '80')}"
    return f'{scheme}://{host}{environ.get("SCRIPT_NAME", "")}{path}'


def _self_link(environ: dict, plan_id: str) -> str:
    return _url(environ, f'/v1/plans/{plan_id}')


def _error(exc: exception.PlacementExtError) -> int:
    for cls, status in _HTTP_STATUS.items():
        if isinstance(exc, cls):
            return status
    return 500


def _error_body(exc: exception.PlacementExtError) -> dict:
    error = {'code': exc.code, 'title': exc.title, 'message': exc.detail}
    if isinstance(exc, exception.InvalidInput):
        error['field'] = exc.field
    return {'error': error}
