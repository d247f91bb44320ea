"""Adoption: a reservation made by a host service's own plugin (Blazar's
``virtual.instance.plugin``) becomes one of our leases, as it is.

Its slots, sizes, dates, project, server group and status are taken
over unchanged, with the names that plugin used and ours use too (class
``CUSTOM_RESERVATION_<ID>``, flavor id = reservation id, group
``reservation:<id>``): from then on our start, update, heal and end run
on it, and its slots count against every new lease. Nothing in Nova or
Placement is touched here. The lease is written in one transaction,
under the lock of its hosts, with the slots it has (even where the other
plugin overbooked); a reservation adopted already is left as it is, so
adopting again is harmless.
"""

import dataclasses
import datetime

from oslo_db import exception as db_exc
from oslo_log import log as logging

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.manager import lease_status
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.objects import unadopted

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Adopted:
    """A reservation of the other plugin, in our terms.

    ``status`` is the reservation's (``pending``, ``active`` or
    ``error``); ``slots`` are by hypervisor hostname.
    """

    reservation_id: str
    project_id: str
    user_id: str
    start_date: datetime.datetime
    end_date: datetime.datetime
    status: str
    vcpus: int
    memory_mb: int
    disk_gb: int
    amount: int
    affinity: bool | None
    slots: dict[str, int]
    server_group_id: str | None = None


class Adoption:
    """Adopted leases and the record of those that could not be."""

    def __init__(self, database: db_api.Database) -> None:
        self.database = database

    def adopted(self) -> frozenset[str]:
        """The names of our leases (one per reservation of the host
        service, adopted or made by us)."""
        return frozenset(lease.name
                         for lease in lease_obj.list_leases(self.database))

    def adopt(self, adopted: Adopted) -> lease_obj.Lease:
        """Our lease for the reservation (the existing one if it was
        adopted already).

        :raises InvalidInput: a status we cannot take over.
        :raises NotFound: a host of its slots is not one of ours.
        """
        try:
            return lease_obj.find(self.database, adopted.reservation_id)
        except exception.NotFound:
            pass
        statuses = lease_status.ADOPTED.get(adopted.status)
        if statuses is None:
            raise exception.InvalidInput(
                field='status', reason=f'{adopted.status!r} is not one of '
                                       f'{sorted(lease_status.ADOPTED)}')
        try:
            lease_id = self._insert(adopted, statuses)
        except (exception.Conflict, db_exc.DBDuplicateEntry):
            # another manager adopted it at the same time
            return lease_obj.find(self.database, adopted.reservation_id)
        LOG.info('Reservation %(res)s (%(status)s) adopted as lease '
                 '%(lease)s: %(slots)s',
                 {'res': adopted.reservation_id, 'status': adopted.status,
                  'lease': lease_id, 'slots': adopted.slots})
        return lease_obj.get(self.database, lease_id)

    def _insert(self, adopted: Adopted, statuses: tuple[str, str]) -> str:
        """Our rows of the lease, in one transaction; its id."""
        hosts = {name: host_obj.find(self.database, name).id
                 for name in sorted(adopted.slots)}
        with self.database.writer() as session:
            host_obj.lock(self.database, list(hosts.values()))
            lease_id = lease_obj.create(
                self.database, name=adopted.reservation_id,
                user_id=adopted.user_id, project_id=adopted.project_id,
                start_date=_naive(adopted.start_date),
                end_date=_naive(adopted.end_date),
                reservations=[lease_obj.NewReservation(
                    vcpus=adopted.vcpus, memory_mb=adopted.memory_mb,
                    disk_gb=adopted.disk_gb, amount=adopted.amount,
                    affinity=adopted.affinity,
                    slots={hosts[name]: count
                           for name, count in adopted.slots.items()},
                    id=adopted.reservation_id)])
            lease_obj.set_status_in(session, lease_id, *statuses)
            lease_obj.set_server_group(self.database,
                                       adopted.reservation_id,
                                       adopted.server_group_id)
            unadopted.forget(self.database, [adopted.reservation_id])
        return lease_id

    def refused(self, reservation_id: str, lease_id: str,
                reason: str) -> None:
        """Record why the reservation (of the host service's lease
        ``lease_id``) stays not ours, for ``lease reconcile``."""
        LOG.warning('Reservation %(res)s of lease %(lease)s not adopted: '
                    '%(why)s', {'res': reservation_id, 'lease': lease_id,
                                'why': reason})
        unadopted.record(self.database, reservation_id, lease_id, reason)

    def forget(self, reservation_ids: list[str]) -> None:
        """These reservations are gone from the host service."""
        unadopted.forget(self.database, reservation_ids)

    def unadopted(self) -> list[unadopted.Unadopted]:
        return unadopted.list_all(self.database)


def _naive(value: datetime.datetime) -> datetime.datetime:
    """UTC without tzinfo, as our rows keep dates."""
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc)
    return value.replace(tzinfo=None)
