"""What the Blazar plugin does, over our workflows and Blazar's DB API.

No blazar import: ``blazar_db`` is blazar's ``blazar.db.api`` module
inside blazar-manager, and a small in-memory stand-in in unit tests.
Every decision and every status of ours is our reservation code's
(:class:`placement_ext.manager.reservations.Reservations`); this class
translates Blazar's calls into its requests, maps ids between the two
sides and keeps Blazar's rows in step (:mod:`~placement_ext.adapters.
blazar.mirror`; Blazar's events for the recovery:
:mod:`~placement_ext.adapters.blazar.recovery`; the reservations
Blazar's own plugin made: :mod:`~placement_ext.adapters.blazar.
adoption`). About 400 lines: one method a Blazar plugin call, each a
few lines of translation.
"""

import datetime
from collections.abc import Callable
from collections.abc import Iterable

from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import exception
from placement_ext.adapters.blazar import adoption
from placement_ext.adapters.blazar import flavor
from placement_ext.adapters.blazar import group_owner
from placement_ext.adapters.blazar import mirror
from placement_ext.adapters.blazar import recovery
from placement_ext.adapters.blazar import translate
from placement_ext.db import api as db_api
from placement_ext.db import migration
from placement_ext.db import models
from placement_ext.decision import host_properties
from placement_ext.decision import lease_heal
from placement_ext.manager import host_events
from placement_ext.manager import lease_provision
from placement_ext.manager import reservations
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.vocabulary import reservation_names as names

LOG = logging.getLogger(__name__)

_HOST_RESOURCE_TYPE = 'physical:host'
# the name of the lease a candidate pick is made for (never written)
_CANDIDATES = 'allocation-candidates'
# every manager looks for stale events this often
RECOVERY_INTERVAL = 10
# our heal outcomes as Blazar's reservation flags
_HEAL_FLAGS = {lease_heal.CHANGED: 'resources_changed',
               lease_heal.MISSING: 'missing_resources'}


class BlazarReservations:
    """Our reservation workflows seen from blazar-manager."""

    def __init__(self, workflows: reservations.Reservations,
                 blazar_db: object, stale_after: float = 600.0,
                 clock: Callable[[], datetime.datetime] = models.utcnow,
                 cleaning: datetime.timedelta = datetime.timedelta(0),
                 delete_aggregate: Callable[[object], None]
                 = lambda _aggregate: None) -> None:
        """:param stale_after: seconds without progress after which a
            Blazar start or end event left in progress is run again
            (``[reservation] event_stale_after``, as for our events).
        :param cleaning: Blazar's ``cleaning_time``: host leases that
            close to a reservation's period hold their hosts.
        :param delete_aggregate: deletes a Nova aggregate by id, its
            hosts taken out first, idempotently (the per-reservation
            aggregate of a reservation Blazar's own plugin made)."""
        self.cleaning = cleaning
        self.delete_aggregate = delete_aggregate
        self.workflows = workflows
        self.database = workflows.database
        self.blazar_db = blazar_db
        self.rows = mirror.BlazarRows(blazar_db)
        self.events = recovery.BlazarEvents(blazar_db,
                                            self.rows.drop_allocations)
        self.stale_after = datetime.timedelta(seconds=stale_after)
        self.clock = clock
        self.adoption = adoption.BlazarAdoption(
            blazar_db, workflows.adoption, self.sync_hosts)

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts, blazar_db: object,
                  owner_token: Callable[[lease_obj.Lease], str | None]
                  = lambda _lease: None,
                  delete_aggregate: Callable[[object], None]
                  = lambda _aggregate: None) -> 'BlazarReservations':
        """:param owner_token: a token of the lease's project, or None.
        :param delete_aggregate: see :meth:`__init__`."""
        database = db_api.Database(conf)
        migration.ensure_current(conf, database)
        workflows = reservations.Reservations.from_conf(
            conf, database, group_nova=group_owner.owner_nova(owner_token))
        # the free pool exists before the first "reservation host
        # create", marked for our Nova filter
        workflows.hosts.freepool_uuid()
        settings = reservations.Settings.from_conf(conf)
        return cls(workflows, blazar_db, settings.event_stale_after,
                   cleaning=datetime.timedelta(
                       minutes=settings.cleaning_time),
                   delete_aggregate=delete_aggregate)

    # -- hosts ----------------------------------------------------------

    def sync_hosts(self) -> dict[str, object]:
        """Enrol the hosts Blazar has and we lack, drop the ones it lost,
        offer or withdraw ours as Blazar marks them reservable or not.

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
        self.follow_monitor(theirs.values())
        return {name: h['id'] for name, h in theirs.items()}

    def follow_monitor(self, blazar_hosts: Iterable[dict] | None = None
                       ) -> None:
        """Offer or withdraw our hosts as Blazar's monitor marks them
        (its ``reservable`` flag; Blazar's hosts read unless given):
        the monitor tells the plugins of a failure, not of a recovery."""
        if blazar_hosts is None:
            blazar_hosts = self.blazar_db.host_list()
        self.workflows.follow_reservable(
            {h['hypervisor_hostname']: bool(h.get('reservable', True))
             for h in blazar_hosts})

    def allocation_candidates(self, values: dict) -> list:
        """What Blazar's enforcement filters are shown, as its own
        instance plugin gives it: Blazar's id of the host of each slot
        our pick would make now (one id per slot), taking none. Blazar
        asks before a lease create (``values``: the new reservation) and
        before an update (``values``: the existing reservation, with its
        ``id``, over the new dates; its own slots count as free).

        :raises NoCapacity: it does not fit (Blazar refuses the lease
            before its filters run, as with upstream's plugin).
        """
        blazar_ids = self.sync_hosts()
        busy = self.host_leases(values['start_date'], values['end_date']) \
            | self.unmatched_hosts(values.get(host_properties.FIELD))
        lease = self._existing(values.get('id'))
        if lease is not None:
            slots = self.workflows.leases.preview(
                translate.update_values(values), busy, lease)
        else:
            slots = self.workflows.leases.preview(
                translate.lease_body(_CANDIDATES, values), busy)
        return translate.slots_per_blazar_host(slots[0], blazar_ids)

    def _existing(self, reservation_id: str | None
                  ) -> lease_obj.Lease | None:
        if not reservation_id:
            return None
        try:
            return lease_obj.find(self.database, reservation_id)
        except exception.NotFound:
            return None

    def host_leases(self, start: datetime.datetime,
                    end: datetime.datetime) -> frozenset[str]:
        """Hosts that Blazar's ``physical:host`` reservations hold over
        [start, end) widened by ``cleaning_time`` (they leave the free
        pool only when they start)."""
        start, end = start - self.cleaning, end + self.cleaning
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

    def unmatched_hosts(self, properties: str | None) -> frozenset[str]:
        """Blazar's hosts that a reservation's ``resource_properties``
        rule out (:mod:`placement_ext.decision.host_properties`): our
        pick runs on the others.

        :raises InvalidInput: the text is not Blazar's filter language,
            or names a key no host has.
        """
        conditions = translate.conditions(properties)
        if not conditions:
            return frozenset()
        records = [host_properties.HostRecord(
            h['hypervisor_hostname'], dict(h), {
                name: cap['capability_value'] for cap, name in
                self.blazar_db.host_extra_capability_get_all_per_host(
                    h['id'])}) for h in self.blazar_db.host_list()]
        try:
            matched = host_properties.matching(conditions, records)
        except host_properties.Malformed as exc:
            raise exception.InvalidInput(field=host_properties.FIELD,
                                         reason=str(exc)) from None
        return frozenset(r.name for r in records) - matched

    def _busy_for(self, lease: lease_obj.Lease) -> frozenset[str]:
        """Hosts a lease's reservation may not use: Blazar's host
        leases over its period, those its properties rule out."""
        return self.host_leases(lease.start_date, lease.end_date) | \
            self.unmatched_hosts(self.rows.properties(lease.reservations[0]
                                                      .id))

    # -- reservations ---------------------------------------------------------

    def reserve(self, reservation_id: str, values: dict, project_id: str,
                user_id: str) -> str:
        """Our lease for the Blazar reservation, then Blazar's rows.

        :returns: the ``instance_reservations`` id (Blazar's resource id).
        """
        self.forget_orphans()
        blazar_ids = self.sync_hosts()
        unmatched = self.unmatched_hosts(values.get('resource_properties'))
        lease = self.workflows.leases.create(
            translate.lease_body(reservation_id, values), project_id,
            user_id or '', [reservation_id],
            self.host_leases(values['start_date'], values['end_date'])
            | unmatched)
        try:
            row = self.rows.record(lease.reservations[0], values,
                                   blazar_ids)
            self.carry_flavor_specs(lease)
            return row
        except Exception:
            self._forget(lease)
            raise

    def carry_flavor_specs(self, lease: lease_obj.Lease) -> None:
        """A ``flavor:instance`` reservation's private flavor gets its
        source flavor's extra specs (kept in Blazar's row, as upstream
        keeps them), ours winning; nothing for other reservations."""
        res = lease.reservations[0]
        kept = self.rows.properties(res.id)
        if flavor.parse_snapshot(kept) is None:
            return
        self.workflows.nova.ensure_private_flavor(
            res.flavor_id, names.flavor_name_for(res.id), vcpus=res.vcpus,
            memory_mb=res.memory_mb, disk_gb=res.disk_gb,
            extra_specs=flavor.carried_specs(kept, res.id),
            project_id=lease.project_id)

    def forget_orphans(self) -> list[str]:
        """End our pending leases whose Blazar reservation is gone.

        Blazar rolls back a lease whose second reservation fails by
        deleting its rows only, without telling the plugins, so the first
        reservation's slots would stay taken (upstream's plugin leaks its
        flavor and aggregate there). :returns: our leases ended.
        """
        return self.workflows.forget_orphans(
            lambda res_id: self.blazar_db.reservation_get(res_id)
            is not None)

    def start(self, resource_id: str) -> None:
        """Inventories on the hosts; the flavor and the server group made
        again if missing (a lease made before server groups gets its
        group here)."""
        lease = self._lease_of(resource_id)
        self.workflows.start_lease(
            lease, self._event_progress(lease, 'start_lease'))
        started = lease_obj.get(self.database, lease.id)
        self.rows.update_group(started.reservations[0])
        # a flavor made again at the start lacks the source's specs
        self.carry_flavor_specs(started)

    def ensure_server_groups(self) -> list[str]:
        """Give each started reservation with an affinity policy a valid
        server group (leases made before our plugin made groups, groups
        deleted by hand). :returns: the reservations whose group is new.
        """
        changed = []
        for lease in self.workflows.ensure_server_groups():
            self.rows.update_group(lease.reservations[0])
            changed.append(lease.reservations[0].id)
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
        kept = self.workflows.end_and_remove(
            lease, self._event_progress(lease, 'end_lease'))
        if kept:
            # the lease's end kept servers it did not admit
            self.rows.mark_degraded(lease.reservations[0].id)
        self._drop_allocations(lease)
        # a reservation Blazar's own plugin made has its aggregate
        aggregate = self.rows.aggregate(resource_id)
        if aggregate:
            self.delete_aggregate(aggregate)
            self.rows.forget_aggregate(resource_id)

    def _forget(self, lease: lease_obj.Lease) -> None:
        self.workflows.end_and_remove(lease)
        self._drop_allocations(lease)

    def _drop_allocations(self, lease: lease_obj.Lease) -> None:
        for res in lease.reservations:
            self.rows.drop_allocations(res.id)

    def _lease_of(self, resource_id: str) -> lease_obj.Lease:
        row = self.blazar_db.instance_reservation_get(resource_id)
        if row is None:
            raise exception.NotFound(kind='instance reservation',
                                     id=resource_id)
        return self._ours(row['reservation_id'])

    def _ours(self, reservation_id: str) -> lease_obj.Lease:
        """Our lease of the reservation, adopted first if Blazar's own
        plugin made it."""
        try:
            return lease_obj.find(self.database, reservation_id)
        except exception.NotFound:
            if not self.adoption.adopt_one(reservation_id):
                raise
        return lease_obj.find(self.database, reservation_id)

    def adopt(self) -> adoption.AdoptionReport:
        """Adopt the reservations of Blazar's own plugin (idempotent)."""
        return self.adoption.run()

    def update(self, reservation_id: str, values: dict) -> None:
        """New dates, amount or size: our slots are picked again, then
        Blazar's rows follow."""
        lease = self._ours(reservation_id)
        changes = translate.update_values(values)
        res = lease.reservations[0]
        stored = self.rows.properties(res.id)
        flavor.same_flavor(values, stored)
        properties = values.get(host_properties.FIELD, stored)
        refiltered = translate.conditions(properties) != \
            translate.conditions(stored)
        if refiltered and res.status in lease_obj.STARTED_RESERVATIONS:
            raise exception.InvalidInput(
                field=host_properties.FIELD, reason='a started reservation '
                'keeps its hosts; only its amount and dates change')
        if not refiltered and all(
                getattr(res, k, getattr(lease, k, None)) == v
                for k, v in changes.items()):
            return
        updated = self.workflows.leases.update(
            lease, changes, busy_hosts=self.host_leases(
                changes.get('start_date', lease.start_date),
                changes.get('end_date', lease.end_date))
            | self.unmatched_hosts(properties))
        self._mirror(updated.reservations[0], properties or '')

    def _mirror(self, res: lease_obj.Reservation,
                properties: str | None = None) -> None:
        self.rows.update(res, self.sync_hosts(), properties)

    def heal(self, failed_hosts: list, begin: datetime.datetime,
             end: datetime.datetime) -> dict:
        """Move the slots of the reservations on failed hosts (Blazar's
        host monitor calls this); the core decides and moves, each moved
        reservation is mirrored into Blazar's rows at once.

        :returns: Blazar's flags by reservation id: ``resources_changed``
            for a started one that moved, ``missing_resources`` for one
            that cannot be honoured any more (the log says why).
        """
        outcomes = self.workflows.heal(
            {h['hypervisor_hostname'] for h in failed_hosts}, begin, end,
            on_moved=lambda lease: self._mirror(lease.reservations[0]),
            busy_hosts=self._busy_for)
        return {res_id: {_HEAL_FLAGS[result]: True}
                for res_id, result in outcomes.items()}

    # -- start-up ----------------------------------------------------------

    def _event_progress(self, lease: lease_obj.Lease,
                        event_type: str) -> lease_provision.Progress:
        """Progress of the Blazar event running ``lease``'s start or
        end: each step moves the event's ``updated_at`` (at most every
        :data:`~placement_ext.manager.host_events.TOUCH_EVERY`), so no
        manager takes a live event over
        (:meth:`recover_interrupted_events`)."""
        blazar_lease = self.blazar_db.reservation_get(
            lease.reservations[0].id)['lease_id']
        touch = self.events.touch(blazar_lease, event_type)
        if touch is None:           # run outside Blazar's event loop
            return lease_provision.no_progress
        return host_events.throttled(touch, self.clock)

    def recover_interrupted_events(self) -> list[str]:
        """Put back the start or end events a killed manager left running
        (and fail the creates it left), as our core decides
        (:func:`placement_ext.manager.host_events.recover`): events and
        creates without progress for ``stale_after``. Every manager runs
        this at start-up and every :data:`RECOVERY_INTERVAL` seconds, so
        a live manager takes over what a killed one left.

        :returns: the Blazar leases put back or failed.
        """
        return self.workflows.recover_interrupted(
            self.events, self.clock() - self.stale_after)

