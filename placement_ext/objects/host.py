"""Reservable compute hosts (the ``computehosts`` table).

A host is a Nova compute node enrolled for instance reservations: its
sizes as Nova reported them, its compute node resource provider and its
reservation provider (``blazar_<hypervisor_hostname>``, NULL until it
exists). Deleting a host is refused while reservations hold slots on it.
"""

import dataclasses
import datetime
from collections.abc import Collection

import sqlalchemy as sa
from oslo_db import exception as db_exc

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.vocabulary import host_names


@dataclasses.dataclass(frozen=True)
class Host:
    id: int
    hypervisor_hostname: str
    service_name: str
    availability_zone: str
    vcpus: int
    memory_mb: int
    local_gb: int
    compute_provider_uuid: str
    reservation_provider_uuid: str | None
    reservable: bool
    generation: int
    created_at: datetime.datetime

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out['created_at'] = self.created_at.isoformat()
        return out


@dataclasses.dataclass(frozen=True)
class KnownUsage:
    """Placement's view of a host as last read (``computehost_usages``):
    true while its compute node provider is at ``generation``."""

    generation: int
    inventories: dict
    usages: dict
    reservation_usages: dict


@db_api.retry_on_deadlock
def create(database: db_api.Database, *, hypervisor_hostname: str,
           service_name: str, availability_zone: str, vcpus: int,
           memory_mb: int, local_gb: int, compute_provider_uuid: str,
           reservation_provider_uuid: str | None = None) -> Host:
    """Record a host.

    :raises Conflict: a host with this hypervisor hostname (or compute
        node provider) is already enrolled.
    """
    row = models.ComputeHost(
        hypervisor_hostname=hypervisor_hostname, service_name=service_name,
        availability_zone=availability_zone, vcpus=vcpus,
        memory_mb=memory_mb, local_gb=local_gb,
        compute_provider_uuid=compute_provider_uuid,
        reservation_provider_uuid=reservation_provider_uuid)
    try:
        with database.writer() as session:
            session.add(row)
            session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.Conflict(
            reason=f'host {hypervisor_hostname} is already enrolled')
    return get(database, row.id)


@db_api.retry_on_deadlock
def get(database: db_api.Database, host_id: int) -> Host:
    with database.reader() as session:
        row = session.get(models.ComputeHost, host_id)
        if row is None:
            raise exception.NotFound(kind='host', id=host_id)
        return _host(row)


@db_api.retry_on_deadlock
def find(database: db_api.Database, ref: str | int) -> Host:
    """A host by id, hypervisor hostname or (if unambiguous) service name.

    :raises NotFound: no such host.
    :raises Conflict: the service name is shared by several nodes.
    """
    if isinstance(ref, int) or str(ref).isdigit():
        try:
            return get(database, int(ref))
        except exception.NotFound:
            pass
    table = models.ComputeHost
    with database.reader() as session:
        rows = session.scalars(
            sa.select(table).where(sa.or_(
                table.hypervisor_hostname == str(ref),
                table.service_name == str(ref)))
            .order_by(table.id)).all()
        return _host(host_names.resolve(
            str(ref), rows, lambda r: r.hypervisor_hostname,
            lambda r: r.service_name, kind='host'))


@db_api.retry_on_deadlock
def list_hosts(database: db_api.Database,
               reservable: bool | None = None) -> list[Host]:
    """Hosts by hypervisor hostname."""
    table = models.ComputeHost.__table__
    # plain rows, not ORM objects: 10,000 hosts load several times faster
    stmt = sa.select(table).order_by(table.c.hypervisor_hostname)
    if reservable is not None:
        stmt = stmt.where(table.c.reservable == reservable)
    with database.reader() as session:
        return [_host(row) for row in session.execute(stmt)]


@db_api.retry_on_deadlock
def get_many(database: db_api.Database, host_ids: list[int]) -> list[Host]:
    """These hosts (those that still exist), by hypervisor hostname."""
    table = models.ComputeHost
    with database.reader() as session:
        return [_host(row) for row in session.scalars(
            sa.select(table).where(table.id.in_(sorted(set(host_ids))))
            .order_by(table.hypervisor_hostname))]


@db_api.retry_on_deadlock
def lock(database: db_api.Database, host_ids: list[int]) -> list[Host]:
    """Lock hosts for the enclosing writer transaction (capacity
    decisions); see :func:`placement_ext.db.api.lock_computehosts`."""
    with database.writer() as session:
        return [_host(row)
                for row in db_api.lock_computehosts(session, host_ids)]


@db_api.retry_on_deadlock
def lock_reservable(database: db_api.Database,
                    host_ids: Collection[int] | None = None) -> set[int]:
    """Lock every reservable host (or those of ``host_ids`` that are
    reservable) for the enclosing writer transaction (see :func:`lock`)
    and return their ids: one narrow statement however many hosts, in id
    order like :func:`placement_ext.db.api.lock_rows`.
    """
    table = models.ComputeHost
    stmt = sa.select(table.id).where(table.reservable == sa.true())
    if host_ids is not None:
        stmt = stmt.where(table.id.in_(sorted(set(host_ids))))
    with database.writer() as session:
        return set(session.scalars(
            stmt.order_by(table.id).with_for_update()))


@dataclasses.dataclass(frozen=True)
class Stamp:
    """A reservable host as a lease create first sees it: enough to tell
    whether the host and its kept view, as a manager loaded them, are
    still the same (see :func:`reservable_stamps`)."""

    generation: int
    compute_provider_uuid: str
    # (provider generation, when stored) of its kept view, if any
    view: tuple[int, datetime.datetime] | None


@db_api.retry_on_deadlock
def reservable_stamps(database: db_api.Database) -> dict[int, Stamp]:
    """Host id -> :class:`Stamp` of every reservable host, in one narrow
    statement (no ORM objects): the host row's generation (bumped by
    every change of the row) and its compute node provider, and the
    stamp of its kept view."""
    host, view = models.ComputeHost, models.ComputeHostUsage
    stmt = (sa.select(host.id, host.generation, host.compute_provider_uuid,
                      view.provider_generation, view.created_at)
            .outerjoin(view, view.compute_host_id == host.id)
            .where(host.reservable == sa.true()))
    with database.reader() as session:
        return {host_id: Stamp(generation, provider,
                               None if kept is None else (kept, stored))
                for host_id, generation, provider, kept, stored
                in session.execute(stmt)}


@db_api.retry_on_deadlock
def stamps_fingerprint(database: db_api.Database) -> tuple:
    """A summary of every :class:`Stamp` that changes whenever any of
    them does, in one statement returning one row: a host row change
    bumps its generation (their sum grows), a new row takes a higher id,
    a retired or deleted one leaves the count, and storing a view
    replaces its row with a newer write time (or drops the count)."""
    host, view = models.ComputeHost, models.ComputeHostUsage
    stmt = (sa.select(sa.func.count(host.id),
                      sa.func.coalesce(sa.func.sum(host.generation), 0),
                      sa.func.max(host.id),
                      sa.func.count(view.compute_host_id),
                      sa.func.coalesce(sa.func.sum(view.provider_generation),
                                       0),
                      sa.func.max(view.created_at))
            .outerjoin(view, view.compute_host_id == host.id)
            .where(host.reservable == sa.true()))
    with database.reader() as session:
        return tuple(session.execute(stmt).one())


@db_api.retry_on_deadlock
def known_usages(database: db_api.Database,
                 host_ids: list[int]) -> dict[int, KnownUsage]:
    """Host id -> Placement's last view of it, for those that have one
    (one statement)."""
    table = models.ComputeHostUsage
    with database.reader() as session:
        return {row.compute_host_id: KnownUsage(
            row.provider_generation, row.inventories, row.usages,
            row.reservation_usages) for row in session.execute(
                sa.select(table.compute_host_id, table.provider_generation,
                          table.inventories, table.usages,
                          table.reservation_usages)
                .where(table.compute_host_id.in_(sorted(set(host_ids)))))}


@db_api.retry_on_deadlock
def remember_usages(database: db_api.Database,
                    known: dict[int, KnownUsage]) -> None:
    """Replace the stored view of these hosts (two statements).

    A race with another manager storing the same hosts, or a host deleted
    meanwhile, leaves the batch unstored: it is only read again later.
    """
    if not known:
        return
    table = models.ComputeHostUsage
    now = models.utcnow()
    rows = [dict(compute_host_id=host_id,
                 provider_generation=usage.generation,
                 inventories=usage.inventories, usages=usage.usages,
                 reservation_usages=usage.reservation_usages,
                 created_at=now)
            for host_id, usage in sorted(known.items())]
    try:
        with database.writer() as session:
            session.execute(sa.delete(table).where(
                table.compute_host_id.in_(sorted(known))))
            session.execute(sa.insert(table), rows)
    except (db_exc.DBDuplicateEntry, db_exc.DBReferenceError):
        pass


@db_api.retry_on_deadlock
def forget_usages(database: db_api.Database, host_ids: list[int]) -> None:
    """Drop the stored view of these hosts: the next lease create reads
    them from Placement again."""
    table = models.ComputeHostUsage
    with database.writer() as session:
        session.execute(sa.delete(table).where(
            table.compute_host_id.in_(sorted(set(host_ids)))))


@db_api.retry_on_deadlock
def set_reservation_provider(database: db_api.Database, host: Host,
                             provider_uuid: str) -> Host:
    """Record the host's reservation provider (compare-and-swap)."""
    with database.writer() as session:
        db_api.compare_and_swap(session, models.ComputeHost, host.id,
                                host.generation,
                                reservation_provider_uuid=provider_uuid)
    return get(database, host.id)


@db_api.retry_on_deadlock
def slot_count(database: db_api.Database, host_id: int) -> int:
    """Reserved slots on the host (allocation rows of any reservation)."""
    table = models.ComputeHostAllocation
    with database.reader() as session:
        return session.scalar(
            sa.select(sa.func.count()).select_from(table)
            .where(table.compute_host_id == host_id))


@db_api.retry_on_deadlock
def retire(database: db_api.Database, host: Host) -> Host:
    """Stop offering the host to new leases, first step of its deletion.

    :raises Conflict: reservations hold slots on it.
    :raises ConcurrentUpdate: the host changed since it was read.
    """
    with database.writer() as session:
        db_api.lock_computehosts(session, [host.id])
        _refuse_if_reserved(database, host)
        db_api.compare_and_swap(session, models.ComputeHost, host.id,
                                host.generation, reservable=False)
    return get(database, host.id)


@db_api.retry_on_deadlock
def set_reservable(database: db_api.Database, host: Host,
                   reservable: bool) -> Host:
    """Offer the host to new leases or not (a failed host: its slots are
    healed elsewhere), whatever it holds."""
    with database.writer() as session:
        db_api.compare_and_swap(session, models.ComputeHost, host.id,
                                host.generation, reservable=reservable)
    return get(database, host.id)


def _refuse_if_reserved(database: db_api.Database, host: Host) -> None:
    slots = slot_count(database, host.id)
    if slots:
        raise exception.Conflict(
            reason=f'host {host.hypervisor_hostname} has {slots} reserved '
                   f'slot(s); delete the leases holding them, or wait for '
                   f'their end')


@db_api.retry_on_deadlock
def delete(database: db_api.Database, host: Host) -> None:
    """Delete the record; refused while reservations hold slots on it.

    :raises Conflict: the host has allocations, or changed meanwhile.
    """
    with database.writer() as session:
        db_api.lock_computehosts(session, [host.id])
        _refuse_if_reserved(database, host)
        db_api.compare_and_swap(session, models.ComputeHost, host.id,
                                host.generation)
        session.execute(sa.delete(models.ComputeHost)
                        .where(models.ComputeHost.id == host.id))


def _host(row: models.ComputeHost | sa.Row) -> Host:
    return Host(
        id=row.id, hypervisor_hostname=row.hypervisor_hostname,
        service_name=row.service_name,
        availability_zone=row.availability_zone, vcpus=row.vcpus,
        memory_mb=row.memory_mb, local_gb=row.local_gb,
        compute_provider_uuid=row.compute_provider_uuid,
        reservation_provider_uuid=row.reservation_provider_uuid,
        reservable=row.reservable, generation=row.generation,
        created_at=row.created_at)
