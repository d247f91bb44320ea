"""Lease create: the decision, made safe by optimistic locking.

Capacity comes from Placement's kept view of each host
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
other. Provisioning follows (:mod:`placement_ext.manager.lease_provision`).
"""

import dataclasses
import datetime

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.decision import capacity
from placement_ext.decision import held_slots
from placement_ext.decision import host_pickup
from placement_ext.manager import capacity_inputs as inputs
from placement_ext.manager import hosts
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.schemas import reservation as schema
from placement_ext.vocabulary import reservation_names as names

LOG = logging.getLogger(__name__)

# A start date this far before the current minute is still accepted
# (clock skew and the time a request takes to arrive); "now" is always
# accepted.
START_GRACE = datetime.timedelta(minutes=1)
# Decisions redone when a chosen host changed in Placement meanwhile.
VERIFY_ATTEMPTS = 3
# Decisions made on the slots as kept, checked on the chosen hosts only,
# before one is made with every reservable host locked first.
OPTIMISTIC_ATTEMPTS = 2


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
class Request:
    """One validated reservation of a lease create body."""

    resources: capacity.Resources
    amount: int
    affinity: bool | None


def validate(body: dict, now: datetime.datetime
             ) -> tuple[dict, list[Request]]:
    """The lease's values and its reservations' requests.

    :raises InvalidInput: a bad body (the field is named).
    """
    values = schema.validate_lease(body, now)
    if starts_too_early(values['start_date'], now):
        raise exception.InvalidInput(
            field='start_date',
            reason=f'{values["start_date"]} is in the past; use "now" '
                   f'or a later date')
    return values, [_request(i, res)
                    for i, res in enumerate(values['reservations'])]


class Creation:
    """Decides and writes a new lease's slots (see the module)."""

    def __init__(self, database: db_api.Database, hosts: hosts.Hosts,
                 views: inputs.HostViews, holdings: inputs.Holdings,
                 cleaning: datetime.timedelta = datetime.timedelta(0)
                 ) -> None:
        self.database = database
        self.cleaning = cleaning
        self.hosts = hosts
        self.views = views
        self.holdings = holdings

    def decide(self, values: dict, requests: list[Request],
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
        # each round returns, raises, or counts one of the bounded
        # retries below: contended, listed or a stale view
        for _ in range(OPTIMISTIC_ATTEMPTS + 2 + 1 + VERIFY_ATTEMPTS + 1):
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
        raise exception.Conflict(reason='no decision was reached; try again')

    def preview(self, values: dict, requests: list[Request],
                busy_hosts: frozenset[str]) -> list[dict[str, int]]:
        """The slots by hypervisor hostname that :meth:`decide` would
        pick now for each request, taking none (what Blazar's
        enforcement filters are shown before the lease is made).

        :raises NoCapacity: a request does not fit.
        """
        seen = self.views.kept(self.hosts.freepool_uuid())
        hosts = [h for h in seen.hosts
                 if h.hypervisor_hostname not in busy_hosts]
        start, end = values['start_date'], values['end_date']
        window = held_slots.widened(start, end, self.cleaning)
        held = held_slots.during(self.holdings.current(), *window,
                                 seen.usages)
        out = []
        for index, req in enumerate(requests):
            res = pick(self.views, index, req, hosts, seen.usages, held,
                       *window)
            held += _holdings_of(res, start, end)
            out.append(by_name(res, hosts))
        return out

    def _reserve(self, values: dict, requests: list[Request],
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
            window = held_slots.widened(start, end, self.cleaning)
            held = held_slots.during(every, *window, usages)
            new = []
            for index, req in enumerate(requests):
                res = pick(self.views, index, req, hosts, usages, held,
                           *window)
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



def pick(views: inputs.HostViews, index: int, req: Request,
         hosts: list[host_obj.Host], usages: inputs.Usages,
         held: list[lease_obj.Holding], start: datetime.datetime,
         end: datetime.datetime,
         updated: lease_obj.Reservation | None = None
         ) -> lease_obj.NewReservation:
    """Slots for ``req``; for an ``updated`` reservation its own slots
    count as free and are kept first."""
    by_id = {h.id: h for h in hosts}
    capacities = capacity.host_capacities(
        views.decision_hosts(hosts, usages),
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



def by_name(res: lease_obj.NewReservation,
            hosts: list[host_obj.Host]) -> dict[str, int]:
    """A picked reservation's slots by hypervisor hostname."""
    names = {h.id: h.hypervisor_hostname for h in hosts}
    return {names[host_id]: n for host_id, n in res.slots.items()}


def starts_too_early(start: datetime.datetime,
                     now: datetime.datetime) -> bool:
    """Whether ``start`` is past even the grace before the current
    minute: Blazar turns "now" into the minute it was asked in and calls
    its plugin later, seconds later on a busy manager."""
    return start < now.replace(second=0, microsecond=0) - START_GRACE



def _request(index: int, res: dict) -> Request:
    if (res.get('resource_properties') or '').strip() not in ('', '[]'):
        raise exception.InvalidInput(
            field=f'reservations[{index}].resource_properties',
            reason='host filters are Blazar\'s (extra capabilities); '
                   'leave it empty here')
    return Request(capacity.Resources(res['vcpus'], res['memory_mb'],
                                       res['disk_gb']),
                    res['amount'], res['affinity'])



def _chosen(requests: list[Request],
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

