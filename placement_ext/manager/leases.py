"""Leases of instance reservations: create, start, end.

Blazar's ``virtual:instance`` plugin with the ``placement-api`` spec.

Create (RPC): capacity comes from Placement's kept view of each host
(:mod:`placement_ext.manager.capacity_inputs`); then, in ONE database
transaction, the decision layer computes each host's capacity over the
lease period from the slots of every live reservation (as this manager
keeps them) and picks the hosts; the hosts it chose are locked and
their slots read again, and the decision stands only if they are the
ones it counted (else it is made again, after two such misses with
every reservable host locked first, as a lease update does); the
chosen hosts are checked against Placement (a chosen host that changed
there is read again and the decision made again), and the lease, its
slots and events are written. Two leases created at the same time
therefore run one after the other on the hosts they share and cannot
take the same slot, while leases on other hosts do not wait for each
other. Then the resource class
``CUSTOM_RESERVATION_<ID>`` and the private flavor (extra spec
``resources:CUSTOM_RESERVATION_<ID>=1``, the owner's project in its access
list) are created; if that fails the lease is removed again.

Each reservation with an affinity policy (True or False) has a Nova server
group ``reservation:<id>`` (policy affinity / anti-affinity) in the lease's
project, as Blazar's plugin makes it: made with the flavor, checked at each
update and start (a group gone, of another policy, or whose members sit on
hosts the reservation left, is replaced), deleted at the end.

Start and end (run by :mod:`placement_ext.manager.events`) are sequences
of idempotent steps, so a run that stopped half-way is finished by the
next one. ``progress()`` is called after each step (it proves the event
is still ours, and raises if another manager took it over).

Over 400 lines as one module on purpose: create, update, start and end
share the slot pick and the idempotent provisioning steps (class,
flavor, group, inventories).
"""

import dataclasses
import datetime
from collections.abc import Callable

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.decision import capacity
from placement_ext.decision import held_slots
from placement_ext.decision import host_pickup
from placement_ext.decision import lease_servers
from placement_ext.decision import reservation_names as names
from placement_ext.drivers import nova as nova_driver
from placement_ext.drivers.placement import reservation_reads
from placement_ext.manager import capacity_inputs as inputs
from placement_ext.manager import hosts as hosts_wf
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.schemas import reservation as schema

LOG = logging.getLogger(__name__)

Progress = Callable[[], None]
# The Nova driver that makes a lease's server groups in its project (a
# driver holding a token of that project), or None when none is at hand.
GroupNova = Callable[[lease_obj.Lease], nova_driver.NovaDriver | None]
# A start date this far before the current minute is still accepted
# (clock skew and the time a request takes to arrive); "now" is always
# accepted.
START_GRACE = datetime.timedelta(minutes=1)
# A started lease and its reservations: the event task sets these with
# the start event's end, a host service (Blazar) when its own start ran.
STARTED = (models.LEASE_ACTIVE, models.RESERVATION_ACTIVE)


# Decisions redone when a chosen host changed in Placement meanwhile.
VERIFY_ATTEMPTS = 3
# Decisions made on the slots as kept, checked on the chosen hosts only,
# before one is made with every reservable host locked first.
OPTIMISTIC_ATTEMPTS = 2


def _no_progress() -> None:
    pass


class _Contended(Exception):
    """The chosen hosts' slots, read under their locks, are not the ones
    the decision counted (another lease took or freed some meanwhile),
    or a chosen host is no longer reservable."""


class _StaleViews(Exception):
    """Chosen hosts whose kept view Placement no longer matches."""

    def __init__(self, hosts: dict[int, object]) -> None:
        super().__init__(sorted(hosts))
        self.hosts = hosts


@dataclasses.dataclass(frozen=True)
class Timeouts:
    server_delete: float = 600.0
    server_poll: float = 2.0


@dataclasses.dataclass(frozen=True)
class _Request:
    """One validated reservation of a lease create body."""

    resources: capacity.Resources
    amount: int
    affinity: bool | None


class Leases:
    def __init__(self, database: db_api.Database,
                 nova: nova_driver.NovaDriver,
                 placement: reservation_reads.ReservationPlacement,
                 hosts: hosts_wf.Hosts, timeouts: Timeouts = Timeouts(),
                 clock: Callable[[], datetime.datetime] = models.utcnow,
                 group_nova: GroupNova | None = None) -> None:
        """:param group_nova: the Nova driver that makes a lease's server
            groups (default: ``nova``, whose groups are in the service's
            project)."""
        self.database = database
        self.nova = nova
        self.group_nova = group_nova or (lambda _lease: nova)
        self.placement = placement
        self.hosts = hosts
        self.timeouts = timeouts
        self.clock = clock
        self.views = inputs.HostViews(placement, database)
        self.holdings = inputs.Holdings(database)

    # -- create ---------------------------------------------------------------

    def create(self, body: dict, project_id: str, user_id: str,
               reservation_ids: list[str] | None = None,
               busy_hosts: frozenset[str] = frozenset()) -> lease_obj.Lease:
        """Reserve, then create the class and flavor of each reservation.

        :param reservation_ids: the reservations' ids, one per reservation
            of the body (a host service such as Blazar names them); new
            UUIDs when None.
        :param busy_hosts: hypervisor hostnames taken for the period by
            something else (Blazar's host reservations).
        :raises InvalidInput: a bad body (the field is named).
        :raises Conflict: not enough capacity, or the name is taken.
        """
        now = self.clock()
        values = schema.validate_lease(body, now)
        if starts_too_early(values['start_date'], now):
            raise exception.InvalidInput(
                field='start_date',
                reason=f'{values["start_date"]} is in the past; use "now" '
                       f'or a later date')
        requests = [_request(i, res)
                    for i, res in enumerate(values['reservations'])]
        lease_id = self._decide(values, requests, project_id, user_id,
                                reservation_ids, busy_hosts)
        self._provision_or_undo(lease_obj.get(self.database, lease_id))
        lease = lease_obj.get(self.database, lease_id)   # with its group
        LOG.info('Lease %(id)s (%(name)s) created for project %(project)s: '
                 '%(slots)s',
                 {'id': lease.id, 'name': lease.name, 'project': project_id,
                  'slots': [r.slots_by_host for r in lease.reservations]})
        return lease

    def _decide(self, values: dict, requests: list[_Request],
                project_id: str, user_id: str,
                reservation_ids: list[str] | None,
                busy_hosts: frozenset[str]) -> str:
        """Reserve on the kept views, checked on the chosen hosts; the
        lease id.

        A decision whose chosen hosts changed in Placement is made again
        with their views read again (at most VERIFY_ATTEMPTS times); a
        refusal is decided again on the pool as Placement lists it now
        (kept views of hosts whose instances went away are too
        pessimistic, never too generous).
        """
        pool_uuid = self.hosts.freepool_uuid()
        seen = self.views.kept(pool_uuid)
        usages, listed, attempt, contended = seen.usages, False, 0, 0
        while True:
            if seen.plan.unlisted:
                self.hosts.forget_freepool_uuid()
            if not seen.hosts:
                raise exception.Conflict(
                    reason='no reservable host; enrol hosts with '
                           '"placement-ext host create"')
            candidates = [h for h in seen.hosts
                          if h.hypervisor_hostname not in busy_hosts]
            try:
                # the whole decision is redone if its transaction
                # deadlocks (on Galera: another manager took the same
                # hosts on another node)
                lease_id, written = self.database.retrying(
                    self._reserve, values, requests, candidates, usages,
                    project_id, user_id, reservation_ids,
                    contended >= OPTIMISTIC_ATTEMPTS)
                self.holdings.keep(written)
                return lease_id
            except _Contended:
                contended += 1
                if contended > OPTIMISTIC_ATTEMPTS + 1:
                    # cannot happen with every host locked and the slots
                    # read again under the locks; say so if it does
                    raise exception.Conflict(
                        reason=f'the chosen hosts\' slots changed during '
                               f'{contended} decisions; try again'
                    ) from None
                LOG.debug('The chosen hosts changed in the database: '
                          'deciding again (%d)', contended)
                self.holdings.forget()
            except exception.NoCapacity:
                if listed:
                    raise
                seen, listed = self.views.current(pool_uuid), True
                usages = seen.usages
            except _StaleViews as stale:
                attempt += 1
                if attempt > VERIFY_ATTEMPTS:
                    raise exception.Conflict(
                        reason=f'the hosts chosen changed in Placement '
                               f'during {attempt} decisions; try '
                               f'again') from None
                LOG.debug('Chosen hosts %s changed in Placement: deciding '
                          'again', sorted(stale.hosts))
                usages = self.views.refresh(
                    stale.hosts, {h.id: h for h in seen.hosts}, usages)

    def _reserve(self, values: dict, requests: list[_Request],
                 candidates: list[host_obj.Host], usages: inputs.Usages,
                 project_id: str, user_id: str,
                 reservation_ids: list[str] | None,
                 lock_all: bool) -> tuple[str, tuple]:
        """The new lease's id, and the holdings to keep once committed.

        :param lock_all: lock every reservable host before reading the
            slots (after contended attempts); else only the chosen hosts
            are locked, after the decision, and their slots compared.
        """
        start, end = values['start_date'], values['end_date']
        with self.database.writer():
            hosts = candidates
            if lock_all:
                # a host retired meanwhile is no longer offered
                reservable = host_obj.lock_reservable(self.database)
                hosts = [h for h in candidates if h.id in reservable]
            every = self.holdings.current()
            held = held_slots.during(every, start, end, usages)
            new = []
            for index, req in enumerate(requests):
                res = self._pick(index, req, hosts, usages, held, start,
                                 end)
                if reservation_ids:
                    res = dataclasses.replace(res, id=reservation_ids[index])
                new.append(res)
                held += _holdings_of(res, start, end)
            self._check_slots(new, every, lock_all)
            # the decision stands only if Placement still shows the
            # chosen hosts as their kept views did (the rollback frees
            # the locks before they are read again)
            stale = self.views.stale(_chosen(requests, new),
                                     {h.id: h for h in hosts}, usages,
                                     self.hosts.freepool_uuid())
            if stale:
                raise _StaleViews(stale)
            lease_id = lease_obj.create(
                self.database, name=values['name'], user_id=user_id,
                project_id=project_id, start_date=start, end_date=end,
                reservations=new)
            return lease_id, self.holdings.written(
                every, [h for res in new for h in _holdings_of(res, start,
                                                                end)])

    def _check_slots(self, new: list[lease_obj.NewReservation],
                     every: list[lease_obj.Holding], locked: bool) -> None:
        """Lock the chosen hosts (unless every reservable host is) and
        raise :class:`_Contended` unless their slots in the database are
        the ones the decision counted.

        Always compared, also with every host locked: the slots this
        manager keeps after a lease create may lack another lease
        committed on other hosts meanwhile (see :class:`~placement_ext.
        manager.capacity_inputs.Holdings`); only the chosen hosts'
        slots, read under their locks, make the decision safe.
        """
        chosen = sorted({host_id for res in new for host_id in res.slots})
        if not locked and len(host_obj.lock_reservable(
                self.database, chosen)) != len(chosen):
            raise _Contended()   # a chosen host was retired meanwhile
        on_chosen = set(chosen)
        counted = {h for h in every if h.host_id in on_chosen}
        if set(lease_obj.holdings(self.database, chosen)) != counted:
            raise _Contended()

    def _pick(self, index: int, req: _Request, hosts: list[host_obj.Host],
              usages: inputs.Usages, held: list[lease_obj.Holding],
              start: datetime.datetime, end: datetime.datetime,
              updated: lease_obj.Reservation | None = None
              ) -> lease_obj.NewReservation:
        """Slots for ``req``; for an ``updated`` reservation its own slots
        count as free and are kept first."""
        by_id = {h.id: h for h in hosts}
        capacities = capacity.host_capacities(
            self.views.decision_hosts(hosts, usages),
            held_slots.reserved_slots(held, by_id, usages),
            req.resources, start, end,
            exclude_reservation_id=updated.id if updated else None)
        pickup = host_pickup.pick_hosts(
            capacity.slots_by_host(capacities), req.amount, req.affinity,
            current=updated.slots_by_host if updated else None)
        if not pickup.ok:
            raise exception.NoCapacity(
                reason=f'not enough capacity for reservation {index} '
                       f'({req.amount} x {req.resources.as_tuple()} vcpus/'
                       f'memory_mb/disk_gb) from {start} to {end}: '
                       f'{pickup.reason}')
        ids = {h.hypervisor_hostname: h.id for h in hosts}
        vcpus, memory_mb, disk_gb = req.resources.as_tuple()
        new = lease_obj.NewReservation(
            vcpus=vcpus, memory_mb=memory_mb, disk_gb=disk_gb,
            amount=req.amount, affinity=req.affinity,
            slots={ids[name]: n for name, n in pickup.allocations})
        return dataclasses.replace(new, id=updated.id) if updated else new

    # -- update ---------------------------------------------------------------

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
        start = values.get('start_date', lease.start_date)
        end = values.get('end_date', lease.end_date)
        req = _Request(capacity.Resources(
            values.get('vcpus', res.vcpus),
            values.get('memory_mb', res.memory_mb),
            values.get('disk_gb', res.disk_gb)),
            values.get('amount', res.amount),
            values.get('affinity', res.affinity))
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
        self.provision(updated, updated.reservations[0])
        if started:
            self._apply_inventory(updated.reservations[0], dict(changes))
        return lease_obj.get(self.database, lease.id)   # with its group

    def _repick(self, lease: lease_obj.Lease, req: _Request,
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
            held = lease_obj.holdings(self.database, None, (start, end))
            new = self._pick(0, req, hosts, seen.usages, held, start, end,
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
                self._put_inventory(hosts[name], res.resource_class,
                                    slots[name])
            else:
                host = host_obj.find(self.database, name)
                self._drop_inventory(host, res.resource_class, _no_progress)

    def _provision_or_undo(self, lease: lease_obj.Lease) -> None:
        try:
            for res in lease.reservations:
                self.provision(lease, res)
        except Exception:
            LOG.exception('Lease %s: creating its class or flavor failed; '
                          'removing the lease', lease.id)
            try:
                # reloaded: the server group may be recorded by now
                self._teardown(lease_obj.get(self.database, lease.id),
                               _no_progress)
                lease_obj.delete(self.database, lease.id)
            except Exception:
                LOG.exception('Lease %s could not be removed; it stays in '
                              'ERROR for "lease delete" or "lease '
                              'reconcile"', lease.id)
                lease_obj.set_status(self.database, lease.id,
                                     models.LEASE_ERROR,
                                     models.RESERVATION_ERROR)
            raise

    def provision(self, lease: lease_obj.Lease,
                   res: lease_obj.Reservation) -> None:
        """Class, flavor with its extra specs, flavor access, server
        group: idempotent."""
        self.placement.ensure_resource_class(res.resource_class)
        self.nova.ensure_private_flavor(
            res.flavor_id, names.flavor_name_for(res.id), vcpus=res.vcpus,
            memory_mb=res.memory_mb, disk_gb=res.disk_gb,
            extra_specs=names.flavor_extra_specs(res.id),
            project_id=lease.project_id)
        self.ensure_server_group(lease, res)

    def ensure_server_group(self, lease: lease_obj.Lease,
                            res: lease_obj.Reservation) -> str | None:
        """The reservation's valid server group (made or replaced if
        needed, and recorded), or None for a reservation without an
        affinity policy (a recorded group is then deleted)."""
        policy = names.server_group_policy(res.affinity)
        old = self.nova.server_group(res.server_group_id) \
            if res.server_group_id else None
        if old is not None and old.policy == policy and \
                self._members_fit(old, res):
            return old.id
        new = None
        maker = self.group_nova(lease) if policy is not None else None
        if policy is not None and maker is None:
            LOG.warning('Reservation %s: no token of project %s at hand; '
                        'its server group is made or replaced at its next '
                        'start, update or manager start', res.id,
                        lease.project_id)
            return res.server_group_id
        if maker is not None:
            new = maker.ensure_server_group(
                names.server_group_name_for(res.id), policy,
                exclude=[old.id] if old else []).id
        if new != res.server_group_id:
            lease_obj.set_server_group(self.database, res.id, new)
            LOG.info('Reservation %(res)s: server group %(new)s (was '
                     '%(old)s)', {'res': res.id, 'new': new,
                                  'old': res.server_group_id})
        if old is not None and old.id != new:
            self.nova.delete_server_group(old.id)
        return new

    def _members_fit(self, group: nova_driver.ServerGroup,
                     res: lease_obj.Reservation) -> bool:
        """An affinity group whose members run on a host the reservation
        no longer holds (moved by healing) would pin new servers there."""
        if group.policy != 'affinity' or not group.members:
            return True
        return all(server.host in (None, *res.slots_by_host)
                   for server in self.nova.servers_by_id(group.members))

    # -- start and end --------------------------------------------------------

    def start(self, lease: lease_obj.Lease,
              progress: Progress = _no_progress) -> None:
        """Put each reservation's inventory on its hosts' providers."""
        hosts = _hosts_of(self.database, lease)
        for res in lease.reservations:
            self.provision(lease, res)
            progress()
            for host_id, hostname, slots in res.allocations:
                host = hosts.get(host_id)
                if host is None:
                    raise exception.NotFound(kind='host', id=hostname)
                self._put_inventory(host, res.resource_class, slots)
                progress()
        LOG.info('Lease %s started', lease.id)

    def _put_inventory(self, host: host_obj.Host, resource_class: str,
                       slots: int) -> None:
        provider = self.hosts.reservation_provider(host)
        try:
            self.placement.set_inventory(provider, resource_class, slots)
        except exception.NotFound:
            # the provider was deleted behind our back: make a new one
            provider = self.hosts.reservation_provider(host, refresh=True)
            self.placement.set_inventory(provider, resource_class, slots)

    def end(self, lease: lease_obj.Lease,
            progress: Progress = _no_progress) -> list[str]:
        """Delete the lease's servers, then inventories, class, flavor
        and server group.

        :returns: the servers of the flavor that the lease did not admit
            (another project's): kept, and logged.
        :raises Conflict: such a server holds one of the slots, so its
            inventory stays; nothing of it is deleted.
        """
        kept = self._teardown(lease, progress)
        LOG.info('Lease %s ended', lease.id)
        return kept

    def _teardown(self, lease: lease_obj.Lease,
                  progress: Progress) -> list[str]:
        hosts = _hosts_of(self.database, lease)
        kept = []
        for res in lease.reservations:
            # no new server may take the slots while we clear them
            self.nova.revoke_flavor_access(res.flavor_id, lease.project_id)
            kept += self._delete_admitted(
                lease, res, self.nova.servers_with_flavor(res.flavor_id),
                progress)
            for host_id, _name, _slots in res.allocations:
                host = hosts.get(host_id)
                if host is not None:
                    self._drop_inventory(host, res.resource_class, progress,
                                         lease)
                progress()
            self._drop_class(res.resource_class, progress, lease)
            self.nova.delete_flavor(res.flavor_id)
            if res.server_group_id:
                self.nova.delete_server_group(res.server_group_id)
            progress()
        # deleting servers frees usage without bumping the providers'
        # generations: read these hosts again at the next lease create
        host_obj.forget_usages(self.database, list(hosts))
        return kept

    def _delete_admitted(self, lease: lease_obj.Lease,
                         res: lease_obj.Reservation,
                         servers: list[lease_servers.Server],
                         progress: Progress) -> list[str]:
        """Delete the servers the lease admitted; keep (and log) the
        others. :returns: the kept ones."""
        verdict = lease_servers.admitted(servers, lease.project_id,
                                         names.flavor_name_for(res.id))
        if verdict.keep:
            LOG.warning('Lease %(lease)s keeps servers it did not admit: '
                        '%(kept)s', {'lease': lease.id,
                                     'kept': lease_servers.describe(verdict)})
        self._delete_servers([s.id for s in verdict.delete], progress)
        return verdict.kept_ids

    def _drop_class(self, resource_class: str, progress: Progress,
                    lease: lease_obj.Lease | None = None) -> None:
        try:
            self.placement.delete_resource_class(resource_class)
        except exception.ConcurrentUpdate:
            raise
        except exception.Conflict:
            # an inventory outside the lease's hosts (a host re-enrolled,
            # a manual change): look through every reservation provider
            for provider in self.placement.reservation_providers():
                _gen, inventories = self.placement.inventories(provider.uuid)
                if resource_class in inventories:
                    self._drop_inventory_on(provider.uuid, provider.name,
                                            resource_class, progress, lease)
            self.placement.delete_resource_class(resource_class)

    def _drop_inventory(self, host: host_obj.Host, resource_class: str,
                        progress: Progress,
                        lease: lease_obj.Lease | None = None) -> None:
        provider = host.reservation_provider_uuid
        if provider is None:
            found = self.placement.reservation_provider(
                host.hypervisor_hostname)
            if found is None:
                return
            provider = found.uuid
        self._drop_inventory_on(provider, host.hypervisor_hostname,
                                resource_class, progress, lease)

    def _drop_inventory_on(self, provider: str, where: str,
                           resource_class: str, progress: Progress,
                           lease: lease_obj.Lease | None = None) -> None:
        try:
            self.placement.delete_inventory(provider, resource_class)
        except exception.ConcurrentUpdate:
            raise
        except exception.Conflict:
            # in use: servers Nova did not list by flavor (the flavor was
            # deleted, or they were booted otherwise) still hold slots
            consumers = self.placement.consumers(provider, resource_class)
            LOG.warning('Reservation class %(rc)s on %(where)s is still '
                        'used by %(consumers)s; deleting them',
                        {'rc': resource_class, 'where': where,
                         'consumers': consumers})
            self._delete_consumers(consumers, resource_class, progress,
                                   lease)
            self.placement.delete_inventory(provider, resource_class)

    def _delete_consumers(self, consumers: list[str], resource_class: str,
                          progress: Progress,
                          lease: lease_obj.Lease | None) -> None:
        """Delete the servers holding the class, if the lease admitted
        them all (no lease: a class left by a lease removed already)."""
        if lease is None:
            self._delete_servers(consumers, progress)
            return
        res_id = names.reservation_for_resource_class(resource_class)
        verdict = lease_servers.admitted(
            self.nova.servers_by_id(consumers), lease.project_id,
            names.flavor_name_for(res_id) if res_id else None)
        if verdict.keep:
            raise exception.Conflict(
                reason=f'lease {lease.id}: servers it did not admit hold '
                       f'its slots and are kept: '
                       f'{lease_servers.describe(verdict)}; remove them, '
                       f'then end or delete the lease again')
        self._delete_servers([s.id for s in verdict.delete], progress)

    def _delete_servers(self, server_ids: list[str],
                        progress: Progress) -> None:
        if server_ids:
            self.nova.delete_servers(
                server_ids, timeout=self.timeouts.server_delete,
                interval=self.timeouts.server_poll, progress=progress)


def starts_too_early(start: datetime.datetime,
                     now: datetime.datetime) -> bool:
    """Whether ``start`` is past even the grace before the current
    minute: Blazar turns "now" into the minute it was asked in and calls
    its plugin later, seconds later on a busy manager."""
    return start < now.replace(second=0, microsecond=0) - START_GRACE


def mark_started(database: db_api.Database, lease_id: str) -> None:
    """The lease and its reservations are ACTIVE (its start ran)."""
    lease_obj.set_status(database, lease_id, *STARTED)


def _hosts_of(database: db_api.Database,
              lease: lease_obj.Lease) -> dict[int, host_obj.Host]:
    """The hosts the lease holds slots on (one statement)."""
    ids = [host_id for res in lease.reservations
           for host_id, _name, _slots in res.allocations]
    return {h.id: h for h in host_obj.get_many(database, ids)}


def _request(index: int, res: dict) -> _Request:
    if (res.get('resource_properties') or '').strip() not in ('', '[]'):
        raise exception.InvalidInput(
            field=f'reservations[{index}].resource_properties',
            reason='host filters are not supported; leave it empty')
    return _Request(capacity.Resources(res['vcpus'], res['memory_mb'],
                                       res['disk_gb']),
                    res['amount'], res['affinity'])


def _chosen(requests: list[_Request],
            reservations: list[lease_obj.NewReservation]
            ) -> dict[int, capacity.Resources]:
    """Host id -> one instance of a flavor the decision put there."""
    return {host_id: req.resources
            for req, res in zip(requests, reservations, strict=True)
            for host_id in res.slots}


def _holdings_of(res: lease_obj.NewReservation, start: datetime.datetime,
                 end: datetime.datetime) -> list[lease_obj.Holding]:
    """The slots a reservation just picked, as holdings for the next
    reservation of the same lease."""
    rc = names.resource_class_for(res.id)
    return [lease_obj.Holding(res.id, host_id, start, end, res.vcpus,
                              res.memory_mb, res.disk_gb, slots, rc)
            for host_id, slots in res.slots.items()]
