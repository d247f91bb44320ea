"""ONAP HAS homing plans: written ``solving`` before any work, then
finished once with the answer, so a plan is never lost between the
request and the answer. A plan left ``solving`` by a stopped API process
reads as ``error`` once it is older than its own timeout allowed.
"""

import dataclasses
import datetime

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
    recommendations: list
    message: str
    detail: dict
    created_at: datetime.datetime

    def answer(self, self_link: str) -> dict:
        """The plan as HAS shows it."""
        return {'name': self.name, 'id': self.id, 'status': self.status,
                'message': self.message,
                'links': [[{'href': self_link, 'rel': 'self'}]],
                'recommendations': self.recommendations,
                'dropped': self.detail.get('dropped', {}),
                'calls': self.detail.get('calls', {})}


@db_api.retry_on_deadlock
def create(database: db_api.Database, *, plan_id: str, name: str,
           template: dict, limit: int) -> Plan:
    """:raises Conflict: a plan with this id exists."""
    row = models.HomingPlan(id=plan_id, name=name, template=template,
                            solution_limit=limit,
                            status=states.PLAN_SOLVING)
    with database.writer() as session:
        if session.get(models.HomingPlan, plan_id) is not None:
            raise exception.Conflict(reason=f'plan {plan_id} exists')
        session.add(row)
    return get(database, plan_id)


@db_api.retry_on_deadlock
def finish(database: db_api.Database, plan_id: str, *, status: str,
           message: str = '', recommendations: list | None = None,
           detail: dict | None = None) -> Plan:
    with database.writer() as session:
        row = session.get(models.HomingPlan, plan_id)
        if row is None:
            raise exception.NotFound(kind='plan', id=plan_id)
        row.status = status
        row.message = exception.shorten(message)
        row.recommendations = recommendations or []
        row.detail = detail or {}
    return get(database, plan_id)


def get(database: db_api.Database, plan_id: str,
        stale_after: float | None = None) -> Plan:
    """The plan; one still ``solving`` after ``stale_after`` seconds is
    shown as ``error`` (its solver stopped: submit it again)."""
    with database.reader() as session:
        row = session.get(models.HomingPlan, plan_id)
        if row is None:
            raise exception.NotFound(kind='plan', id=plan_id)
        plan = Plan(row.id, row.name, row.status, row.template,
                    row.solution_limit, row.recommendations or [],
                    row.message or '', row.detail or {}, row.created_at)
    age = (models.utcnow() - plan.created_at).total_seconds()
    if plan.status == states.PLAN_SOLVING and stale_after is not None \
            and age > stale_after:
        return dataclasses.replace(
            plan, status=states.PLAN_ERROR,
            message=f'the plan was left unsolved for {age:.0f} s (its API '
                    f'process stopped); submit it again')
    return plan
