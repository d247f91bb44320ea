"""What the Blazar plugin does, over our workflows and Blazar's DB API.

No blazar import: ``blazar_db`` is blazar's ``blazar.db.api`` module
inside blazar-manager, and a small in-memory stand-in in unit tests.
Every decision is our reservation code's
(:class:`placement_ext.manager.reservations.Reservations`); this class
maps ids between the two sides and keeps Blazar's rows in step.
"""

import datetime
from collections.abc import Callable

from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import exception
from placement_ext.adapters.blazar import translate
from placement_ext.db import api as db_api
from placement_ext.db import migration
from placement_ext.db import models
from placement_ext.decision import lease_heal
from placement_ext.drivers import nova as nova_driver
from placement_ext.manager import heal
from placement_ext.manager import leases
from placement_ext.manager import reservations
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)

_HOST_RESOURCE_TYPE = 'physical:host'
# Blazar's lease and event statuses (``blazar.status``) we reset.
_IN_PROGRESS = 'IN_PROGRESS'
_UNDONE = 'UNDONE'
# event type -> (lease status while it runs, lease status before it)
_RESUMABLE = {'start_lease': ('STARTING', 'PENDING'),
              'end_lease': ('TERMINATING', 'ACTIVE')}
# our heal outcomes as Blazar's reservation flags
# a running start or end reports progress to Blazar's event row at most
# this often; every manager looks for stale events this often
_TOUCH_EVERY = datetime.timedelta(seconds=5)
RECOVERY_INTERVAL = 10
_HEAL_FLAGS = {lease_heal.CHANGED: 'resources_changed',
               lease_heal.MISSING: 'missing_resources'}


def _changed(row: dict, default: datetime.datetime) -> datetime.datetime:
    """When Blazar's row last changed (its API gives ISO strings)."""
    value = row.get('updated_at') or row.get('created_at')
    if isinstance(value, str):
        return datetime.datetime.fromisoformat(value)
    return value or default


def owner_nova(token: Callable[[lease_obj.Lease], str | None]
               ) -> Callable[[nova_driver.NovaDriver], leases.GroupNova]:
    """Server groups made with a token of the lease's project (Blazar's
    current context, or the lease's trust), so that they belong to that
    project as upstream's do: Nova only accepts a group of the booting
    project in the ``group`` hint.

    :param token: the lease owner's token, or None.
    """
    def bind(nova: nova_driver.NovaDriver) -> leases.GroupNova:
        def for_lease(lease: lease_obj.Lease
                      ) -> nova_driver.NovaDriver | None:
            owner = token(lease)
            return nova.with_token(owner) if owner else None
        return for_lease
    return bind


class BlazarReservations:
    """Our reservation workflows seen from blazar-manager."""

    def __init__(self, workflows: reservations.Reservations,
                 blazar_db: object, stale_after: float = 600.0,
                 clock: Callable[[], datetime.datetime] = models.utcnow
                 ) -> None:
        """:param stale_after: seconds without progress after which a
            Blazar start or end event left in progress is run again
            (``[reservation] event_stale_after``, as for our events)."""
        self.workflows = workflows
        self.database = workflows.database
        self.blazar_db = blazar_db
        self.stale_after = datetime.timedelta(seconds=stale_after)
        self.clock = clock

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts, blazar_db: object,
                  owner_token: Callable[[lease_obj.Lease], str | None]
                  = lambda _lease: None) -> 'BlazarReservations':
        """:param owner_token: a token of the lease's project, or None."""
        database = db_api.Database(conf)
        migration.ensure_current(conf, database)
        workflows = reservations.Reservations.from_conf(
            conf, database, group_nova=owner_nova(owner_token))
        # the free pool exists before the first "reservation host
        # create", marked for our Nova filter
        workflows.hosts.freepool_uuid()
        return cls(workflows, blazar_db,
                   reservations.Settings.from_conf(conf).event_stale_after)

    # -- hosts ----------------------------------------------------------

    def sync_hosts(self) -> dict[str, object]:
        """Enrol the hosts Blazar has and we lack, drop the ones it lost.

        :returns: Blazar's computehost id by hypervisor hostname.
        """
        theirs = {h['hypervisor_hostname']: h
                  for h in self.blazar_db.host_list()}
        ours = {h.hypervisor_hostname
                for h in host_obj.list_hosts(self.database)}
        for name in sorted(set(theirs) - ours):
            # reuses the blazar_<host> provider Blazar made, joins the
            # free pool (idempotent)
            self.workflows.hosts.create(name)
        for name in sorted(ours - set(theirs)):
            try:
                self.workflows.hosts.delete(name)
            except exception.Conflict as exc:
                LOG.warning('Host %(name)s left Blazar but stays ours: '
                            '%(why)s', {'name': name, 'why': exc})
        return {name: h['id'] for name, h in theirs.items()}

    def allocation_candidates(self, values: dict) -> list:
        """Blazar's ids of the hosts a new reservation may use (the
        enforcement filters' input; the pick itself is made at reserve)."""
        return [host_id for name, host_id in self.sync_hosts().items()
                if name in self._reservable()]

    def host_leases(self, start: datetime.datetime,
                    end: datetime.datetime) -> frozenset[str]:
        """Hosts that Blazar's ``physical:host`` reservations hold over
        [start, end) (they leave the free pool only when they start)."""
        names = {h['id']: h['hypervisor_hostname']
                 for h in self.blazar_db.host_list()}
        busy = set()
        for res in self.blazar_db.reservation_get_all_by_values(
                resource_type=_HOST_RESOURCE_TYPE):
            lease = self.blazar_db.lease_get(res['lease_id'])
            if res['status'] == 'deleted' or lease is None or \
                    lease['start_date'] >= end or lease['end_date'] <= start:
                continue
            busy.update(names.get(alloc['compute_host_id'])
                        for alloc in self.blazar_db.
                        host_allocation_get_all_by_values(
                            reservation_id=res['id']))
        return frozenset(busy - {None})

    def _reservable(self) -> set[str]:
        return {h.hypervisor_hostname
                for h in host_obj.list_hosts(self.database) if h.reservable}

    # -- reservations ---------------------------------------------------------

    def reserve(self, reservation_id: str, values: dict, project_id: str,
                user_id: str) -> str:
        """Our lease for the Blazar reservation, then Blazar's rows.

        :returns: the ``instance_reservations`` id (Blazar's resource id).
        """
        self.forget_orphans()
        blazar_ids = self.sync_hosts()
        lease = self.workflows.leases.create(
            translate.lease_body(reservation_id, values), project_id,
            user_id or '', [reservation_id],
            self.host_leases(values['start_date'], values['end_date']))
        try:
            return self._record(lease.reservations[0], values, blazar_ids)
        except Exception:
            self._forget(lease)
            raise

    def forget_orphans(self) -> list[str]:
        """End our pending leases whose Blazar reservation is gone.

        Blazar rolls back a lease whose second reservation fails by
        deleting its rows only, without telling the plugins, so the first
        reservation's slots would stay taken (upstream's plugin leaks its
        flavor and aggregate there). :returns: our leases ended.
        """
        gone = []
        for lease in lease_obj.list_leases(self.database):
            if lease.status == states.LEASE_PENDING and \
                    self.blazar_db.reservation_get(lease.name) is None:
                LOG.warning('Reservation %s is gone from Blazar (its lease '
                            'was rolled back): its slots are freed',
                            lease.name)
                self._forget(lease)
                gone.append(lease.id)
        return gone

    def _record(self, res: lease_obj.Reservation, values: dict,
                blazar_ids: dict[str, object]) -> str:
        row = self.blazar_db.instance_reservation_create({
            'reservation_id': res.id, 'vcpus': res.vcpus,
            'memory_mb': res.memory_mb, 'disk_gb': res.disk_gb,
            'amount': res.amount, 'affinity': res.affinity,
            'resource_properties': values.get('resource_properties') or '',
            'flavor_id': res.flavor_id,
            'server_group_id': res.server_group_id})
        self._write_allocations(res, blazar_ids)
        return row['id']

    def _write_allocations(self, res: lease_obj.Reservation,
                           blazar_ids: dict[str, object]) -> None:
        for old in self.blazar_db.host_allocation_get_all_by_values(
                reservation_id=res.id):
            self.blazar_db.host_allocation_destroy(old['id'])
        for host_id in translate.slots_per_blazar_host(res.slots_by_host,
                                                       blazar_ids):
            self.blazar_db.host_allocation_create(
                {'compute_host_id': host_id, 'reservation_id': res.id})

    def start(self, resource_id: str) -> None:
        """Inventories on the hosts; the flavor and the server group made
        again if missing (a lease made before server groups gets its
        group here)."""
        lease = self._lease_of(resource_id)
        self.workflows.leases.start(
            lease, self._event_progress(lease, 'start_lease'))
        leases.mark_started(self.database, lease.id)
        self._mirror_group(lease_obj.get(self.database,
                                         lease.id).reservations[0])

    def _mirror_group(self, res: lease_obj.Reservation) -> None:
        row = self.blazar_db.reservation_get(res.id)
        self.blazar_db.instance_reservation_update(
            row['resource_id'], {'server_group_id': res.server_group_id})

    def ensure_server_groups(self) -> list[str]:
        """Give each started reservation with an affinity policy a valid
        server group (leases made before our plugin made groups, groups
        deleted by hand). :returns: the reservations whose group is new.
        """
        changed = []
        for lease in lease_obj.list_leases(self.database):
            for res in lease.reservations:
                if res.status not in lease_obj.STARTED_RESERVATIONS or \
                        res.affinity is None:
                    continue
                group = self.workflows.leases.ensure_server_group(lease, res)
                if group != res.server_group_id:
                    self._mirror_group(lease_obj.get(
                        self.database, lease.id).reservations[0])
                    changed.append(res.id)
        return changed

    def end(self, resource_id: str) -> None:
        """Servers, inventories, class, flavor, then our rows and Blazar's
        slots; nothing to do for what is gone already."""
        try:
            lease = self._lease_of(resource_id)
        except exception.NotFound:
            LOG.info('Reservation %s: nothing of ours left to end',
                     resource_id)
            return
        kept = self.workflows.leases.end(
            lease, self._event_progress(lease, 'end_lease'))
        if kept:
            # the lease's end kept servers it did not admit
            blazar_lease = self.blazar_db.reservation_get(
                lease.reservations[0].id)['lease_id']
            self.blazar_db.lease_update(blazar_lease, {'degraded': True})
        self._forget(lease, ended=True)

    def _forget(self, lease: lease_obj.Lease, ended: bool = False) -> None:
        if not ended:
            self.workflows.leases.end(lease)
        lease_obj.delete(self.database, lease.id)
        for res in lease.reservations:
            for alloc in self.blazar_db.host_allocation_get_all_by_values(
                    reservation_id=res.id):
                self.blazar_db.host_allocation_destroy(alloc['id'])

    def _lease_of(self, resource_id: str) -> lease_obj.Lease:
        row = self.blazar_db.instance_reservation_get(resource_id)
        if row is None:
            raise exception.NotFound(kind='instance reservation',
                                     id=resource_id)
        return lease_obj.find(self.database, row['reservation_id'])

    def update(self, reservation_id: str, values: dict) -> None:
        """New dates, amount or size: our slots are picked again, then
        Blazar's rows follow."""
        lease = lease_obj.find(self.database, reservation_id)
        changes = translate.update_values(values)
        res = lease.reservations[0]
        if all(getattr(res, k, getattr(lease, k, None)) == v
               for k, v in changes.items()):
            return
        updated = self.workflows.leases.update(
            lease, changes, busy_hosts=self.host_leases(
                changes.get('start_date', lease.start_date),
                changes.get('end_date', lease.end_date)))
        self._mirror(updated.reservations[0])

    def _mirror(self, res: lease_obj.Reservation) -> None:
        row = self.blazar_db.reservation_get(res.id)
        self.blazar_db.instance_reservation_update(row['resource_id'], {
            'vcpus': res.vcpus, 'memory_mb': res.memory_mb,
            'disk_gb': res.disk_gb, 'amount': res.amount,
            'affinity': res.affinity, 'server_group_id': res.server_group_id})
        self._write_allocations(res, self.sync_hosts())

    def heal(self, failed_hosts: list, begin: datetime.datetime,
             end: datetime.datetime) -> dict:
        """Move the slots of the reservations on failed hosts (Blazar's
        host monitor calls this); the core decides and moves, each moved
        reservation is mirrored into Blazar's rows at once.

        :returns: Blazar's flags by reservation id: ``resources_changed``
            for a started one that moved, ``missing_resources`` for one
            that cannot be honoured any more (the log says why).
        """
        outcomes = heal.heal(
            self.database, self.workflows.leases,
            {h['hypervisor_hostname'] for h in failed_hosts}, begin, end,
            on_moved=lambda lease: self._mirror(lease.reservations[0]))
        return {res_id: {_HEAL_FLAGS[result]: True}
                for res_id, result in outcomes.items()}

    # -- start-up ----------------------------------------------------------

    def _event_progress(self, lease: lease_obj.Lease,
                        event_type: str) -> leases.Progress:
        """Progress of the Blazar event running ``lease``'s start or
        end: each step moves the event's ``updated_at`` (at most every
        :data:`_TOUCH_EVERY`), so no manager takes a live event over
        (:meth:`recover_interrupted_events`)."""
        blazar_lease = self.blazar_db.reservation_get(
            lease.reservations[0].id)['lease_id']
        events = self.blazar_db.event_get_all_sorted_by_filters(
            'time', 'asc', {'lease_id': blazar_lease,
                            'event_type': event_type,
                            'status': _IN_PROGRESS})
        if not events:          # run outside Blazar's event loop
            return lambda: None
        event_id = events[0]['id']
        touched = [self.clock()]

        def progress() -> None:
            now = self.clock()
            if now - touched[0] >= _TOUCH_EVERY:
                self.blazar_db.event_update(event_id, {'updated_at': now})
                touched[0] = now
        return progress

    def recover_interrupted_events(self) -> list[str]:
        """Put back the start or end events a killed manager left running.

        Blazar runs an event only while it is UNDONE and its lease is in a
        stable status; a manager killed in ``on_start`` leaves the event
        IN_PROGRESS and the lease STARTING for ever. Our start and end are
        idempotent, so the next run finishes the job. Only leases whose
        reservations are all ours (other plugins may not be idempotent),
        and only events without progress for ``stale_after``: with several
        blazar-managers, another one may be running it (each of its steps
        reports progress, :meth:`_event_progress`). Every manager runs this
        at start-up and every :data:`RECOVERY_INTERVAL` seconds, so a live
        manager takes over what a killed one left.

        :returns: the leases put back.
        """
        resumed = []
        stale = self.clock() - self.stale_after
        for event in self.blazar_db.event_get_all_sorted_by_filters(
                'time', 'asc', {'status': _IN_PROGRESS}):
            statuses = _RESUMABLE.get(event['event_type'])
            if statuses is None or _changed(event, stale) > stale:
                continue
            lease = self.blazar_db.lease_get(event['lease_id'])
            # a batch's events are all marked IN_PROGRESS before the
            # first runs: a killed manager's later ones never changed
            # their lease's status
            if lease is None or lease['status'] not in statuses or \
                    not self._all_ours(lease):
                continue
            self.blazar_db.lease_update(lease['id'], {'status': statuses[1]})
            self.blazar_db.event_update(event['id'], {'status': _UNDONE})
            LOG.warning('Lease %(lease)s: its %(type)s was interrupted; '
                        'it runs again', {'lease': lease['id'],
                                          'type': event['event_type']})
            resumed.append(lease['id'])
        return resumed + self._fail_interrupted_creates(stale)

    def _fail_interrupted_creates(self, stale: datetime.datetime
                                  ) -> list[str]:
        """A manager killed in Blazar's ``create_lease`` leaves the lease
        CREATING for ever (no event, not deletable), its caller answered
        with an error; our part of it may hold slots. After
        ``stale_after`` without change: our part is given back and the
        lease is ERROR (deletable; its reason logged)."""
        failed = []
        for lease in self.blazar_db.lease_list():
            if lease['status'] != 'CREATING' or _changed(
                    lease, stale) > stale or not self._all_ours(lease):
                continue
            for res in lease.get('reservations') or ():
                try:
                    self._forget(lease_obj.find(self.database, res['id']))
                except exception.NotFound:
                    pass            # killed before our part was made
            self.blazar_db.lease_update(lease['id'], {'status': 'ERROR'})
            LOG.warning('Lease %s: its create was interrupted (its '
                        'blazar-manager stopped); it is ERROR and holds '
                        'nothing', lease['id'])
            failed.append(lease['id'])
        return failed

    @staticmethod
    def _all_ours(lease: dict) -> bool:
        return all(r['resource_type'] == states.RESOURCE_TYPE_INSTANCE
                   for r in lease.get('reservations') or ())
