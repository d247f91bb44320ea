"""Reservations a host service's own plugin made that we could not
adopt, and why (:class:`placement_ext.db.models.UnadoptedReservation`).

Written by the adoption at each host-service start (one row per
reservation, replaced each time), read by ``lease reconcile``.
"""

import dataclasses

import sqlalchemy as sa

from placement_ext.db import api as db_api
from placement_ext.db import models


@dataclasses.dataclass(frozen=True)
class Unadopted:
    reservation_id: str
    lease_id: str
    reason: str


@db_api.retry_on_deadlock
def record(database: db_api.Database, reservation_id: str, lease_id: str,
           reason: str) -> None:
    """The reservation is not ours, for ``reason`` (replaces an older
    reason)."""
    table = models.UnadoptedReservation
    with database.writer() as session:
        row = session.get(table, reservation_id)
        if row is None:
            session.add(table(reservation_id=reservation_id,
                              lease_id=lease_id, reason=reason))
        elif (row.lease_id, row.reason) != (lease_id, reason):
            row.lease_id, row.reason = lease_id, reason


@db_api.retry_on_deadlock
def forget(database: db_api.Database, reservation_ids: list[str]) -> None:
    """These reservations are adopted, or gone."""
    table = models.UnadoptedReservation
    with database.writer() as session:
        session.execute(sa.delete(table).where(
            table.reservation_id.in_(sorted(reservation_ids))))


@db_api.retry_on_deadlock
def list_all(database: db_api.Database) -> list[Unadopted]:
    """By reservation id."""
    table = models.UnadoptedReservation
    with database.reader() as session:
        return [Unadopted(r.reservation_id, r.lease_id, r.reason)
                for r in session.scalars(
                    sa.select(table).order_by(table.reservation_id))]
