"""Leases, their instance reservations, slots and timed events.

A lease is written in one transaction with its reservations, one
``computehost_allocations`` row per reserved slot and its two events
(``start_lease`` at the start date, ``end_lease`` at the end date). The
caller opens that transaction first and locks the hosts whose capacity
it read (:func:`placement_ext.objects.host.lock`), so two leases created
at the same time cannot take the same slot.

Its events are run through :mod:`placement_ext.objects.event`.

Over 400 lines as one module on purpose: a lease, its reservations,
slots and events are written in one transaction, and their rows are read
back together.
"""

import dataclasses
import datetime

import sqlalchemy as sa
from oslo_utils import uuidutils

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.vocabulary import reservation_names as names
from placement_ext.vocabulary import states

# A lease ending and another starting at the same time: end first, so
# the slots are free again.
EVENT_ORDER = {states.EVENT_END_LEASE: 0, states.EVENT_START_LEASE: 1}
LIVE_RESERVATIONS = (states.RESERVATION_PENDING, states.RESERVATION_ACTIVE,
                     states.RESERVATION_ERROR)
# Reservations whose instances may be running: an ERROR one may have
# failed at its start, or at its end.
STARTED_RESERVATIONS = (states.RESERVATION_ACTIVE, states.RESERVATION_ERROR)


@dataclasses.dataclass(frozen=True)
class Reservation:
    id: str
    lease_id: str
    resource_type: str
    status: str
    vcpus: int
    memory_mb: int
    disk_gb: int
    amount: int
    affinity: bool | None
    resource_class: str
    flavor_id: str
    # ((host id, hypervisor hostname, slots), ...) by hostname
    allocations: tuple[tuple[int, str, int], ...] = ()
    # Nova server group of an affinity True/False reservation
    server_group_id: str | None = None

    @property
    def slots_by_host(self) -> dict[str, int]:
        return {name: slots for _id, name, slots in self.allocations}

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out['allocations'] = self.slots_by_host
        return out


@dataclasses.dataclass(frozen=True)
class Event:
    id: int
    lease_id: str
    event_type: str
    time: datetime.datetime
    status: str
    updated_at: datetime.datetime | None

    def to_dict(self) -> dict:
        return {'event_type': self.event_type,
                'time': self.time.isoformat(), 'status': self.status}


@dataclasses.dataclass(frozen=True)
class Lease:
    id: str
    name: str
    user_id: str
    project_id: str
    start_date: datetime.datetime
    end_date: datetime.datetime
    status: str
    generation: int
    created_at: datetime.datetime
    # None: written by a 1.0.0 service, until "db migrate" fills it
    status_changed_at: datetime.datetime | None = None
    reservations: tuple[Reservation, ...] = ()
    events: tuple[Event, ...] = ()

    def to_dict(self) -> dict:
        out = {field.name: getattr(self, field.name)
               for field in dataclasses.fields(self)}
        for key in ('start_date', 'end_date', 'created_at',
                    'status_changed_at'):
            out[key] = out[key] and out[key].isoformat()
        out['reservations'] = [r.to_dict() for r in self.reservations]
        out['events'] = [e.to_dict() for e in self.events]
        return out


@dataclasses.dataclass(frozen=True)
class NewReservation:
    """A reservation to insert, with the slots chosen per host id."""

    vcpus: int
    memory_mb: int
    disk_gb: int
    amount: int
    affinity: bool | None
    slots: dict[int, int]
    id: str = dataclasses.field(default_factory=uuidutils.generate_uuid)


@dataclasses.dataclass(frozen=True)
class Holding:
    """Slots one live reservation holds on one host, and its period."""

    reservation_id: str
    host_id: int
    start: datetime.datetime
    end: datetime.datetime
    vcpus: int
    memory_mb: int
    disk_gb: int
    slots: int
    resource_class: str


# -- leases -------------------------------------------------------------------

@db_api.retry_on_deadlock
def create(database: db_api.Database, *, name: str, user_id: str,
           project_id: str, start_date: datetime.datetime,
           end_date: datetime.datetime,
           reservations: list[NewReservation]) -> str:
    """Insert a PENDING lease with its reservations, slots and events.

    Joins the caller's writer transaction (which locked the hosts).

    :returns: the lease id.
    :raises Conflict: the project already has a lease of that name.
    """
    lease_id = uuidutils.generate_uuid()
    with database.writer() as session:
        taken = session.scalar(sa.select(models.Lease.id).where(
            models.Lease.project_id == project_id,
            models.Lease.name == name))
        if taken:
            raise exception.Conflict(
                reason=f'project {project_id} already has a lease named '
                       f'{name!r} ({taken})')
        session.add(models.Lease(
            id=lease_id, name=name, user_id=user_id, project_id=project_id,
            start_date=start_date, end_date=end_date,
            status=states.LEASE_PENDING))
        session.flush()
        for res in reservations:
            _add_reservation(session, lease_id, res)
        db_api.touch_computehosts(
            session, [host for res in reservations for host in res.slots])
        session.add_all([
            models.Event(lease_id=lease_id, time=start_date,
                         event_type=states.EVENT_START_LEASE),
            models.Event(lease_id=lease_id, time=end_date,
                         event_type=states.EVENT_END_LEASE)])
    return lease_id


def _add_reservation(session: sa.orm.Session, lease_id: str,
                     res: NewReservation) -> None:
    session.add(models.Reservation(
        id=res.id, lease_id=lease_id,
        resource_type=states.RESOURCE_TYPE_INSTANCE,
        resource_id=None, status=states.RESERVATION_PENDING))
    session.flush()
    detail = models.InstanceReservation(
        reservation_id=res.id, vcpus=res.vcpus, memory_mb=res.memory_mb,
        disk_gb=res.disk_gb, amount=res.amount, affinity=res.affinity,
        resource_class=names.resource_class_for(res.id), flavor_id=res.id)
    session.add(detail)
    session.flush()
    session.execute(sa.update(models.Reservation)
                    .where(models.Reservation.id == res.id)
                    .values(resource_id=detail.id))
    session.add_all(
        models.ComputeHostAllocation(reservation_id=res.id,
                                     compute_host_id=host_id)
        for host_id, slots in sorted(res.slots.items())
        for _ in range(slots))


@db_api.retry_on_deadlock
def update(database: db_api.Database, lease_id: str, *,
           start_date: datetime.datetime, end_date: datetime.datetime,
           reservation: NewReservation) -> None:
    """Move the lease's period and events, and replace one reservation's
    request and slots (joins the caller's writer, which locked the
    hosts)."""
    alloc = models.ComputeHostAllocation
    with database.writer() as session:
        session.execute(
            sa.update(models.Lease).where(models.Lease.id == lease_id)
            .values(start_date=start_date, end_date=end_date,
                    generation=models.Lease.generation + 1))
        for event_type, time in ((states.EVENT_START_LEASE, start_date),
                                 (states.EVENT_END_LEASE, end_date)):
            session.execute(
                sa.update(models.Event)
                .where(models.Event.lease_id == lease_id,
                       models.Event.event_type == event_type)
                .values(time=time))
        session.execute(
            sa.update(models.InstanceReservation)
            .where(models.InstanceReservation.reservation_id ==
                   reservation.id)
            .values(vcpus=reservation.vcpus,
                    memory_mb=reservation.memory_mb,
                    disk_gb=reservation.disk_gb, amount=reservation.amount,
                    affinity=reservation.affinity))
        session.execute(sa.delete(alloc).where(
            alloc.reservation_id == reservation.id))
        session.add_all(
            alloc(reservation_id=reservation.id, compute_host_id=host_id)
            for host_id, slots in sorted(reservation.slots.items())
            for _ in range(slots))
        db_api.touch_computehosts(session, reservation.slots)


@db_api.retry_on_deadlock
def set_server_group(database: db_api.Database, reservation_id: str,
                     group_id: str | None) -> None:
    """Record the reservation's Nova server group (None: it has none)."""
    with database.writer() as session:
        session.execute(
            sa.update(models.InstanceReservation)
            .where(models.InstanceReservation.reservation_id ==
                   reservation_id)
            .values(server_group_id=group_id))


@db_api.retry_on_deadlock
def get(database: db_api.Database, lease_id: str) -> Lease:
    with database.reader() as session:
        row = session.get(models.Lease, lease_id)
        if row is None:
            raise exception.NotFound(kind='lease', id=lease_id)
        return _load(session, [row])[0]


@db_api.retry_on_deadlock
def find(database: db_api.Database, ref: str,
         project_id: str | None = None) -> Lease:
    """A lease by id, or by name (within ``project_id`` when given).

    :raises NotFound: no such lease.
    :raises Conflict: several projects have a lease of that name.
    """
    stmt = sa.select(models.Lease).where(sa.or_(
        models.Lease.id == ref, models.Lease.name == ref))
    if project_id:
        stmt = stmt.where(models.Lease.project_id == project_id)
    with database.reader() as session:
        rows = session.scalars(stmt.order_by(models.Lease.id)).all()
        by_id = [row for row in rows if row.id == ref]
        if by_id:
            rows = by_id
        if not rows:
            raise exception.NotFound(kind='lease', id=ref)
        if len(rows) > 1:
            raise exception.Conflict(
                reason=f'{len(rows)} leases are named {ref!r} (ids ' +
                       ', '.join(row.id for row in rows) + '); use an id')
        return _load(session, rows)[0]


@db_api.retry_on_deadlock
def list_leases(database: db_api.Database,
                project_id: str | None = None) -> list[Lease]:
    """Leases by start date, then name."""
    stmt = sa.select(models.Lease).order_by(models.Lease.start_date,
                                            models.Lease.name)
    if project_id:
        stmt = stmt.where(models.Lease.project_id == project_id)
    with database.reader() as session:
        return _load(session, session.scalars(stmt).all())


@db_api.retry_on_deadlock
def generations(database: db_api.Database,
                lease_ids: list[str]) -> dict[str, int]:
    """{lease id: generation} of those that still exist."""
    with database.reader() as session:
        return dict(session.execute(
            sa.select(models.Lease.id, models.Lease.generation)
            .where(models.Lease.id.in_(lease_ids))).all())


@db_api.retry_on_deadlock
def delete(database: db_api.Database, lease_id: str) -> None:
    """Delete the lease and (by cascade) everything it holds."""
    with database.writer() as session:
        session.execute(sa.delete(models.Lease)
                        .where(models.Lease.id == lease_id))


@db_api.retry_on_deadlock
def set_status(database: db_api.Database, lease_id: str, status: str,
               reservation_status: str | None = None) -> None:
    with database.writer() as session:
        set_status_in(session, lease_id, status, reservation_status)


def set_status_in(session: sa.orm.Session, lease_id: str, status: str,
                reservation_status: str | None) -> None:
    session.execute(
        sa.update(models.Lease).where(models.Lease.id == lease_id)
        .values(status=status, status_changed_at=models.utcnow(),
                generation=models.Lease.generation + 1))
    if reservation_status:
        session.execute(
            sa.update(models.Reservation)
            .where(models.Reservation.lease_id == lease_id)
            .values(status=reservation_status))


@db_api.retry_on_deadlock
def holdings(database: db_api.Database, host_ids: list[int] | None,
             period: tuple[datetime.datetime, datetime.datetime] | None = None
             ) -> list[Holding]:
    """Slots of every live reservation on these hosts (None: on every
    reservable host).

    With ``period``, only reservations that overlap it, or whose lease
    has started (instances may run on their slots now): the others
    change nothing in a decision for that period.

    Run it after locking the hosts, in the same writer transaction, so
    the answer cannot change before the new slots are inserted.
    """
    alloc = models.ComputeHostAllocation
    res = models.Reservation
    inst = models.InstanceReservation
    lease = models.Lease
    stmt = (sa.select(res.id, alloc.compute_host_id, lease.start_date,
                      lease.end_date, inst.vcpus, inst.memory_mb,
                      inst.disk_gb, sa.func.count(alloc.id),
                      inst.resource_class)
            .join(res, res.id == alloc.reservation_id)
            .join(lease, lease.id == res.lease_id)
            .join(inst, inst.reservation_id == res.id)
            .where(res.status.in_(LIVE_RESERVATIONS))
            .group_by(res.id, alloc.compute_host_id, lease.start_date,
                      lease.end_date, inst.vcpus, inst.memory_mb,
                      inst.disk_gb, inst.resource_class)
            .order_by(res.id, alloc.compute_host_id))
    if host_ids is None:
        host = models.ComputeHost
        stmt = stmt.join(host, host.id == alloc.compute_host_id).where(
            host.reservable == sa.true())
    else:
        stmt = stmt.where(alloc.compute_host_id.in_(host_ids))
    if period is not None:
        start, end = period
        stmt = stmt.where(sa.or_(
            sa.and_(lease.start_date < end, lease.end_date > start),
            res.status.in_(STARTED_RESERVATIONS)))
    with database.reader() as session:
        return [Holding(*row) for row in session.execute(stmt)]


@db_api.retry_on_deadlock
def holdings_fingerprint(database: db_api.Database) -> tuple:
    """A summary of what :func:`holdings` (of every reservable host)
    reads, in one statement returning one row, that moves whenever its
    answer may: slots are only inserted and deleted (new ids: their
    count, sum or highest id moves), a lease's dates, reservations'
    request and status change with its generation (the sum of
    generations grows, a deleted lease leaves the count), and every
    change of a host row bumps the host's generation."""
    alloc, lease, host = (models.ComputeHostAllocation, models.Lease,
                          models.ComputeHost)
    count, total, top = (sa.func.count, lambda c: sa.func.coalesce(
        sa.func.sum(c), 0), lambda c: sa.func.coalesce(sa.func.max(c), 0))
    # one scan of each table (scalar subqueries would scan once each)
    slots = sa.select(
        count(alloc.id), total(alloc.id), top(alloc.id),
        # where the slots are, in case a backend hands out a freed id
        # again (SQLite; MySQL before 8 after a restart)
        total(alloc.compute_host_id),
        total(alloc.id * alloc.compute_host_id)).subquery()
    leases = sa.select(count(lease.generation),
                       total(lease.generation)).subquery()
    hosts = sa.select(count(host.id), total(host.generation),
                      top(host.id)).where(
        host.reservable == sa.true()).subquery()
    stmt = sa.select(*slots.c, *leases.c, *hosts.c).select_from(
        slots.join(leases, sa.true()).join(hosts, sa.true()))
    with database.reader() as session:
        return tuple(int(v) for v in session.execute(stmt).one())


@db_api.retry_on_deadlock
def drop_allocations(database: db_api.Database, lease_id: str) -> None:
    """Free the lease's slots (at its end)."""
    alloc = models.ComputeHostAllocation
    with database.writer() as session:
        ids = sa.select(models.Reservation.id).where(
            models.Reservation.lease_id == lease_id)
        session.execute(sa.delete(alloc).where(
            alloc.reservation_id.in_(ids)))


# -- loading ------------------------------------------------------------------

def _load(session: sa.orm.Session, rows: list) -> list[Lease]:
    """Leases with their reservations, slots and events, in 4 queries."""
    ids = [row.id for row in rows]
    if not ids:
        return []
    reservations = _reservations(session, ids)
    events: dict[str, list[Event]] = {}
    for ev in session.scalars(sa.select(models.Event)
                              .where(models.Event.lease_id.in_(ids))):
        events.setdefault(ev.lease_id, []).append(event_of(ev))
    return [Lease(
        id=row.id, name=row.name, user_id=row.user_id,
        project_id=row.project_id, start_date=row.start_date,
        end_date=row.end_date, status=row.status,
        generation=row.generation, created_at=row.created_at,
        status_changed_at=row.status_changed_at,
        reservations=tuple(reservations.get(row.id, ())),
        events=tuple(sorted(events.get(row.id, ()),
                            key=lambda e: (e.time,
                                           EVENT_ORDER[e.event_type]))))
        for row in rows]


def _reservations(session: sa.orm.Session,
                  lease_ids: list[str]) -> dict[str, list[Reservation]]:
    res, inst = models.Reservation, models.InstanceReservation
    alloc, host = models.ComputeHostAllocation, models.ComputeHost
    slots: dict[str, list] = {}
    for res_id, host_id, hostname, count in session.execute(
            sa.select(alloc.reservation_id, host.id,
                      host.hypervisor_hostname, sa.func.count(alloc.id))
            .join(host, host.id == alloc.compute_host_id)
            .join(res, res.id == alloc.reservation_id)
            .where(res.lease_id.in_(lease_ids))
            .group_by(alloc.reservation_id, host.id,
                      host.hypervisor_hostname)
            .order_by(host.hypervisor_hostname)):
        slots.setdefault(res_id, []).append((host_id, hostname, count))
    out: dict[str, list[Reservation]] = {}
    for r, i in session.execute(
            sa.select(res, inst).join(inst, inst.reservation_id == res.id)
            .where(res.lease_id.in_(lease_ids)).order_by(res.id)):
        out.setdefault(r.lease_id, []).append(Reservation(
            id=r.id, lease_id=r.lease_id, resource_type=r.resource_type,
            status=r.status, vcpus=i.vcpus, memory_mb=i.memory_mb,
            disk_gb=i.disk_gb, amount=i.amount, affinity=i.affinity,
            resource_class=i.resource_class, flavor_id=i.flavor_id,
            allocations=tuple(slots.get(r.id, ())),
            server_group_id=i.server_group_id))
    return out


def event_of(row: models.Event) -> Event:
    return Event(id=row.id, lease_id=row.lease_id,
                 event_type=row.event_type, time=row.time,
                 status=row.status, updated_at=row.updated_at)
