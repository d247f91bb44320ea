"""ONAP HAS homing plans, solved asynchronously by any homing API process.

A plan is written ``template`` by ``POST /v1/plans`` and answered at
once; a solver then :func:`claim` s it (one atomic UPDATE: of two
processes exactly one wins), moves it through HAS's statuses
(:func:`advance`: ``translated``, ``solving``, ``solved``) and
:func:`finish` es it (``done``, ``not found`` or ``error``). While it
works the claim is renewed by :func:`heartbeat`; a plan whose owner
stopped heart-beating is :func:`claimable` again by any process, so a
plan interrupted by a restart is solved again or ends ``error`` (see
``api.plan_solver``), never left ``solving``.

Every write of a status is guarded by the owner: a process that lost
its claim (its heartbeat went stale and another took the plan) cannot
overwrite the new owner's answer.
"""

import dataclasses
import datetime

import sqlalchemy as sa

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.vocabulary import states


@dataclasses.dataclass(frozen=True)
class Plan:
    id: str
    name: str
    status: str
    template: dict
    limit: int
    timeout: int
    recommendations: list
    message: str
    detail: dict
    created_at: datetime.datetime
    deadline_at: datetime.datetime | None
    attempts: int
    owner: str | None

    def answer(self, self_link: str) -> dict:
        """The plan as HAS's ``GET /v1/plans/{id}`` shows it (``message``
        and ``recommendations`` only when there are some, as HAS), with
        why each region was dropped and the calls made once solved."""
        plan = self.created(self_link)
        if self.message:
            plan['message'] = self.message
        if self.recommendations:
            plan['recommendations'] = self.recommendations
        plan.update(self.detail)
        return plan

    def created(self, self_link: str) -> dict:
        """The plan as HAS's ``POST /v1/plans`` answers it."""
        return {'name': self.name, 'id': self.id, 'status': self.status,
                'links': [[{'href': self_link, 'rel': 'self'}]]}

    def seconds_left(self, now: datetime.datetime | None = None) -> float:
        """Seconds until the plan's deadline (negative once passed)."""
        deadline = self.deadline_at or (
            self.created_at + datetime.timedelta(seconds=self.timeout))
        return (deadline - (now or models.utcnow())).total_seconds()


@db_api.retry_on_deadlock
def create(database: db_api.Database, *, plan_id: str, name: str,
           template: dict, limit: int, timeout: int) -> Plan:
    """A new plan in status ``template``, due ``timeout`` s from now, as
    written (a solver may move it on as soon as it is committed).

    :raises Conflict: a plan with this id exists.
    """
    now = models.utcnow()
    row = models.HomingPlan(
        id=plan_id, name=name, template=template, solution_limit=limit,
        status=states.PLAN_TEMPLATE, timeout=timeout, attempts=0,
        created_at=now,
        deadline_at=now + datetime.timedelta(seconds=timeout))
    with database.writer() as session:
        if session.get(models.HomingPlan, plan_id) is not None:
            raise exception.Conflict(reason=f'plan {plan_id} exists')
        session.add(row)
        session.flush()
        return _plan(row)


def _claimable(stale_before: datetime.datetime) -> sa.ColumnElement:
    table = models.HomingPlan
    return sa.and_(table.status.in_(states.PLAN_UNFINISHED),
                   sa.or_(table.owner.is_(None),
                          table.heartbeat_at.is_(None),
                          table.heartbeat_at < stale_before))


@db_api.retry_on_deadlock
def claim(database: db_api.Database, plan_id: str, owner: str,
          stale_before: datetime.datetime) -> Plan | None:
    """Make ``owner`` the solver of an unfinished plan nobody solves (no
    owner, or one whose heartbeat is older than ``stale_before``) and
    count the attempt; the plan, or None when another process has it."""
    table = models.HomingPlan
    stmt = (sa.update(table)
            .where(table.id == plan_id, _claimable(stale_before))
            .values(owner=owner, heartbeat_at=models.utcnow(),
                    attempts=table.attempts + 1)
            .execution_options(synchronize_session=False))
    with database.writer() as session:
        if session.execute(stmt).rowcount != 1:
            return None
    return get(database, plan_id)


def claimable(database: db_api.Database, stale_before: datetime.datetime,
              limit: int) -> list[str]:
    """Up to ``limit`` ids of unfinished plans nobody solves, oldest
    first."""
    table = models.HomingPlan
    stmt = (sa.select(table.id).where(_claimable(stale_before))
            .order_by(table.created_at, table.id).limit(limit))
    with database.reader() as session:
        return list(session.scalars(stmt))


@db_api.retry_on_deadlock
def heartbeat(database: db_api.Database, owner: str,
              plan_ids: list[str]) -> int:
    """Renew ``owner``'s claim on ``plan_ids`` (the plans its threads
    solve now); how many it still holds."""
    if not plan_ids:
        return 0
    table = models.HomingPlan
    stmt = (sa.update(table)
            .where(table.owner == owner, table.id.in_(plan_ids),
                   table.status.in_(states.PLAN_UNFINISHED))
            .values(heartbeat_at=models.utcnow())
            .execution_options(synchronize_session=False))
    with database.writer() as session:
        return session.execute(stmt).rowcount


@db_api.retry_on_deadlock
def advance(database: db_api.Database, plan_id: str, owner: str,
            status: str) -> bool:
    """Move ``owner``'s unfinished plan to ``status`` (``translated``,
    ``solving``); False when ``owner`` lost it."""
    table = models.HomingPlan
    stmt = (sa.update(table)
            .where(table.id == plan_id, table.owner == owner,
                   table.status.in_(states.PLAN_UNFINISHED))
            .values(status=status, heartbeat_at=models.utcnow())
            .execution_options(synchronize_session=False))
    with database.writer() as session:
        return session.execute(stmt).rowcount == 1


@db_api.retry_on_deadlock
def finish(database: db_api.Database, plan_id: str, owner: str, *,
           status: str, message: str = '',
           recommendations: list | None = None,
           detail: dict | None = None) -> bool:
    """Write ``owner``'s answer: ``solved`` (still owned, ``done``
    follows), or a final status (the claim ends); False when ``owner``
    lost the plan."""
    table = models.HomingPlan
    final = status != states.PLAN_SOLVED
    stmt = (sa.update(table)
            .where(table.id == plan_id, table.owner == owner,
                   table.status.in_(states.PLAN_UNFINISHED +
                                    (states.PLAN_SOLVED,)))
            .values(status=status, message=exception.shorten(message),
                    recommendations=recommendations or [],
                    detail=detail or {},
                    owner=None if final else owner,
                    heartbeat_at=None if final else models.utcnow())
            .execution_options(synchronize_session=False))
    with database.writer() as session:
        return session.execute(stmt).rowcount == 1


def get(database: db_api.Database, plan_id: str) -> Plan:
    """:raises NotFound: no such plan."""
    with database.reader() as session:
        row = session.get(models.HomingPlan, plan_id)
        if row is None:
            raise exception.NotFound(kind='plan', id=plan_id)
        return _plan(row)


def _plan(row: models.HomingPlan) -> Plan:
    return Plan(row.id, row.name, row.status, row.template,
                row.solution_limit, row.timeout, row.recommendations or [],
                row.message or '', row.detail or {}, row.created_at,
                row.deadline_at, row.attempts, row.owner)
