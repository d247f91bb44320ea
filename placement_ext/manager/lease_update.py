"""Lease update: new dates, amount or size of its reservation.

The slots are picked again (:func:`placement_ext.manager.lease_create.
pick`) with the reservation's own counted as free and kept first, in one
transaction with every reservable host locked; then the reservation is
provisioned again and, if started, its inventories follow.
"""

import dataclasses
import datetime

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.decision import capacity
from placement_ext.decision import held_slots
from placement_ext.decision import host_pickup
from placement_ext.drivers import protocols
from placement_ext.manager import capacity_inputs as inputs
from placement_ext.manager import hosts
from placement_ext.manager import lease_create
from placement_ext.manager import lease_provision
from placement_ext.manager import lease_teardown
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj


@dataclasses.dataclass(frozen=True)
class Update:
    """Changes a lease's reservation (blazar ``update_reservation``)."""

    database: db_api.Database
    nova: protocols.ReservationCompute
    hosts: hosts.Hosts
    views: inputs.HostViews
    provisioning: lease_provision.Provisioning
    teardown: lease_teardown.Teardown
    # kept free between two reservations' slots on a host
    cleaning: datetime.timedelta = datetime.timedelta(0)

    def update(self, lease: lease_obj.Lease, values: dict,
               moves: bool = False,
               busy_hosts: frozenset[str] = frozenset()) -> lease_obj.Lease:
        """Change the period, amount or size of the lease's (only)
        reservation: the slots are picked again with its own counted as
        free and kept first (blazar ``update_reservation``).

        A started reservation changes its amount and dates only, and keeps
        every slot it has (its instances may use them) unless ``moves``
        (healing: slots on hosts no longer reservable move elsewhere).

        :param values: any of start_date, end_date (datetimes), amount,
            vcpus, memory_mb, disk_gb, affinity (normalised).
        :param busy_hosts: as for :meth:`create`.
        :raises InvalidInput: a change a started reservation cannot take.
        :raises NoCapacity: the new request does not fit; says why.
        """
        (res,) = lease.reservations
        start, end, req = changed_request(lease, values)
        started = res.status in lease_obj.STARTED_RESERVATIONS
        resized = req.resources.as_tuple() != (res.vcpus, res.memory_mb,
                                               res.disk_gb)
        if started and (resized or req.affinity != res.affinity):
            raise exception.InvalidInput(
                field='reservation', reason='a started reservation changes '
                'its amount and dates only')
        seen = self.views.current(self.hosts.freepool_uuid())
        changes = self.database.retrying(
            self._repick, lease, req, seen, (start, end),
            started and not moves, busy_hosts)
        if resized:
            self.nova.delete_flavor(res.flavor_id)   # flavors are immutable
        updated = lease_obj.get(self.database, lease.id)
        self.provisioning.provision(updated, updated.reservations[0])
        if started:
            self._apply_inventory(updated.reservations[0], dict(changes))
        return lease_obj.get(self.database, lease.id)   # with its group


    def preview(self, lease: lease_obj.Lease, values: dict,
                busy_hosts: frozenset[str] = frozenset()) -> dict[str, int]:
        """The slots by hypervisor hostname that :meth:`update` would
        give the lease's reservation now, taking none (what Blazar's
        enforcement filters are shown).

        :raises NoCapacity: the new request does not fit.
        """
        (res,) = lease.reservations
        start, end, req = changed_request(lease, values)
        seen = self.views.current(self.hosts.freepool_uuid())
        window = held_slots.widened(start, end, self.cleaning)
        hosts = [h for h in seen.hosts
                 if h.hypervisor_hostname not in busy_hosts]
        new = lease_create.pick(
            self.views, 0, req, hosts, seen.usages,
            lease_obj.holdings(self.database, None, window), *window,
            updated=res)
        return lease_create.by_name(new, hosts)

    def _repick(self, lease: lease_obj.Lease, req: lease_create.Request,
                seen: inputs.Current,
                period: tuple[datetime.datetime, datetime.datetime],
                keep_slots: bool, busy_hosts: frozenset[str]
                ) -> tuple[tuple[str, int], ...]:
        """Pick the slots of ``lease``'s reservation again and write them,
        in one transaction; returns the changes per host."""
        (res,) = lease.reservations
        start, end = period
        with self.database.writer():
            reservable = host_obj.lock_reservable(self.database)
            hosts = [h for h in seen.hosts if h.id in reservable
                     and h.hypervisor_hostname not in busy_hosts]
            window = held_slots.widened(start, end, self.cleaning)
            held = lease_obj.holdings(self.database, None, window)
            new = lease_create.pick(self.views, 0, req, hosts,
                                    seen.usages, held, *window,
                                    updated=res)
            changes = host_pickup.allocation_changes(
                res.slots_by_host, tuple(sorted(
                    (h.hypervisor_hostname, new.slots[h.id])
                    for h in hosts if h.id in new.slots)))
            if keep_slots and any(d < 0 for _h, d in changes):
                raise exception.NoCapacity(
                    reason=f'lease {lease.id} is started: its slots stay '
                           f'where they are, and {dict(changes)} would '
                           f'move some')
            lease_obj.update(self.database, lease.id, start_date=start,
                             end_date=end, reservation=new)
        return changes


    def _apply_inventory(self, res: lease_obj.Reservation,
                         changes: dict[str, int]) -> None:
        """Inventories of a started reservation on the hosts it changed."""
        slots = res.slots_by_host
        hosts = {h.hypervisor_hostname: h for h in host_obj.get_many(
            self.database, [host_id for host_id, _n, _s in res.allocations])}
        for name in changes:
            if name in slots:
                self.provisioning.put_inventory(
                    hosts[name], res.resource_class, slots[name])
            else:
                host = host_obj.find(self.database, name)
                self.teardown.drop_inventory(host, res.resource_class,
                                             lease_provision.no_progress)



def changed_request(lease: lease_obj.Lease, values: dict
                    ) -> tuple[datetime.datetime, datetime.datetime,
                               lease_create.Request]:
    """The period and request of ``lease``'s reservation with
    ``values`` (as :meth:`Update.update` takes them) applied."""
    (res,) = lease.reservations
    return (values.get('start_date', lease.start_date),
            values.get('end_date', lease.end_date),
            lease_create.Request(capacity.Resources(
                values.get('vcpus', res.vcpus),
                values.get('memory_mb', res.memory_mb),
                values.get('disk_gb', res.disk_gb)),
                values.get('amount', res.amount),
                values.get('affinity', res.affinity)))
