"""The ONAP OOF-HAS plan API, so an ONAP-style orchestrator (OSDF, SO)
can ask us for a cloud region the way it asks HAS:

- ``POST /v1/plans`` ``{"name", "template", "timeout", "limit", "id"?}``:
  the plan is recorded, solved while the request waits (a selection reads
  a few Nova and Placement answers per region) and answered with ``201``
  and ``{"plan": {...}}``, status ``done``, ``not found`` (no region left;
  ``message`` says why each went) or ``error`` (a template we cannot
  honour, or the plan's ``timeout`` passed; ``message`` says which);
- ``GET /v1/plans/{id}``: ``{"plans": [{...}]}``, HAS's polling call;
- ``GET /``: the API versions.

``timeout`` (seconds, default ``[homing] plan_timeout``) is honoured:
the plan is answered by then at the latest, as ``error`` with a message
saying the timeout passed, even when a region's services hang. A
template with more demands than ``[homing] max_plan_demands`` is a
``400`` and no plan is recorded.

Request handling only: translation is ``decision.has_plan``, solving
``conductor.homing.solve_plan``, storage ``objects.plan``, HTTP
``api.wsgi``. HTTP basic authentication, as OSDF sends it, when
``[homing] api_username`` is set. Errors are ``{"error": {"code",
"title", "message", "field"?}}``.
"""

import threading
import time
from collections.abc import Callable

import webob
from oslo_log import log as logging
from oslo_utils import uuidutils

from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext.api import wsgi
from placement_ext.decision import has_plan
from placement_ext.objects import plan as plan_obj
from placement_ext.schemas import validate
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)

MAX_TIMEOUT = 3600
PLAN_REQUEST = {
    'type': 'object',
    'properties': {
        'id': {'type': 'string', 'pattern': '^[A-Za-z0-9._-]{1,36}$'},
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'template': {'type': 'object'},
        'timeout': {'type': 'integer', 'minimum': 1,
                    'maximum': MAX_TIMEOUT},
        'limit': {'type': 'integer', 'minimum': 1, 'maximum': 100},
    },
    'required': ['name', 'template'],
    # OSDF sends more (transaction_id, num_solution...): accepted, unused
}

# solve(template, limit, deadline) -> the dict of
# :func:`placement_ext.conductor.homing.solve_plan`; ``deadline`` is a
# time.monotonic() value
Solver = Callable[[dict, int, float], dict]

# a plan still "solving" after this long lost its solver
_STALE_AFTER = MAX_TIMEOUT + 60


class PlanApp(wsgi.Api):
    """WSGI application of the plan API.

    :param solve: see :data:`Solver`.
    :param solvers: plans solved at once; more wait for a solver, within
        their own timeout.
    """

    name = 'plan API'

    def __init__(self, database: object, solve: Solver, *,
                 username: str | None = None,
                 password: str | None = None,
                 max_body: int = 4 * 1024 * 1024,
                 default_timeout: int = 300, max_demands: int = 50,
                 solvers: int = 4) -> None:
        super().__init__([
            wsgi.Route(r'^/?$', GET=self._versions),
            wsgi.Route(r'^/v1/plans/?$', POST=self._create),
            wsgi.Route(r'^/v1/plans/(?P<plan_id>[^/]+)/?$', GET=self._show),
        ], style=wsgi.HAS, max_body=max_body)
        self._database = database
        self._solve = solve
        self._credentials = (username, password or '') if username else None
        self._default_timeout = default_timeout
        self._max_demands = max_demands
        # plans solved at once (see _solve_by)
        self._slots = threading.BoundedSemaphore(solvers)

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
        return wsgi.json_response(200, {'versions': [{
            'id': 'v1', 'status': 'CURRENT',
            'links': [{'rel': 'self', 'href': wsgi.url(request, '/v1')}]}]})

    def _show(self, request: webob.Request, plan_id: str) -> webob.Response:
        plan = plan_obj.get(self._database, plan_id,
                            stale_after=_STALE_AFTER)
        return wsgi.json_response(200, {'plans': [
            plan.answer(_self_link(request, plan.id))]})

    def _create(self, request: webob.Request) -> webob.Response:
        started = time.monotonic()
        body = wsgi.read_json(request, self.max_body)
        validate.validate(PLAN_REQUEST, body, 'plan')
        has_plan.check_demand_count(body['template'], self._max_demands)
        limit = body.get('limit', 1)
        timeout = body.get('timeout', self._default_timeout)
        plan = plan_obj.create(
            self._database, plan_id=body.get('id') or
            uuidutils.generate_uuid(), name=body['name'],
            template=body['template'], limit=limit)
        plan = self._finish(plan, limit, started + timeout, timeout)
        return wsgi.json_response(201, {'plan': plan.answer(
            _self_link(request, plan.id))})

    def _finish(self, plan: plan_obj.Plan, limit: int, deadline: float,
                timeout: int) -> plan_obj.Plan:
        try:
            answer = self._solve_by(plan, limit, deadline)
        except TimeoutError:
            LOG.warning('Plan %s: its timeout of %s s passed', plan.id,
                        timeout)
            return plan_obj.finish(
                self._database, plan.id, status=states.PLAN_ERROR,
                message=f'timed out: the plan\'s timeout of {timeout} s '
                        f'passed before every region was read')
        except exception.PlacementExtError as exc:
            LOG.info('Plan %s: %s', plan.id, exc.detail)
            return plan_obj.finish(self._database, plan.id,
                                   status=states.PLAN_ERROR,
                                   message=exc.detail)
        except Exception as exc:
            LOG.exception('Plan %s failed', plan.id)
            return plan_obj.finish(
                self._database, plan.id, status=states.PLAN_ERROR,
                message=f'unexpected error: {type(exc).__name__}')
        return plan_obj.finish(
            self._database, plan.id, status=answer['status'],
            message=answer['message'],
            recommendations=answer['recommendations'],
            detail={'dropped': answer['dropped'],
                    'calls': answer['calls']})

    def _solve_by(self, plan: plan_obj.Plan, limit: int,
                  deadline: float) -> dict:
        """The solver's answer, in a thread of its own, waited for until
        ``deadline`` only: a region whose services hang keeps its thread
        (daemon: it never holds up a stop), not the request.

        :raises TimeoutError: no solver was free, or the answer did not
            come, by ``deadline``.
        """
        if not self._slots.acquire(timeout=_left(deadline)):
            raise TimeoutError
        outcome: dict = {}
        done = threading.Event()

        def run() -> None:
            try:
                outcome['answer'] = self._solve(plan.template, limit,
                                                deadline)
            except BaseException as exc:  # handed to the request thread
                outcome['error'] = exc
            finally:
                self._slots.release()
                done.set()

        threading.Thread(target=pe_context.carried(run),
                         name=f'plan-{plan.id}',
                         daemon=True).start()
        if not done.wait(_left(deadline)):
            raise TimeoutError
        if 'error' in outcome:
            raise outcome['error']
        return outcome['answer']


def _left(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())


def _self_link(request: webob.Request, plan_id: str) -> str:
    return wsgi.url(request, f'/v1/plans/{plan_id}')
