"""Inputs of the capacity decision, read from Placement and the database.

Placement's view of every reservable host (inventories and usages of its
compute node, reserved instances running there) is kept in the database
with the provider generation it was read at. A lease create lists the
generations of the free pool's compute nodes in one call and reads again
only the hosts whose generation moved (:func:`placement_ext.decision.
usage_freshness.plan_reads`); the database gives every live
reservation's slots on those hosts. Both become the plain data
:func:`placement_ext.decision.capacity.host_capacities` takes.

When more hosts changed than :data:`READ_ONE_BY_ONE_MAX`, their usages
come from one bulk read of the whole pool instead
(:meth:`~placement_ext.drivers.placement.reservation_reads.
ReservationPlacement.pool_usages`), with the inventories of their kept
views while Placement's capacities still match them (a host without a
kept view gets inventories made from its capacities and size); a host
the bulk read leaves out or whose capacity moved is read alone. So the
calls of a lease create do not grow with the number of changed hosts,
and the first lease after an upgrade reads the pool in one call.

Each manager also keeps the views it loaded, turned into decision
inputs, in memory, keyed by the stored row's generation and write time:
a lease create loads from the database only rows written since, and
reads the hosts' stamps again only when their one-row fingerprint moved.

A lease create does not list the pool's generations first
(:meth:`HostViews.kept`): it decides on the kept views, then checks only
the hosts it chose against Placement (:meth:`HostViews.stale`: one call
per chosen host up to :data:`CHECK_ONE_BY_ONE_MAX`, made at once; above
that one listing of the pool's generations and a read of the chosen
hosts that moved, alone or in one bulk call), whatever the size of the
pool or the number of hosts that changed elsewhere. A chosen host whose
capacities or usages moved is read again (:meth:`HostViews.refresh`)
and the decision is made again, so a stale view never becomes a slot.
Only views of hosts a decision would take need to be current: a host
whose view is too pessimistic (instances deleted) is merely not chosen,
and a refusal is always decided again on the listed pool
(:meth:`HostViews.current`).
"""

import dataclasses
import datetime
from collections.abc import Iterable
from collections.abc import Mapping
from concurrent import futures

from oslo_log import log as logging

from placement_ext.db import api as db_api
from placement_ext.decision import capacity
from placement_ext.decision import held_slots
from placement_ext.decision import usage_freshness
from placement_ext.drivers.placement import reservation_reads
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj

LOG = logging.getLogger(__name__)

Usages = Mapping[int, reservation_reads.HostUsage]
_Stamp = tuple[int, datetime.datetime | None]
# Changed hosts read one by one (two or three calls each) at most; more
# are read with one bulk call.
READ_ONE_BY_ONE_MAX = 32
# Hosts a decision chose checked one call each at most (CHECK_THREADS
# at a time); more are first compared with the pool's generations.
CHECK_ONE_BY_ONE_MAX = 16
CHECK_THREADS = 4


@dataclasses.dataclass(frozen=True)
class Current:
    """What a lease create decides from, before locking: the reservable
    hosts by hypervisor hostname, host id -> usage as Placement has it
    now, and what was read from Placement."""

    hosts: list[host_obj.Host]
    usages: dict[int, reservation_reads.HostUsage]
    plan: usage_freshness.ReadPlan


class HostViews:
    """Placement's view of the hosts for one manager's lease creates."""

    def __init__(self, placement: reservation_reads.ReservationPlacement,
                 database: db_api.Database) -> None:
        self.placement = placement
        self.database = database
        # host id -> (stamp, usage, decision host) of loaded views
        self._loaded: dict[int, tuple[_Stamp, reservation_reads.HostUsage,
                                      capacity.Host]] = {}
        # host id -> the host as last loaded
        self._hosts: dict[int, host_obj.Host] = {}
        # the stamps as last read, and their fingerprint then
        self._stamps: dict[int, host_obj.Stamp] = {}
        self._fingerprint: tuple | None = None

    def current(self, pool_uuid: str | None) -> Current:
        """The reservable hosts and their usage as Placement has it now.

        One one-row statement while the one Placement call runs (and
        the hosts' stamps when it moved), one more for hosts and views
        this manager has not loaded yet (or that changed since), plus
        two or three calls per host that changed since it was last read
        (or is not in the pool's aggregate in Placement), or one bulk
        call when more than READ_ONE_BY_ONE_MAX did.
        """
        with futures.ThreadPoolExecutor(1) as pool:
            # the one Placement call runs while the database answers
            listing = pool.submit(self.placement.pool_generations,
                                  pool_uuid) if pool_uuid else None
            stamps = self._current_stamps()
            hosts = self._current_hosts(stamps)
            listed = listing.result() if listing else {}
        plan = usage_freshness.plan_reads(
            {h.id: h.compute_provider_uuid for h in hosts},
            {host_id: stamp.view[0] for host_id, stamp in stamps.items()
             if stamp.view is not None}, listed)
        if plan.unlisted:
            LOG.warning('%(n)d reservable host(s) are not in the free pool '
                        'aggregate %(agg)s in Placement and are read one by '
                        'one (run "nova-manage placement sync_aggregates")',
                        {'n': len(plan.unlisted), 'agg': pool_uuid})
        return Current(hosts, self._usages(hosts, stamps, plan, pool_uuid,
                                           listed), plan)

    def kept(self, pool_uuid: str | None) -> Current:
        """The reservable hosts and their kept views, without asking
        Placement whether they are current (see :meth:`stale`).

        Hosts without a kept view (enrolled, or forgotten at a lease's
        end) are read now: alone when they are few, else with the
        whole pool as :meth:`current` does (the first lease after an
        upgrade).
        """
        stamps = self._current_stamps()
        hosts = self._current_hosts(stamps)
        missing = tuple(h.id for h in hosts if stamps[h.id].view is None)
        if len(missing) > READ_ONE_BY_ONE_MAX:
            return self.current(pool_uuid)
        plan = usage_freshness.ReadPlan(tuple(sorted(missing)), ())
        return Current(hosts, self._usages(hosts, stamps, plan, pool_uuid,
                                           {}), plan)

    def stale(self, chosen: Mapping[int, capacity.Resources],
              hosts: Mapping[int, host_obj.Host], usages: Usages,
              pool_uuid: str | None
              ) -> dict[int, reservation_reads.PoolUsage | None]:
        """The chosen hosts whose view Placement no longer matches: host
        id -> their tree as Placement shows it now (None: not shown, as
        when the host has no room for one instance any more).

        Up to :data:`CHECK_ONE_BY_ONE_MAX` chosen hosts are read one
        call each (at once); more are first compared with the pool's
        generations (one call) and those that moved are read, one by one
        or, when many, in one bulk call.

        :param chosen: host id -> one instance of the flavor it was
            chosen for (the unit limits are checked with it).
        """
        check = sorted(chosen)
        if len(check) > CHECK_ONE_BY_ONE_MAX and pool_uuid:
            listed = self.placement.pool_generations(pool_uuid)
            stamps = self._stamps
            check = [i for i in check if _kept_generation(stamps.get(i))
                     != listed.get(hosts[i].compute_provider_uuid)]
        if len(check) > CHECK_ONE_BY_ONE_MAX and pool_uuid:
            pool = self.placement.pool_usages(pool_uuid)
            shown = {i: pool.get(hosts[i].compute_provider_uuid)
                     for i in check}
        else:
            with futures.ThreadPoolExecutor(CHECK_THREADS) as workers:
                shown = dict(zip(check, workers.map(
                    lambda i: self.placement.tree_usage(
                        hosts[i].compute_provider_uuid, dict(zip(
                            capacity.RESOURCE_CLASSES,
                            chosen[i].as_tuple(), strict=True))),
                    check), strict=True))
        return {i: tree for i, tree in shown.items()
                if tree is None
                or not held_slots.view_matches(usages[i], tree)}

    def refresh(self, stale: Mapping[int, reservation_reads.PoolUsage | None],
                hosts: Mapping[int, host_obj.Host], usages: Usages
                ) -> dict[int, reservation_reads.HostUsage]:
        """``usages`` with the :meth:`stale` hosts' views made from what
        Placement showed (with their kept inventories while the
        capacities hold; else read alone), and stored."""
        kept = host_obj.known_usages(self.database, list(stale))
        fresh = {}
        for host_id, tree in stale.items():
            view = kept.get(host_id)
            # kept generation: a full listing reads the host again
            fresh[host_id] = (_pool_view(hosts[host_id], tree, view,
                                         view.generation)
                              if tree is not None and view is not None
                              else None) or _read(self.placement,
                                                  hosts[host_id])
        host_obj.remember_usages(self.database, fresh)
        out = dict(usages)
        out.update((host_id, _usage(view, 'inventories'))
                   for host_id, view in fresh.items())
        return out

    def _current_stamps(self) -> dict[int, host_obj.Stamp]:
        """Every reservable host's stamp, read again only when their
        fingerprint moved (the fingerprint first: a change meanwhile
        only makes the next lease read them again)."""
        fingerprint = host_obj.stamps_fingerprint(self.database)
        if fingerprint != self._fingerprint:
            self._stamps = host_obj.reservable_stamps(self.database)
            self._fingerprint = fingerprint
        return self._stamps

    def _current_hosts(self, stamps: Mapping[int, host_obj.Stamp]
                       ) -> list[host_obj.Host]:
        """The reservable hosts by hypervisor hostname, loading only
        those whose row changed since this manager loaded it."""
        # copy on write: lease creates of this manager run in several
        # threads; a cache is replaced, never changed in place, so each
        # works on whole snapshots
        hosts = {host_id: host for host_id, host in self._hosts.items()
                 if _same_host(host, stamps.get(host_id))}
        missing = [host_id for host_id in stamps if host_id not in hosts]
        if missing:
            hosts.update((h.id, h) for h in host_obj.get_many(
                self.database, missing) if h.reservable)
        self._hosts = hosts
        return sorted(hosts.values(), key=lambda h: h.hypervisor_hostname)

    def _usages(self, hosts: list[host_obj.Host],
                stamps: Mapping[int, host_obj.Stamp],
                plan: usage_freshness.ReadPlan, pool_uuid: str | None,
                listed: Mapping[str, int]
                ) -> dict[int, reservation_reads.HostUsage]:
        """Read what the plan says, store it, load the other views."""
        by_id = {h.id: h for h in hosts}
        unlisted = set(plan.unlisted)
        changed = [by_id[host_id] for host_id in plan.read
                   if host_id not in unlisted]
        fresh = self._bulk(changed, pool_uuid, listed) \
            if len(changed) > READ_ONE_BY_ONE_MAX else {}
        fresh.update((host_id, _read(self.placement, by_id[host_id]))
                     for host_id in plan.read if host_id not in fresh)
        host_obj.remember_usages(self.database, {
            host_id: view for host_id, view in fresh.items()
            if host_id not in unlisted})
        kept = {host_id: stamp.view for host_id, stamp in stamps.items()
                if stamp.view is not None}
        loaded = self._load([h for h in hosts if h.id not in fresh], kept)
        usages = {h.id: loaded[h.id][1] for h in hosts
                  if h.id not in fresh and h.id in loaded}
        usages.update((host_id, _usage(view, 'inventories'))
                      for host_id, view in fresh.items())
        return usages

    def _bulk(self, changed: list[host_obj.Host], pool_uuid: str | None,
              listed: Mapping[str, int]) -> dict[int, host_obj.KnownUsage]:
        """Views of the changed hosts from one read of the whole pool,
        for those it shows whose kept inventories still hold."""
        pool = self.placement.pool_usages(pool_uuid) if pool_uuid else {}
        kept = host_obj.known_usages(self.database, [h.id for h in changed])
        out = {}
        for host in changed:
            view = _pool_view(host, pool.get(host.compute_provider_uuid),
                              kept.get(host.id),
                              listed[host.compute_provider_uuid])
            if view is not None:
                out[host.id] = view
        return out

    def decision_hosts(self, hosts: Iterable[host_obj.Host],
                       usages: Usages) -> list[capacity.Host]:
        """The decision's hosts, reusing those built from kept views."""
        out = []
        for host in hosts:
            loaded = self._loaded.get(host.id)
            if loaded is not None and loaded[1] is usages[host.id]:
                out.append(loaded[2])
            else:
                out.append(_decision_host(host, usages[host.id]))
        return out

    def _load(self, hosts: list[host_obj.Host],
              stamps: Mapping[int, _Stamp]) -> dict:
        """Load the kept views this manager has not loaded yet (or that
        were stored again since); the loaded views (copy on write, see
        :meth:`_current_hosts`)."""
        loaded = {host_id: item for host_id, item in self._loaded.items()
                  if host_id in stamps}
        wanted = [h for h in hosts if h.id in stamps and (
            loaded.get(h.id, (None,))[0] != stamps[h.id])]
        if wanted:
            views = host_obj.known_usages(self.database,
                                          [h.id for h in wanted])
            for host in wanted:
                view = views.get(host.id)
                if view is None:
                    continue    # forgotten meanwhile: unknown this time
                usage = _usage(view, 'kept')
                loaded[host.id] = (stamps[host.id], usage,
                                   _decision_host(host, usage))
        self._loaded = loaded
        return loaded


class Holdings:
    """Every live reservation's slots on the reservable hosts, kept by
    one manager between its lease creates while their fingerprint
    (:func:`~placement_ext.objects.lease.holdings_fingerprint`, one row)
    holds; a lease create adds its own slots.

    What is kept after a lease create may miss a lease committed on
    other hosts between the create's decision and its fingerprint (lease
    creates lock only the hosts they chose), so a decision is only
    trusted once the chosen hosts' slots, read under their locks, match
    (:meth:`placement_ext.manager.lease_create.Creation._check_slots`); a
    mismatch makes the next read load them again (:meth:`forget`).
    """

    def __init__(self, database: db_api.Database) -> None:
        self.database = database
        self._kept: tuple[tuple, list[lease_obj.Holding]] | None = None

    def current(self) -> list[lease_obj.Holding]:
        """Every live holding; run it in the writer transaction that
        locked the hosts (see :func:`~placement_ext.objects.lease.
        holdings`)."""
        fingerprint = lease_obj.holdings_fingerprint(self.database)
        kept = self._kept
        if kept is None or kept[0] != fingerprint:
            kept = (fingerprint, lease_obj.holdings(self.database, None))
            self._kept = kept   # read in this snapshot: true even if
            # the transaction rolls back
        return kept[1]

    def written(self, every: list[lease_obj.Holding],
                new: list[lease_obj.Holding]) -> tuple:
        """What to keep once the transaction that wrote ``new`` (in the
        one that returned ``every``) commits: pass it to :meth:`keep`."""
        return (lease_obj.holdings_fingerprint(self.database), every + new)

    def keep(self, written: tuple) -> None:
        self._kept = written

    def forget(self) -> None:
        """Load every holding again at the next :meth:`current`."""
        self._kept = None


def _same_host(host: host_obj.Host, stamp: host_obj.Stamp | None) -> bool:
    """Whether the loaded host is still the reservable row it was (every
    change of a host row bumps its generation; a new row that took an
    old id has another compute node provider)."""
    return stamp is not None and (host.generation, host.compute_provider_uuid
                                  ) == (stamp.generation,
                                        stamp.compute_provider_uuid)


def _kept_generation(stamp: host_obj.Stamp | None) -> int | None:
    return None if stamp is None or stamp.view is None else stamp.view[0]


def _read(placement: reservation_reads.ReservationPlacement,
          host: host_obj.Host) -> host_obj.KnownUsage:
    generation, usage = placement.host_usage(host.compute_provider_uuid,
                                             host.reservation_provider_uuid)
    return host_obj.KnownUsage(generation, dict(usage.inventories),
                               dict(usage.usages),
                               dict(usage.reservation_usages))


def _usage(view: host_obj.KnownUsage,
           source: str) -> reservation_reads.HostUsage:
    return reservation_reads.HostUsage(view.inventories, view.usages,
                                       view.reservation_usages, source)


def _decision_host(host: host_obj.Host,
                   usage: reservation_reads.HostUsage) -> capacity.Host:
    return capacity.Host.from_placement(host.hypervisor_hostname,
                                        usage.inventories, usage.usages)


def _pool_view(host: host_obj.Host,
               tree: reservation_reads.PoolUsage | None,
               kept: host_obj.KnownUsage | None,
               generation: int) -> host_obj.KnownUsage | None:
    """The host's view at ``generation`` (listed before the bulk read,
    so the usages are at least that new) from its tree in the bulk read
    (:func:`placement_ext.decision.held_slots.pool_view`)."""
    view = held_slots.pool_view(
        (host.vcpus, host.memory_mb, host.local_gb), tree,
        kept.inventories if kept is not None else None)
    return None if view is None else host_obj.KnownUsage(generation, *view)
