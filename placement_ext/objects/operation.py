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

A Heat stack belongs to one VNF instance, and one operation at a time
changes it: :func:`create` records the stack's owner (``stacks``) and
refuses an operation of another VNF instance on it, or any while the
operation that took it last still runs; a FAILED_TEMP operation may be
superseded, and is then no longer retried (:func:`retry`).

An operation run inside a host service's LCM operation occurrence
(Tacker's) names it in ``params['lcm_op_occ_id']``: :func:`for_lcm_op_occ`
finds it again when the host retries, :func:`lcm_op_occ_pending` lists
those the host may still end.

Over 400 lines as one module on purpose: the state, the attempts, the
stack it holds and the conductor that owns it are one row and its
children, written under one set of runnable states and read back by one
``_operation``; apart, each part would restate them.
"""

import dataclasses
import datetime
from collections.abc import Iterable

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.schemas import validate as schema_validate
from placement_ext.vocabulary import states

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


@db_api.retry_on_deadlock
def create(database: db_api.Database, *, vnf_instance_id: str,
           operation: str, params: dict, placement: dict,
           request_id: str | None = None) -> Operation:
    """Record a STARTING operation on ``params['stack_name']``.

    :raises Conflict: the stack belongs to another VNF instance, or an
        operation still runs on it (see the module doc).
    :raises InvalidInput: text some database cannot store (a NUL, a lone
        surrogate), whichever way the request came.
    """
    schema_validate.check_document(params, 'operation request')
    schema_validate.check_document(placement, 'placement')
    row = models.Operation(
        id=uuidutils.generate_uuid(), vnf_instance_id=vnf_instance_id,
        operation=operation, state=states.STATE_STARTING, params=params,
        placement=placement, request_id=request_id)
    stack_name = params.get('stack_name')
    try:
        with database.writer() as session:
            session.add(row)
            if stack_name:
                _take_stack(session, stack_name, vnf_instance_id, row.id)
    except db_exc.DBDuplicateEntry:
        # another operation inserted the stack's record first
        raise exception.Conflict(
            reason=f'another operation took stack {stack_name} at the same '
                   f'time; one operation at a time changes a stack')
    return get(database, row.id)


def _take_stack(session: object, name: str, vnf_instance_id: str,
                operation_id: str) -> None:
    """Make ``operation_id`` the operation of stack ``name``."""
    stack = _locked_stack(session, name)
    if stack is None:
        session.add(models.Stack(name=name, vnf_instance_id=vnf_instance_id,
                                 operation_id=operation_id))
        session.flush()  # a concurrent insert fails here, not later
        return
    if stack.vnf_instance_id != vnf_instance_id:
        raise exception.Conflict(
            reason=f'stack {name} belongs to VNF instance '
                   f'{stack.vnf_instance_id}; a stack serves one VNF '
                   f'instance')
    holder = session.get(models.Operation, stack.operation_id)
    if holder is not None and holder.state in RUNNABLE_STATES:
        raise exception.Conflict(
            reason=f'operation {holder.id} ({holder.operation}, '
                   f'{holder.state}) is changing stack {name}; one '
                   f'operation at a time changes a stack')
    stack.operation_id = operation_id


def _locked_stack(session: object, name: str) -> models.Stack | None:
    """The stack's record, locked until the transaction ends."""
    return session.scalars(
        sa.select(models.Stack).where(models.Stack.name == name)
        .with_for_update()
        .execution_options(populate_existing=True)).first()


@db_api.retry_on_deadlock
def retry(database: db_api.Database, op: Operation) -> Operation:
    """Make a FAILED_TEMP operation runnable again (PROCESSING).

    :raises Conflict: it is not FAILED_TEMP, or a newer operation took
        its stack since.
    """
    if op.state != states.STATE_FAILED_TEMP:
        raise exception.Conflict(
            reason=f'operation {op.id} is {op.state}; only FAILED_TEMP '
                   f'operations can be retried')
    name = op.params.get('stack_name')
    with database.writer() as session:
        stack = _locked_stack(session, name) if name else None
        if stack is not None and stack.operation_id != op.id:
            raise exception.Conflict(
                reason=f'operation {stack.operation_id} took stack {name} '
                       f'after {op.id} failed; retry that one instead')
        return set_state(database, op, states.STATE_PROCESSING)


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


def for_lcm_op_occ(database: db_api.Database, vnf_instance_id: str,
                   lcm_op_occ_id: str) -> Operation | None:
    """The newest operation (with attempts) run in the host's LCM
    operation occurrence ``lcm_op_occ_id``, or None."""
    stmt = (sa.select(models.Operation.id, models.Operation.params)
            .where(models.Operation.vnf_instance_id == vnf_instance_id)
            .order_by(models.Operation.created_at.desc(),
                      models.Operation.id))
    with database.reader() as session:
        found = next((row.id for row in session.execute(stmt)
                      if (row.params or {}).get('lcm_op_occ_id')
                      == lcm_op_occ_id), None)
    return None if found is None else get(database, found)


def lcm_op_occ_pending(database: db_api.Database) -> list[Operation]:
    """Operations run in a host's LCM operation occurrence that have not
    ended (FAILED_TEMP or runnable), without attempts, oldest first."""
    stmt = (sa.select(models.Operation)
            .where(models.Operation.state.in_(
                (states.STATE_FAILED_TEMP, *RUNNABLE_STATES)))
            .order_by(models.Operation.created_at, models.Operation.id))
    with database.reader() as session:
        return [_operation(row, ()) for row in session.scalars(stmt)
                if (row.params or {}).get('lcm_op_occ_id')]


def list_operations(database: db_api.Database,
                    states: tuple[str, ...] | None = None) -> list[Operation]:
    """Operations (without attempts), newest first."""
    stmt = sa.select(models.Operation).order_by(
        models.Operation.created_at.desc(), models.Operation.id)
    if states:
        stmt = stmt.where(models.Operation.state.in_(states))
    with database.reader() as session:
        return [_operation(row, ()) for row in session.scalars(stmt)]


@db_api.retry_on_deadlock
def set_state(database: db_api.Database, op: Operation, state: str, *,
              error: dict | None = None,
              placement: dict | None = None) -> Operation:
    """Move ``op`` to ``state``; fails if someone else changed it.

    A state nobody drives (terminal, FAILED_TEMP) also gives up the
    owner in the same write, so an operation never shows as ended and
    owned at once.
    """
    values = {'state': state, 'state_entered_at': models.utcnow(),
              'error': _storable(error)}
    if state not in RUNNABLE_STATES:
        values.update(owner=None, heartbeat_at=None)
    if placement is not None:
        values['placement'] = placement
    with database.writer() as session:
        db_api.compare_and_swap(session, models.Operation, op.id,
                                op.generation, **values)
    return get(database, op.id)


@db_api.retry_on_deadlock
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


@db_api.retry_on_deadlock
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
              'error_text': _storable(error_text),
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


def _storable(value: object) -> object:
    """A service's error text (or ``{code, title, detail}``) with NUL
    characters, which PostgreSQL refuses, written as ``\\x00``."""
    if isinstance(value, str):
        return value.replace('\x00', '\\x00')
    if isinstance(value, dict):
        return {key: _storable(item) for key, item in value.items()}
    return value


@db_api.retry_on_deadlock
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


@db_api.retry_on_deadlock
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


@db_api.retry_on_deadlock
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
