"""The reservation workflows of one manager, wired to its drivers.

:class:`Reservations` builds the host, lease, event and reconcile
workflows on one database, one Nova driver and one Placement driver;
the RPC endpoint (:mod:`placement_ext.manager.manager`) and the Blazar
adapter (:mod:`placement_ext.adapters.blazar.workflows`) call it. The
workflows live in :mod:`~placement_ext.manager.hosts`,
:mod:`~placement_ext.manager.leases`, :mod:`~placement_ext.manager.events`
and :mod:`~placement_ext.manager.reconcile`; decisions come from
:mod:`placement_ext.decision`.

It is the one owner of the leases' status transitions and deletions
(written through :mod:`~placement_ext.manager.lease_status`): its own
event runner finishes events with them, and a host service that runs
lease events itself (Blazar) asks it to start, end, remove or recover a
lease (:mod:`~placement_ext.manager.host_events`); adapters write no
status of ours.
"""

import dataclasses
import datetime
from collections.abc import Callable
from collections.abc import Set

from oslo_config import cfg
from oslo_log import log as logging

from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.drivers import keystone
from placement_ext.drivers import nova as nova_driver
from placement_ext.drivers import placement as placement_driver
from placement_ext.drivers import protocols
from placement_ext.drivers.placement import reservation_reads
from placement_ext.manager import events
from placement_ext.manager import heal
from placement_ext.manager import host_events
from placement_ext.manager import hosts
from placement_ext.manager import lease_adopt
from placement_ext.manager import lease_provision
from placement_ext.manager import lease_status
from placement_ext.manager import leases
from placement_ext.manager import reconcile
from placement_ext.objects import lease as lease_obj
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Settings:
    """The ``[reservation]`` options the workflows use."""

    freepool: str = 'placement_ext_freepool'
    cleaning_time: int = 0          # minutes
    server_delete_timeout: float = 600.0
    server_poll_interval: float = 2.0
    event_stale_after: float = 600.0
    inventory_conflict_retries: int = 10
    inventory_conflict_max_wait: float = 1.0

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> 'Settings':
        opts = conf.reservation
        return cls(freepool=opts.freepool_aggregate,
                   cleaning_time=opts.cleaning_time,
                   server_delete_timeout=opts.server_delete_timeout,
                   server_poll_interval=opts.server_poll_interval,
                   event_stale_after=opts.event_stale_after,
                   inventory_conflict_retries=opts.inventory_conflict_retries,
                   inventory_conflict_max_wait=(
                       opts.inventory_conflict_max_wait))


class Reservations:
    """Hosts, leases, lease events and reconcile for one manager."""

    def __init__(self, database: db_api.Database,
                 nova: protocols.ReservationCompute,
                 placement: placement_driver.PlacementDriver,
                 settings: Settings = Settings(),
                 clock: Callable[[], datetime.datetime] = models.utcnow,
                 group_nova: leases.GroupNova | None = None) -> None:
        self.database = database
        self.nova = nova
        self.placement = reservation_reads.ReservationPlacement(
            placement, max_attempts=settings.inventory_conflict_retries,
            max_wait=settings.inventory_conflict_max_wait)
        self.hosts = hosts.Hosts(database, nova, self.placement,
                                    settings.freepool)
        self.leases = leases.Leases(
            database, nova, self.placement, self.hosts,
            leases.Timeouts(settings.server_delete_timeout,
                               settings.server_poll_interval), clock,
            group_nova,
            datetime.timedelta(minutes=settings.cleaning_time))
        self.events = events.EventRunner(database, self.leases,
                                         settings.event_stale_after, clock)
        self.reconciler = reconcile.Reconciler(
            database, nova, self.placement, self.hosts, self.leases)
        # leases a host service's own plugin made, taken over
        self.adoption = lease_adopt.Adoption(database)

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts, database: db_api.Database,
                  group_nova: Callable[[nova_driver.NovaDriver],
                                       leases.GroupNova] | None = None
                  ) -> 'Reservations':
        """Drivers from ``[nova]`` and ``[placement]``.

        :param group_nova: given the service's Nova driver, the one that
            makes a project's server groups (see :class:`Leases`).
        """
        nova = nova_driver.NovaDriver(
            keystone.load_session(conf, 'nova'),
            adapter_kwargs=keystone.adapter_kwargs(conf, 'nova'))
        placement = placement_driver.PlacementDriver.from_conf(conf)
        return cls(database, nova, placement, Settings.from_conf(conf),
                   group_nova=group_nova(nova) if group_nova else None)

    def delete_lease(self, ref: str, project_id: str | None = None) -> None:
        """End the lease now (servers, inventories, class, flavor), then
        delete it."""
        lease = lease_obj.find(self.database, ref, project_id)
        self.events.end_now(lease)
        lease_status.remove(self.database, lease.id)

    def heal(self, failed: Set[str], begin: datetime.datetime,
             end: datetime.datetime,
             on_moved: Callable[[lease_obj.Lease], None] | None = None,
             busy_hosts: Callable[[lease_obj.Lease], frozenset[str]]
             | None = None) -> dict[str, str]:
        """Retire the failed hosts and move the slots held there during
        [begin, end); see :func:`placement_ext.manager.heal.heal`."""
        return heal.heal(self.database, self.leases, failed, begin, end,
                         on_moved=on_moved or (lambda _lease: None),
                         busy_hosts=busy_hosts or (lambda _lease: frozenset()))

    def follow_reservable(self, reservable: dict[str, bool]
                          ) -> tuple[list[str], list[str]]:
        """Our hosts offered or withdrawn as the host service marks
        them; see :func:`placement_ext.manager.heal.follow`."""
        return heal.follow(self.database, reservable)

    # -- for a host service that runs the lease events itself ----------

    def start_lease(self, lease: lease_obj.Lease,
                    progress: lease_provision.Progress
                    = lease_provision.no_progress) -> None:
        """Start the lease (inventories on its hosts, flavor and group
        made again if missing), then mark it and its reservations
        started."""
        self.leases.start(lease, progress)
        lease_status.mark_started(self.database, lease.id)

    def end_and_remove(self, lease: lease_obj.Lease,
                       progress: lease_provision.Progress
                       = lease_provision.no_progress) -> list[str]:
        """End the lease (servers, inventories, class, flavor, group),
        then remove it. :returns: the servers it kept (see
        :meth:`~placement_ext.manager.leases.Leases.end`)."""
        kept = self.leases.end(lease, progress)
        lease_status.remove(self.database, lease.id)
        return kept

    def hand_over(self, lease: lease_obj.Lease) -> None:
        """The lease now belongs to another implementation (Blazar's own
        plugin, which took over its flavor, class, inventories and
        group): our rows go, nothing in Nova or Placement is touched,
        and its slots no longer count here."""
        lease_status.remove(self.database, lease.id)
        LOG.info('Lease %s handed over: our rows are removed', lease.id)

    def forget_orphans(self, exists: Callable[[str], bool]) -> list[str]:
        """End and remove our pending leases whose reservation the host
        service no longer has (``exists(reservation id)`` is False):
        it rolled their lease back without telling us. :returns: our
        leases removed."""
        gone = []
        for lease in lease_obj.list_leases(self.database):
            if lease.status == states.LEASE_PENDING and \
                    not exists(lease.name):
                LOG.warning('Reservation %s is gone from the host service '
                            '(its lease was rolled back): its slots are '
                            'freed', lease.name)
                self.end_and_remove(lease)
                gone.append(lease.id)
        return gone

    def ensure_server_groups(self) -> list[lease_obj.Lease]:
        """Give each started reservation with an affinity policy a valid
        server group (leases made before groups were made, groups
        deleted by hand). :returns: the leases (as they are now) of the
        reservations whose group is new, one per reservation."""
        changed = []
        for lease in lease_obj.list_leases(self.database):
            for res in lease.reservations:
                if res.status not in lease_obj.STARTED_RESERVATIONS or \
                        res.affinity is None:
                    continue
                group = self.leases.ensure_server_group(lease, res)
                if group != res.server_group_id:
                    changed.append(lease_obj.get(self.database, lease.id))
        return changed

    def recover_interrupted(self, host: host_events.HostService,
                            stale: datetime.datetime) -> list:
        """See :func:`placement_ext.manager.host_events.recover`."""
        return host_events.recover(self.database, host, self.end_and_remove,
                                   stale)
