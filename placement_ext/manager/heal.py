"""Heal the reservations of failed hosts: retire the hosts, move the slots.

The decision (which reservations are hit, what each outcome means) is
:mod:`placement_ext.decision.lease_heal`; the move is the lease update's
(:meth:`placement_ext.manager.leases.Leases.update` with ``moves``). The
Blazar plugin calls :func:`heal` when Blazar's host monitor reports
failed hosts and translates the outcomes into Blazar's flags.
"""

import datetime
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Set

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.decision import lease_heal
from placement_ext.manager import leases
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)


def heal(database: db_api.Database, leases: leases.Leases,
         failed: Set[str], begin: datetime.datetime,
         end: datetime.datetime,
         on_moved: Callable[[lease_obj.Lease], None] = lambda _lease: None,
         busy_hosts: Callable[[lease_obj.Lease], frozenset[str]]
         = lambda _lease: frozenset()) -> dict[str, str]:
    """Retire the ``failed`` hosts (hypervisor hostnames), then pick new
    slots for each lease that holds some there during [begin, end).

    :param on_moved: called with each lease whose slots moved, at once
        (a host service mirrors the new slots).
    :param busy_hosts: the hosts a lease's new slots may not use (a host
        service's host leases, hosts its filters rule out).
    :returns: the outcome by reservation id (``lease_heal.CHANGED`` or
        ``MISSING``) of the reservations hit; one that moved before it
        started has none.
    """
    retire(database, failed)
    outcomes = {}
    for lease in lease_obj.list_leases(database):
        hit = [held for held in (_held(res, lease)
                                 for res in lease.reservations)
               if lease_heal.is_hit(held, failed, begin, end)]
        if not hit:
            continue
        moved = _move(leases, lease, on_moved, busy_hosts(lease))
        for held in hit:
            result = lease_heal.outcome(held, moved)
            if result is not None:
                outcomes[held.id] = result
    return outcomes


def retire(database: db_api.Database, failed: Set[str]) -> None:
    """No new slot on a failed host."""
    hosts = {h.hypervisor_hostname: h
             for h in host_obj.list_hosts(database)}
    for name in lease_heal.hosts_to_retire(
            (n for n, h in hosts.items() if h.reservable), failed):
        _withdraw(database, hosts[name])


def follow(database: db_api.Database, reservable: Mapping[str, bool]
           ) -> tuple[list[str], list[str]]:
    """Offer or withdraw our hosts as the host service marks them
    (``reservable``: its flag by hypervisor hostname). Blazar's monitor
    marks a failed host non-reservable, and reservable again when it
    recovers, without telling the plugins of the recovery: this is how
    a recovered host is offered again.

    :returns: the hosts withdrawn, the hosts offered again.
    """
    hosts = {h.hypervisor_hostname: h
             for h in host_obj.list_hosts(database)}
    withdrawn, offered = lease_heal.reservability_changes(
        {n: h.reservable for n, h in hosts.items()}, reservable)
    for name in withdrawn:
        _withdraw(database, hosts[name])
    for name in offered:
        host_obj.set_reservable(database, hosts[name], True)
        LOG.warning('Host %s is reservable again (recovered): offered to '
                    'new slots', name)
    return withdrawn, offered


def _withdraw(database: db_api.Database, host: host_obj.Host) -> None:
    host_obj.set_reservable(database, host, False)
    LOG.warning('Host %s failed: no new slot goes there until it is '
                'reservable again', host.hypervisor_hostname)


def _move(leases: leases.Leases, lease: lease_obj.Lease,
          on_moved: Callable[[lease_obj.Lease], None],
          busy_hosts: frozenset[str]) -> bool:
    try:
        moved = leases.update(lease, {}, moves=True, busy_hosts=busy_hosts)
    except exception.NoCapacity as exc:
        LOG.warning('Lease %(id)s (reservations %(res)s) cannot be '
                    'honoured any more: %(why)s',
                    {'id': lease.id, 'why': exc,
                     'res': ', '.join(r.id for r in lease.reservations)})
        return False
    on_moved(moved)
    return True


def _held(res: lease_obj.Reservation, lease: lease_obj.Lease
          ) -> lease_heal.Held:
    return lease_heal.Held(
        id=res.id, hosts=frozenset(res.slots_by_host),
        start=lease.start_date, end=lease.end_date,
        started=res.status == states.RESERVATION_ACTIVE)
