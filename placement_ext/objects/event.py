"""Lease events: the claim / progress / finish protocol.

Events (``start_lease`` at a lease's start date, ``end_lease`` at its
end) are run by the manager's periodic task. An event is *claimed* under
the lease's row lock: UNDONE and due, or IN_PROGRESS but not touched for
a while (its manager died), and only when no other event of the lease is
running. A running event reports progress (:func:`touch`); one taken
over by another manager fails its next touch and stops. Finishing or
releasing an event changes the lease's status in the same transaction.
"""

import dataclasses
import datetime

import sqlalchemy as sa

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.objects import lease as lease_obj
from placement_ext.vocabulary import states


def due_events(database: db_api.Database, now: datetime.datetime,
               stale_before: datetime.datetime) -> list[lease_obj.Event]:
    """Events to run: UNDONE and due, or IN_PROGRESS and abandoned.

    Ordered by time, ends before starts at the same time.
    """
    ev = models.Event
    stmt = sa.select(ev).where(sa.or_(
        sa.and_(ev.status == states.EVENT_UNDONE, ev.time <= now),
        sa.and_(ev.status == states.EVENT_IN_PROGRESS,
                sa.or_(ev.updated_at.is_(None),
                       ev.updated_at < stale_before))))
    with database.reader() as session:
        events = [lease_obj.event_of(row) for row in session.scalars(stmt)]
    order = lease_obj.EVENT_ORDER
    return sorted(events,
                  key=lambda e: (e.time, order[e.event_type], e.id))


@db_api.retry_on_deadlock
def claim(database: db_api.Database, event_id: int,
          now: datetime.datetime, stale_before: datetime.datetime,
          early: bool = False) -> lease_obj.Event | None:
    """Mark the event IN_PROGRESS for this caller, if it may run now.

    None when another caller runs it or another event of its lease, or
    when it is no longer due. ``early`` claims an UNDONE event before
    its time (a lease deleted before its end).
    """
    with database.writer() as session:
        row = session.get(models.Event, event_id)
        if row is None or not db_api.lock_rows(session, models.Lease,
                                               [row.lease_id]):
            return None
        siblings = session.scalars(
            sa.select(models.Event)
            .where(models.Event.lease_id == row.lease_id)
            .execution_options(populate_existing=True)).all()
        mine = next(e for e in siblings if e.id == event_id)
        if not _runnable(mine, now if not early else mine.time,
                         stale_before):
            return None
        if any(e.id != event_id and _running(e, stale_before)
               for e in siblings):
            return None
        mine.status = states.EVENT_IN_PROGRESS
        mine.updated_at = now
        session.execute(
            sa.update(models.Lease).where(models.Lease.id == row.lease_id)
            .values(generation=models.Lease.generation + 1))
        session.flush()
        return lease_obj.event_of(mine)


def _runnable(event: models.Event, now: datetime.datetime,
              stale_before: datetime.datetime) -> bool:
    if event.status == states.EVENT_UNDONE:
        return event.time <= now
    return event.status == states.EVENT_IN_PROGRESS and not _running(
        event, stale_before)


def _running(event: models.Event, stale_before: datetime.datetime) -> bool:
    return (event.status == states.EVENT_IN_PROGRESS
            and event.updated_at is not None
            and event.updated_at >= stale_before)


@db_api.retry_on_deadlock
def touch(database: db_api.Database, event: lease_obj.Event,
          now: datetime.datetime | None = None) -> lease_obj.Event:
    """Report progress on a claimed event (at ``now``, default: now).

    :raises ConcurrentUpdate: the event is no longer ours (another
        manager took it over, or it was finished).
    """
    now = now or models.utcnow()
    with database.writer() as session:
        result = session.execute(
            sa.update(models.Event)
            .where(models.Event.id == event.id,
                   models.Event.status == states.EVENT_IN_PROGRESS,
                   models.Event.updated_at == event.updated_at)
            .values(updated_at=now))
        if result.rowcount != 1:
            raise exception.ConcurrentUpdate(kind='event', id=event.id)
    return dataclasses.replace(event, updated_at=now)


@db_api.retry_on_deadlock
def finish(database: db_api.Database, event: lease_obj.Event, *,
           lease_status: str, reservation_status: str | None = None,
           free_slots: bool = False) -> None:
    """Mark the event DONE and set the lease's status, atomically."""
    with database.writer() as session:
        _end_event(session, event, states.EVENT_DONE)
        lease_obj.set_status_in(session, event.lease_id, lease_status,
                    reservation_status)
        if free_slots:
            lease_obj.drop_allocations(database, event.lease_id)


@db_api.retry_on_deadlock
def release(database: db_api.Database, event: lease_obj.Event) -> None:
    """Give a failed event back (UNDONE, retried by the next run) and
    show the failure on the lease (ERROR)."""
    with database.writer() as session:
        _end_event(session, event, states.EVENT_UNDONE)
        lease_obj.set_status_in(session, event.lease_id, states.LEASE_ERROR,
                    states.RESERVATION_ERROR)


def _end_event(session: sa.orm.Session, event: lease_obj.Event,
               status: str) -> None:
    result = session.execute(
        sa.update(models.Event)
        .where(models.Event.id == event.id,
               models.Event.status == states.EVENT_IN_PROGRESS,
               models.Event.updated_at == event.updated_at)
        .values(status=status, updated_at=models.utcnow()))
    if result.rowcount != 1:
        raise exception.ConcurrentUpdate(kind='event', id=event.id)
