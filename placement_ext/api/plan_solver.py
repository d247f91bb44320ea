"""The HAS plans' solvers of one placement-ext-homing-api process.

A bounded pool (``[homing] plan_solvers`` threads) solves the plans this
process claims (``objects.plan.claim``): the one just posted when a
solver is free, and, every ``interval`` seconds, the unfinished plans
nobody solves (posted while every solver was busy, here or in another
process, or left by a process that stopped). Each plan goes as HAS's
do: ``translated`` once its template is read, ``solving``, then
``solved`` and ``done``, or ``not found`` / ``error`` with HAS's
messages.

``timeout`` is honoured: a plan is answered by its deadline (creation +
``timeout``) at the latest, ``error`` saying the timeout passed, even
when a region's services hang (the solve runs in a thread of its own and
is waited for until the deadline only: a hung region keeps that thread,
daemon, not a solver). A plan taken up again after its process stopped
ends ``error`` when its deadline passed or after
``states.MAX_PLAN_ATTEMPTS`` tries.
"""

import concurrent.futures
import datetime
import socket
import threading
import time
import uuid
from collections.abc import Callable

from oslo_log import log as logging

from placement_ext import background
from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.decision import has_plan
from placement_ext.objects import plan as plan_obj
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)

# solve(template, limit, deadline) -> the dict of
# :func:`placement_ext.conductor.homing.solve_plan`; ``deadline`` is a
# time.monotonic() value
Solver = Callable[[dict, int, float], dict]


def default_owner() -> str:
    """This process as a plan's owner: host and a per-process suffix, so
    a restarted process never mistakes its predecessor's plans for the
    ones its threads solve."""
    return f'{socket.gethostname()}:{uuid.uuid4().hex[:8]}'


class PlanSolver:
    """Solves HAS plans from the database on a bounded pool.

    :param solve: see :data:`Solver`.
    :param workers: plans solved at once by this process.
    :param interval: seconds between heartbeats and looks for plans
        nobody solves; a claim not renewed for ``5 * interval`` seconds
        is taken over.
    """

    name = 'homing-plan-solver'

    def __init__(self, database: db_api.Database, solve: Solver, *,
                 workers: int = 4, interval: float = 2.0,
                 owner: str | None = None) -> None:
        self._database = database
        self._solve = solve
        self.owner = owner or default_owner()
        self._stale_after = datetime.timedelta(seconds=5 * interval)
        self._workers = workers
        self._slots = threading.BoundedSemaphore(workers)
        self._pool = concurrent.futures.ThreadPoolExecutor(
            workers, thread_name_prefix='plan')
        self._lock = threading.Lock()
        self._running: set[str] = set()
        self._task = background.PeriodicTask(self.name, interval, self.tick)

    def start(self) -> None:
        self._task.start()

    def stop(self) -> None:
        """No more claims; the plans in progress finish (those that do
        not are taken over by another process once their claim is
        stale)."""
        self._task.stop()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def wait(self) -> None:
        self._pool.shutdown(wait=True)

    def submit(self, plan_id: str) -> bool:
        """Solve the plan here if a solver is free and nobody solves it;
        whether it was taken."""
        if not self._slots.acquire(blocking=False):
            return False
        try:
            plan = plan_obj.claim(self._database, plan_id, self.owner,
                                  self._stale_before())
            if plan is not None:
                with self._lock:
                    self._running.add(plan.id)
                self._pool.submit(self._run, plan)
                return True
        except Exception:
            LOG.exception('Plan %s could not be claimed', plan_id)
        self._slots.release()
        return False

    def tick(self, context: object = None) -> None:
        """Renew this process's claims, then take plans nobody solves
        while solvers are free."""
        with self._lock:
            running = list(self._running)
        plan_obj.heartbeat(self._database, self.owner, running)
        for plan_id in plan_obj.claimable(
                self._database, self._stale_before(), self._workers):
            if not self.submit(plan_id):
                break

    def _stale_before(self) -> datetime.datetime:
        return models.utcnow() - self._stale_after

    def _run(self, plan: plan_obj.Plan) -> None:
        try:
            self._solve_plan(plan)
        except Exception:  # a database outage: the claim goes stale
            LOG.exception('Plan %s: solving failed; another attempt '
                          'follows once its claim is stale', plan.id)
        finally:
            with self._lock:
                self._running.discard(plan.id)
            self._slots.release()

    def _solve_plan(self, plan: plan_obj.Plan) -> None:
        refusal = _refusal(plan)
        if refusal:
            LOG.warning('Plan %s: %s', plan.id, refusal)
            self._finish(plan, states.PLAN_ERROR, refusal)
            return
        try:
            has_plan.translate(plan.template)
        except exception.PlacementExtError as exc:
            LOG.info('Plan %s: %s', plan.id, exc.detail)
            self._finish(plan, states.PLAN_ERROR, exc.detail)
            return
        for status in (states.PLAN_TRANSLATED, states.PLAN_SOLVING):
            if not plan_obj.advance(self._database, plan.id, self.owner,
                                    status):
                LOG.warning('Plan %s was taken over by another process',
                            plan.id)
                return
        status, message, answer = self._answer(plan)
        if status == states.PLAN_DONE:
            # HAS reserves between solved and done; nothing to reserve
            self._finish(plan, states.PLAN_SOLVED, message, answer)
        self._finish(plan, status, message, answer)

    def _answer(self, plan: plan_obj.Plan) -> tuple[str, str, dict]:
        """(status, message, answer) of the solve."""
        deadline = time.monotonic() + plan.seconds_left()
        try:
            answer = _within(deadline, self._solve, plan.template,
                             plan.limit, deadline)
        except TimeoutError:
            return states.PLAN_ERROR, _timed_out(plan), {}
        except exception.PlacementExtError as exc:
            LOG.info('Plan %s: %s', plan.id, exc.detail)
            return states.PLAN_ERROR, exc.detail, {}
        except Exception as exc:
            LOG.exception('Plan %s failed', plan.id)
            return (states.PLAN_ERROR,
                    f'unexpected error: {type(exc).__name__}', {})
        status, message = answer['status'], answer['message']
        if status == states.PLAN_NOT_FOUND:
            message = (f'Plan {plan.id} search failed, no recommendations '
                       f'found by machine {self.owner}: {message}')
        elif status == states.PLAN_ERROR and message.startswith('timed out'):
            message = _timed_out(plan)
        return status, message, answer

    def _finish(self, plan: plan_obj.Plan, status: str, message: str,
                answer: dict | None = None) -> None:
        answer = answer or {}
        detail = {key: answer[key] for key in ('dropped', 'calls')
                  if key in answer}
        if not plan_obj.finish(
                self._database, plan.id, self.owner, status=status,
                message=message,
                recommendations=answer.get('recommendations'),
                detail=detail):
            LOG.warning('Plan %s was taken over by another process; its '
                        'answer here is dropped', plan.id)


def _refusal(plan: plan_obj.Plan) -> str | None:
    """Why a plan taken up again must end now, HAS's messages."""
    if plan.attempts > states.MAX_PLAN_ATTEMPTS:
        return (f'Tried {states.MAX_PLAN_ATTEMPTS} times. Plan {plan.id} '
                f'is unable to solve (its homing API process stopped '
                f'each time)')
    if plan.seconds_left() <= 0:
        return (_timed_out(plan) +
                ' (its homing API process stopped while solving it)'
                if plan.attempts > 1 else _timed_out(plan))
    return None


def _timed_out(plan: plan_obj.Plan) -> str:
    return (f'Plan {plan.id} is timed out, exceed the expected time '
            f'{plan.timeout} seconds')


def _within(deadline: float, func: Callable, *args: object) -> object:
    """``func(*args)`` in a daemon thread, waited for until
    ``deadline`` only.

    :raises TimeoutError: the answer did not come by ``deadline``.
    """
    outcome: dict = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome['answer'] = func(*args)
        except BaseException as exc:  # handed to the waiting thread
            outcome['error'] = exc
        finally:
            done.set()

    threading.Thread(target=run, name='plan-solve', daemon=True).start()
    if not done.wait(max(0.0, deadline - time.monotonic())):
        raise TimeoutError
    if 'error' in outcome:
        raise outcome['error']
    return outcome['answer']
