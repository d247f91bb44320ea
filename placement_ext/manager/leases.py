"""Leases of instance reservations: create, update, start, end.

Blazar's ``virtual:instance`` plugin with the ``placement-api`` spec.
:class:`Leases` puts together the four jobs, one module each:
:mod:`~placement_ext.manager.lease_create` (the decision, made safe by
optimistic locking), :mod:`~placement_ext.manager.lease_update`,
:mod:`~placement_ext.manager.lease_provision` (class, flavor, server
group, inventories) and :mod:`~placement_ext.manager.lease_teardown`
(servers and what the lease made). Statuses are written through
:mod:`placement_ext.manager.lease_status` only.

Start and end (run by :mod:`placement_ext.manager.events`) are sequences
of idempotent steps, so a run that stopped half-way is finished by the
next one. ``progress()`` is called after each step (it proves the event
is still ours, and raises if another manager took it over).
"""

import datetime
from collections.abc import Callable

from oslo_log import log as logging

from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.drivers import protocols
from placement_ext.drivers.placement import reservation_reads
from placement_ext.manager import capacity_inputs as inputs
from placement_ext.manager import hosts
from placement_ext.manager import lease_create
from placement_ext.manager import lease_provision
from placement_ext.manager import lease_status
from placement_ext.manager import lease_teardown
from placement_ext.manager import lease_update
from placement_ext.objects import lease as lease_obj

LOG = logging.getLogger(__name__)

Progress = lease_provision.Progress
GroupNova = lease_provision.GroupNova
Timeouts = lease_teardown.Timeouts


class Leases:
    """Create, update, provision, start and end leases (``group_nova``:
    see :class:`~placement_ext.manager.lease_provision.Provisioning`)."""

    def __init__(self, database: db_api.Database,
                 nova: protocols.ReservationCompute,
                 placement: reservation_reads.ReservationPlacement,
                 hosts: hosts.Hosts, timeouts: Timeouts | None = None,
                 clock: Callable[[], datetime.datetime] = models.utcnow,
                 group_nova: GroupNova | None = None,
                 cleaning: datetime.timedelta = datetime.timedelta(0)
                 ) -> None:
        """:param cleaning: kept free between two reservations' slots
            on a host (``[reservation] cleaning_time``)."""
        self.database = database
        self.clock = clock
        self.views = inputs.HostViews(placement, database)
        self.holdings = inputs.Holdings(database)
        self.provisioning = lease_provision.Provisioning(
            database, nova, placement, hosts, group_nova)
        self.teardown = lease_teardown.Teardown(database, nova, placement,
                                             timeouts or Timeouts())
        self.creation = lease_create.Creation(database, hosts, self.views,
                                              self.holdings, cleaning)
        self.updates = lease_update.Update(database, nova, hosts,
                                           self.views, self.provisioning,
                                           self.teardown, cleaning)

    def create(self, body: dict, project_id: str, user_id: str,
               reservation_ids: list[str] | None = None,
               busy_hosts: frozenset[str] = frozenset()) -> lease_obj.Lease:
        """Reserve, then create the class and flavor of each reservation
        (if that fails the lease is removed again).

        :param reservation_ids: the reservations' ids, one per reservation
            of the body (a host service such as Blazar names them); new
            UUIDs when None.
        :param busy_hosts: hypervisor hostnames taken for the period by
            something else (Blazar's host reservations).
        :raises InvalidInput: a bad body (the field is named).
        :raises Conflict: not enough capacity, or the name is taken.
        """
        values, requests = lease_create.validate(body, self.clock())
        lease_id = self.creation.decide(values, requests, project_id,
                                        user_id, reservation_ids,
                                        busy_hosts)
        self._provision_or_undo(lease_obj.get(self.database, lease_id))
        lease = lease_obj.get(self.database, lease_id)   # with its group
        LOG.info('Lease %(id)s (%(name)s) created for project %(project)s: '
                 '%(slots)s',
                 {'id': lease.id, 'name': lease.name, 'project': project_id,
                  'slots': [r.slots_by_host for r in lease.reservations]})
        return lease

    def preview(self, body: dict, busy_hosts: frozenset[str] = frozenset(),
                lease: lease_obj.Lease | None = None) -> list[dict[str, int]]:
        """The slots by hypervisor hostname, one mapping per reservation,
        that a create of ``body`` (or, given ``lease``, an update of it
        with ``body``'s changes, as :meth:`update` takes them) would
        pick now; nothing is taken.

        :raises InvalidInput: a bad body.
        :raises NoCapacity: it does not fit.
        """
        if lease is not None:
            return [self.updates.preview(lease, body, busy_hosts)]
        values, requests = lease_create.validate(body, self.clock())
        return self.creation.preview(values, requests, busy_hosts)

    def update(self, lease: lease_obj.Lease, values: dict,
               moves: bool = False,
               busy_hosts: frozenset[str] = frozenset()) -> lease_obj.Lease:
        """See :meth:`placement_ext.manager.lease_update.Update.update`."""
        return self.updates.update(lease, values, moves, busy_hosts)

    def _provision_or_undo(self, lease: lease_obj.Lease) -> None:
        try:
            for res in lease.reservations:
                self.provisioning.provision(lease, res)
        except Exception:
            LOG.exception('Lease %s: creating its class or flavor failed; '
                          'removing the lease', lease.id)
            try:
                # reloaded: the server group may be recorded by now
                self.teardown.run(lease_obj.get(self.database, lease.id),
                                  lease_provision.no_progress)
                lease_status.remove(self.database, lease.id)
            except Exception:
                LOG.exception('Lease %s could not be removed; it stays in '
                              'ERROR for "lease delete" or "lease '
                              'reconcile"', lease.id)
                lease_status.mark_failed(self.database, lease.id)
            raise


    def provision(self, lease: lease_obj.Lease,
                  res: lease_obj.Reservation) -> None:
        """Class, flavor with its extra specs, flavor access, server
        group: idempotent."""
        self.provisioning.provision(lease, res)

    def ensure_server_group(self, lease: lease_obj.Lease,
                            res: lease_obj.Reservation) -> str | None:
        """See :meth:`placement_ext.manager.lease_provision.Provisioning.
        ensure_server_group`."""
        return self.provisioning.ensure_server_group(lease, res)

    def start(self, lease: lease_obj.Lease,
              progress: Progress = lease_provision.no_progress) -> None:
        """Put each reservation's inventory on its hosts' providers."""
        self.provisioning.start(lease, progress)

    def end(self, lease: lease_obj.Lease,
            progress: Progress = lease_provision.no_progress) -> list[str]:
        """Delete the lease's servers, then inventories, class, flavor
        and server group.

        :returns: the servers of the flavor that the lease did not admit
            (another project's): kept, and logged.
        :raises Conflict: such a server holds one of the slots, so its
            inventory stays; nothing of it is deleted.
        """
        kept = self.teardown.run(lease, progress)
        LOG.info('Lease %s ended', lease.id)
        return kept
