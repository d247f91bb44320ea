"""Lifecycle operation records and their zone attempts.

An operation (SOL003 VnfLcmOpOcc subset) is written before any work
starts, and every stack create or update it makes is an attempt row, so a
restarted conductor resumes from the database: zones that failed stay
failed, and a try left in flight is finished, not repeated.

State and ``state_entered_at`` always change together, guarded by the
operation's generation (compare-and-swap), so two conductors cannot both
change one operation. Which conductor drives it is its ``owner``, kept
alive by a heartbeat (:func:`claim`, :func:`heartbeat`, :func:`release`):
when a conductor stops, another adopts its operations once the heartbeat
is stale, instead of them waiting for the same host to come back.
"""

import dataclasses
import datetime
from collections.abc import Iterable

import sqlalchemy as sa
from oslo_utils import uuidutils

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.objects import states

TERMINAL_STATES = (states.STATE_COMPLETED, states.STATE_FAILED,
                   states.STATE_ROLLED_BACK)
RUNNABLE_STATES = (states.STATE_STARTING, states.STATE_PROCESSING)


@dataclasses.dataclass(frozen=True)
class Attempt:
    seq: int
    vdu_id: str
    zone: str
    outcome: str | None
    error_text: str | None
    started_at: datetime.datetime
    duration_s: float | None
    decision: dict

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out['started_at'] = self.started_at.isoformat()
        return out


@dataclasses.dataclass(frozen=True)
class Operation:
    id: str
    vnf_instance_id: str
    operation: str
    state: str
    state_entered_at: datetime.datetime
    params: dict
    placement: dict
    error: dict | None
    request_id: str | None
    generation: int
    attempts: tuple[Attempt, ...] = ()
    owner: str | None = None
    heartbeat_at: datetime.datetime | None = None

    @property
    def failed_zones(self) -> dict[str, list[str]]:
        """VNFC -> zones it lacked capacity in, oldest first."""
        failed: dict[str, list[str]] = {}
        for attempt in self.attempts:
            if attempt.outcome == states.OUTCOME_INSUFFICIENT_CAPACITY:
                failed.setdefault(attempt.vdu_id, []).append(attempt.zone)
        return failed

    @property
    def in_flight(self) -> Attempt | None:
        """The attempt a stopped conductor left without an outcome."""
        last = self.attempts[-1] if self.attempts else None
        return last if last and last.outcome is None else None

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out['state_entered_at'] = self.state_entered_at.isoformat()
        out['heartbeat_at'] = (self.heartbeat_at.isoformat()
                               if self.heartbeat_at else None)
        out['attempts'] = [attempt.to_dict() for attempt in self.attempts]
        return out


def create(database: db_api.Database, *, vnf_instance_id: str,
           operation: str, params: dict, placement: dict,
           request_id: str | None = None) -> Operation:
    row = models.Operation(
        id=uuidutils.generate_uuid(), vnf_instance_id=vnf_instance_id,
        operation=operation, state=states.STATE_STARTING, params=params,
        placement=placement, request_id=request_id)
    with database.writer() as session:
        session.add(row)
    return get(database, row.id)


def get(database: db_api.Database, operation_id: str) -> Operation:
    with database.reader() as session:
        row = session.get(models.Operation, operation_id)
        if row is None:
            raise exception.NotFound(kind='operation', id=operation_id)
        attempts = session.scalars(
            sa.select(models.ZoneAttempt)
            .where(models.ZoneAttempt.operation_id == operation_id)
            .order_by(models.ZoneAttempt.seq)).all()
        return _operation(row, attempts)


def list_operations(database: db_api.Database,
                    states: tuple[str, ...] | None = None) -> list[Operation]:
    """Operations (without attempts), newest first."""
    stmt = sa.select(models.Operation).order_by(
        models.Operation.created_at.desc(), models.Operation.id)
    if states:
        stmt = stmt.where(models.Operation.state.in_(states))
    with database.reader() as session:
        return [_operation(row, ()) for row in session.scalars(stmt)]


def set_state(database: db_api.Database, op: Operation, state: str, *,
              error: dict | None = None,
              placement: dict | None = None) -> Operation:
    """Move ``op`` to ``state``; fails if someone else changed it.

    A state nobody drives (terminal, FAILED_TEMP) also gives up the
    owner in the same write, so an operation never shows as ended and
    owned at once.
    """
    values = {'state': state, 'state_entered_at': models.utcnow(),
              'error': error}
    if state not in RUNNABLE_STATES:
        values.update(owner=None, heartbeat_at=None)
    if placement is not None:
        values['placement'] = placement
    with database.writer() as session:
        db_api.compare_and_swap(session, models.Operation, op.id,
                                op.generation, **values)
    return get(database, op.id)


def start_attempt(database: db_api.Database, op: Operation, *, vdu_id: str,
                  zone: str, placement: dict, decision: dict) -> Operation:
    """Record a try before sending it, with the placement it will use."""
    with database.writer() as session:
        db_api.compare_and_swap(session, models.Operation, op.id,
                                op.generation, placement=placement)
        session.add(models.ZoneAttempt(
            operation_id=op.id, seq=len(op.attempts), vdu_id=vdu_id,
            zone=zone, decision=decision))
    return get(database, op.id)


def finish_attempt(database: db_api.Database, op: Operation, *,
                   outcome: str, duration_s: float,
                   vdu_id: str | None = None, zone: str | None = None,
                   error_text: str | None = None) -> Operation:
    """Record how the in-flight try ended (and which VNFC it blames)."""
    attempt = op.in_flight
    if attempt is None:
        raise exception.Conflict(
            reason=f'operation {op.id} has no attempt in flight')
    values = {'outcome': outcome, 'duration_s': duration_s,
              'error_text': error_text,
              'vdu_id': vdu_id or attempt.vdu_id,
              'zone': zone or attempt.zone}
    with database.writer() as session:
        db_api.compare_and_swap(session, models.Operation, op.id,
                                op.generation)
        session.execute(
            sa.update(models.ZoneAttempt)
            .where(models.ZoneAttempt.operation_id == op.id,
                   models.ZoneAttempt.seq == attempt.seq)
            .values(**values))
    return get(database, op.id)


def claim(database: db_api.Database, operation_id: str, host: str,
          stale_before: datetime.datetime) -> bool:
    """Make ``host`` the owner of a runnable operation, if it may be.

    It may when nobody owns it, it owns it already (a restarted
    conductor keeps its host name), or the owner's last heartbeat is
    older than ``stale_before``. One atomic UPDATE, so of two conductors
    claiming at once exactly one wins.
    """
    table = models.Operation
    stmt = (sa.update(table)
            .where(table.id == operation_id,
                   table.state.in_(RUNNABLE_STATES),
                   sa.or_(table.owner.is_(None), table.owner == host,
                          table.heartbeat_at.is_(None),
                          table.heartbeat_at < stale_before))
            .values(owner=host, heartbeat_at=models.utcnow())
            .execution_options(synchronize_session=False))
    with database.writer() as session:
        return session.execute(stmt).rowcount == 1


def heartbeat(database: db_api.Database, host: str,
              operation_ids: Iterable[str] | None = None) -> int:
    """Renew ``host``'s claim on the runnable operations it owns.

    ``operation_ids``: only these (the ones a live thread of the host
    drives); an operation whose driving thread is gone must go stale, so
    that it is adopted rather than held forever.
    """
    table = models.Operation
    where = [table.owner == host, table.state.in_(RUNNABLE_STATES)]
    if operation_ids is not None:
        ids = list(operation_ids)
        if not ids:
            return 0
        where.append(table.id.in_(ids))
    stmt = (sa.update(table)
            .where(*where)
            .values(heartbeat_at=models.utcnow())
            .execution_options(synchronize_session=False))
    with database.writer() as session:
        return session.execute(stmt).rowcount


def release(database: db_api.Database, operation_id: str, host: str) -> None:
    """Give the operation up (it ended, or waits for a retry)."""
    table = models.Operation
    stmt = (sa.update(table)
            .where(table.id == operation_id, table.owner == host)
            .values(owner=None, heartbeat_at=None)
            .execution_options(synchronize_session=False))
    with database.writer() as session:
        session.execute(stmt)


def adoptable(database: db_api.Database, host: str,
              stale_before: datetime.datetime,
              include_own: bool = True) -> list[Operation]:
    """Runnable operations ``host`` should drive, oldest first.

    Its own (left by its previous run; only with ``include_own``), those
    whose owner's heartbeat is stale, and unowned ones whose state is
    older than ``stale_before`` (their ``run_operation`` cast was lost;
    younger ones are left to the cast still on its way).
    """
    table = models.Operation
    own = table.owner == host if include_own else sa.false()
    stmt = (sa.select(table)
            .where(table.state.in_(RUNNABLE_STATES),
                   sa.or_(own,
                          sa.and_(table.owner.is_(None),
                                  table.state_entered_at < stale_before),
                          sa.and_(table.owner.is_not(None),
                                  sa.or_(table.heartbeat_at.is_(None),
                                         table.heartbeat_at < stale_before))))
            .order_by(table.created_at, table.id))
    with database.reader() as session:
        return [_operation(row, ()) for row in session.scalars(stmt)]


def _operation(row: models.Operation, attempts: object) -> Operation:
    return Operation(
        id=row.id, vnf_instance_id=row.vnf_instance_id,
        operation=row.operation, state=row.state,
        state_entered_at=row.state_entered_at, params=row.params or {},
        placement=row.placement or {}, error=row.error,
        request_id=row.request_id, generation=row.generation,
        attempts=tuple(_attempt(a) for a in attempts),
        owner=row.owner, heartbeat_at=row.heartbeat_at)


def _attempt(row: models.ZoneAttempt) -> Attempt:
    return Attempt(seq=row.seq, vdu_id=row.vdu_id, zone=row.zone,
                   outcome=row.outcome, error_text=row.error_text,
                   started_at=row.started_at, duration_s=row.duration_s,
                   decision=row.decision or {})
