"""Blazar's own instance reservations taken over by our plugin.

A reservation that Blazar's ``virtual.instance.plugin`` made (any release
15 to 18: the same rows and resources) has Blazar's rows only:
``instance_reservations`` (with the per-reservation ``aggregate_id`` and
the ``server_group_id``) and one ``computehost_allocations`` row per
slot; in Nova and Placement its flavor, server group, aggregate,
``CUSTOM_RESERVATION_<ID>`` class and, once started, the inventories of
that class on its hosts' ``blazar_<host>`` providers. All of them carry
the names ours use, so adopting it is writing our lease from Blazar's
rows (:class:`~placement_ext.manager.lease_adopt.Adoption`); the one
thing ours lacks, the aggregate, is deleted at its end
(:meth:`~placement_ext.adapters.blazar.workflows.BlazarReservations.end`),
as upstream's end deletes it.

No blazar import: ``blazar_db`` is blazar's ``blazar.db.api``.
"""

import collections
import dataclasses
from collections.abc import Callable

from oslo_log import log as logging
from oslo_utils import strutils

from placement_ext import exception
from placement_ext.manager import lease_adopt
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)

# Blazar's lease status of a create cut half-way: its rows may be
# partial; Blazar's recovery (ours) fails it, nothing to adopt
_CREATING = 'CREATING'
_ENDED = (states.RESERVATION_DELETED,)


class NotAdoptable(Exception):
    """The reason a reservation cannot be adopted (its text)."""


@dataclasses.dataclass(frozen=True)
class AdoptionReport:
    adopted: tuple[str, ...] = ()
    refused: tuple[tuple[str, str], ...] = ()    # (reservation, reason)


class BlazarAdoption:
    """Blazar's instance reservations that are not ours yet, adopted.

    :param sync_hosts: enrols Blazar's hosts in ours (reusing the
        ``blazar_<host>`` providers upstream's host plugin made, or
        making them) and returns Blazar's host id by hostname.
    """

    def __init__(self, blazar_db: object, adoption: lease_adopt.Adoption,
                 sync_hosts: Callable[[], dict[str, object]]) -> None:
        self.blazar_db = blazar_db
        self.adoption = adoption
        self.sync_hosts = sync_hosts

    def run(self) -> AdoptionReport:
        """Adopt every live instance reservation of Blazar's that is not
        ours (idempotent: blazar-manager runs it at each start)."""
        theirs = [r for r in self.blazar_db.reservation_get_all_by_values(
            resource_type=states.RESOURCE_TYPE_INSTANCE)
            if r['status'] not in _ENDED]
        ours = self.adoption.adopted()
        self.adoption.forget(
            [row.reservation_id for row in self.adoption.unadopted()
             if row.reservation_id not in {r['id'] for r in theirs}])
        todo = [r for r in theirs
                if r['id'] not in ours and self._upstreams(r)]
        if not todo:
            return AdoptionReport()
        names = {blazar_id: name
                 for name, blazar_id in self.sync_hosts().items()}
        adopted, refused = [], []
        for res in todo:
            try:
                self.adoption.adopt(self.describe(res, names))
                adopted.append(res['id'])
            except (NotAdoptable, exception.PlacementExtError) as exc:
                reason = str(exc)
                self.adoption.refused(res['id'], res['lease_id'], reason)
                refused.append((res['id'], reason))
        return AdoptionReport(tuple(adopted), tuple(refused))

    def adopt_one(self, reservation_id: str) -> bool:
        """Adopt this reservation if it is Blazar's own and live (an
        event or update reached us before the start-up adoption did, or
        another manager running upstream's plugin made it). :returns:
        whether it is ours now."""
        res = self.blazar_db.reservation_get(reservation_id)
        if res is None or not self._upstreams(res) or \
                res['status'] in _ENDED:
            return False
        names = {blazar_id: name
                 for name, blazar_id in self.sync_hosts().items()}
        try:
            self.adoption.adopt(self.describe(res, names))
        except (NotAdoptable, exception.PlacementExtError) as exc:
            self.adoption.refused(reservation_id, res['lease_id'], str(exc))
            return False
        return True

    def _upstreams(self, res: dict) -> bool:
        """Made by Blazar's own plugin: its row has the per-reservation
        aggregate, which ours never makes (and clears at the end of an
        adopted one, so an end run again adopts nothing)."""
        row = self.blazar_db.instance_reservation_get(res['resource_id'])
        return bool(row and row.get('aggregate_id'))

    def describe(self, res: dict, names: dict[object, str]
                 ) -> lease_adopt.Adopted:
        """Blazar's rows of reservation ``res`` in our terms.

        :param names: our hostname by Blazar's host id.
        :raises NotAdoptable: why not.
        """
        lease = self.blazar_db.lease_get(res['lease_id'])
        if lease is None:
            raise NotAdoptable(f'its lease {res["lease_id"]} is gone')
        if lease['status'] == _CREATING:
            raise NotAdoptable('its lease is CREATING (a create cut '
                               'half-way): it is failed, not adopted')
        row = self.blazar_db.instance_reservation_get(res['resource_id'])
        if row is None:
            raise NotAdoptable('it has no instance_reservations row')
        slots = collections.Counter()
        for alloc in self.blazar_db.host_allocation_get_all_by_values(
                reservation_id=res['id']):
            name = names.get(alloc['compute_host_id'])
            if name is None:
                raise NotAdoptable(f'a slot is on Blazar host '
                                   f'{alloc["compute_host_id"]}, which '
                                   f'Blazar no longer has')
            slots[name] += 1
        return lease_adopt.Adopted(
            reservation_id=res['id'], project_id=lease['project_id'],
            user_id=lease.get('user_id') or '',
            start_date=lease['start_date'], end_date=lease['end_date'],
            status=res['status'], vcpus=int(row['vcpus']),
            memory_mb=int(row['memory_mb']), disk_gb=int(row['disk_gb']),
            amount=int(row['amount']), affinity=_affinity(row['affinity']),
            slots=dict(slots), server_group_id=row.get('server_group_id'))


def _affinity(value: object) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    return strutils.bool_from_string(value, default=None)
