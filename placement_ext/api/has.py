"""The ONAP OOF-HAS plan API, so an ONAP-style orchestrator (OSDF, SO)
can ask us for a cloud region the way it asks HAS, in HAS's shapes
(``conductor/api/controllers`` of onap/optf-has):

- ``POST /v1/plans`` ``{"name", "template", "timeout"?, "num_solution"?,
  "id"?, "files"?}`` (``limit`` is our older spelling of
  ``num_solution``): the plan is recorded in status ``template`` and
  answered at once, ``201`` and the bare plan ``{"name", "id", "status",
  "links"}``; solving happens after, in a solver of any homing API
  process sharing the database (:mod:`placement_ext.api.plan_solver`);
- ``GET /v1/plans/{id}``: ``{"plans": [{"name", "id", "status",
  "message"?, "recommendations"?, "links"}]}``, HAS's polling call; the
  status goes ``template``, ``translated``, ``solving``, ``solved``,
  ``done``, or ends ``not found`` / ``error`` with a message;
- ``GET /v1/plans/healthcheck``: HAS's health check plan (no
  credentials, as HAS), ``200`` while the database answers;
- ``GET /``: the API versions, as HAS lists them (no credentials).

``timeout`` (seconds, default ``[homing] plan_timeout``) is honoured: the
plan ends by then at the latest. A template with more demands than
``[homing] max_plan_demands``, or a field HAS does not define, is a
``400`` and no plan is recorded.

Request handling only: translation is ``decision.has_plan``, solving
``api.plan_solver`` and ``conductor.homing.solve_plan``, storage
``objects.plan``, HTTP ``api.wsgi``. HTTP basic authentication, as OSDF
sends it, when ``[homing] api_username`` is set. Errors are ``{"error":
{"code", "title", "message", "field"?}}``.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import webob
from oslo_log import log as logging
from oslo_utils import uuidutils

from placement_ext import configuration
from placement_ext import errors
from placement_ext import exception
from placement_ext.api import plan_solver
from placement_ext.api import wsgi
from placement_ext.decision import has_plan
from placement_ext.objects import plan as plan_obj
from placement_ext.schemas import validate

LOG = logging.getLogger(__name__)

MAX_TIMEOUT = 3600
MAX_SOLUTIONS = 100
PLAN_REQUEST = {
    'type': 'object',
    'properties': {
        'id': {'type': 'string', 'pattern': '^[A-Za-z0-9._-]{1,36}$'},
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'template': {'type': 'object'},
        'timeout': {'type': 'integer', 'minimum': 1,
                    'maximum': MAX_TIMEOUT},
        # HAS's schema says string; OSDF sends "1"
        'num_solution': {'type': ['string', 'integer'],
                         'pattern': '^[0-9]{1,3}$', 'minimum': 1,
                         'maximum': MAX_SOLUTIONS},
        'limit': {'type': 'integer', 'minimum': 1,
                  'maximum': MAX_SOLUTIONS},
        # OSDF sends "files": {}; HAS reads templates from it, we do not
        'files': {'type': 'object', 'maxProperties': 0},
    },
    'required': ['name', 'template'],
    # HAS's schema has template_url too: refused with the rest
    'additionalProperties': False,
}
# HAS's health check plan (conductor/controller/service.py
# insert_healthcheck_plan), as HAS's GET answers it
HEALTHCHECK = {'name': 'foo', 'id': 'healthcheck', 'status': 'solved'}
# the versions HAS's root lists (conductor/api/controllers/root.py)
VERSION_DATES = ('2016-11-01T00:00:00Z', '2018-02-01T00:00:00Z')
MEDIA_TYPE_JSON = 'application/vnd.onap.has-%s+json'


class PlanApp(wsgi.Api):
    """WSGI application of the plan API.

    :param solver: the process's plan solvers; a posted plan is handed
        to them at once (when one is free, else it waits for any
        process's).
    :param routes: more routes on this API's credentials and error
        style: the other APIs of the homing service (Multi-Cloud's
        capacity check, the intent API).
    """

    name = 'plan API'

    def __init__(self, database: object, solver: plan_solver.PlanSolver,
                 *, username: str | None = None,
                 password: str | None = None,
                 max_body: int = 4 * 1024 * 1024,
                 default_timeout: int = 300,
                 max_demands: int = 50,
                 routes: Sequence[wsgi.Route] = ()) -> None:
        super().__init__([
            wsgi.Route(r'^/?$', public=True, GET=self._versions),
            wsgi.Route(r'^/v1/plans/?$', POST=self._create),
            wsgi.Route(r'^/v1/plans/healthcheck/?$', public=True,
                       GET=self._healthcheck),
            wsgi.Route(r'^/v1/plans/(?P<plan_id>[^/]+)/?$', GET=self._show),
            *routes,
        ], style=wsgi.HAS, max_body=max_body)
        self._database = database
        self._solver = solver
        self._credentials = (username, password or '') if username else None
        self._default_timeout = default_timeout
        self._max_demands = max_demands

    def authenticate(self, request: webob.Request) -> None:
        if self._credentials is None:
            return
        given = wsgi.basic_credentials(request)
        user, password = self._credentials
        if given is None or not (wsgi.same_secret(given[0], user)
                                 & wsgi.same_secret(given[1], password)):
            raise wsgi.ApiError(
                401, 'HTTP basic credentials are required',
                code='placement_ext.unauthorized',
                headers=[('WWW-Authenticate',
                          'Basic realm="placement-ext homing"')])

    def _versions(self, request: webob.Request) -> webob.Response:
        href = wsgi.url(request, '/v1')
        return wsgi.json_response(200, {'versions': [{
            'id': 'v1', 'version': f'placement-ext:{configuration.version()}',
            'links': [{'href': href, 'rel': 'self'}],
            'media-types': [{'base': 'application/json',
                             'type': MEDIA_TYPE_JSON % 'v1'}],
            'status': 'EXPERIMENTAL', 'updated': date,
        } for date in VERSION_DATES]})

    def _healthcheck(self, request: webob.Request) -> webob.Response:
        try:
            with self._database.reader() as session:
                session.execute(sa.text('SELECT 1'))
        except Exception:
            LOG.exception('Health check: the database does not answer')
            raise wsgi.ApiError(503, 'the plan database does not answer',
                                code=errors.SERVICE_UNAVAILABLE)
        return wsgi.json_response(200, {'plans': [dict(
            HEALTHCHECK, links=[[{'href': _self_link(request, 'healthcheck'),
                                  'rel': 'self'}]])]})

    def _show(self, request: webob.Request, plan_id: str) -> webob.Response:
        plan = plan_obj.get(self._database, plan_id)
        return wsgi.json_response(200, {'plans': [
            plan.answer(_self_link(request, plan.id))]})

    def _create(self, request: webob.Request) -> webob.Response:
        body = wsgi.read_json(request, self.max_body)
        validate.validate(PLAN_REQUEST, body, 'plan')
        has_plan.check_demand_count(body['template'], self._max_demands)
        plan = plan_obj.create(
            self._database, plan_id=body.get('id') or
            uuidutils.generate_uuid(), name=body['name'],
            template=body['template'], limit=solutions(body),
            timeout=body.get('timeout', self._default_timeout))
        LOG.info('Plan %s (name "%s") created', plan.id, plan.name)
        if not self._solver.submit(plan.id):
            LOG.info('Plan %s waits for a free solver', plan.id)
        return wsgi.json_response(201, plan.created(
            _self_link(request, plan.id)))


def solutions(body: dict) -> int:
    """How many solutions the plan asks: ``num_solution`` (HAS's),
    else ``limit``, else 1.

    :raises InvalidInput: ``num_solution`` outside 1..100.
    """
    count = int(body.get('num_solution', body.get('limit', 1)))
    if not 1 <= count <= MAX_SOLUTIONS:
        raise exception.InvalidInput(
            field='num_solution',
            reason=f'must be within 1..{MAX_SOLUTIONS}')
    return count


def _self_link(request: webob.Request, plan_id: str) -> str:
    return wsgi.url(request, f'/v1/plans/{plan_id}')
