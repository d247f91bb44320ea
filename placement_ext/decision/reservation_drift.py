"""Drift between the reservation database and Placement / Nova.

Pure: the reconcile command gathers what the database says
(:class:`HostRecord`, :class:`ReservationRecord`) and what the services
show (:class:`Observed`), and :func:`find_drift` lists every difference
with the repair that removes it, in the order repairs must run
(inventories before the classes they use, providers before the pool).

What is expected, per reservation state:

* ``pending`` (lease not started): its class and flavor exist, no
  inventory anywhere;
* ``active``: class and flavor exist, and each host holding slots has an
  inventory of the class with ``total`` = its slots, and no other host;
* ``busy`` (an event is running, or the last one failed and will be
  retried): whatever exists is left alone, the event task owns it;
* ``ended``: nothing of it remains.

Anything named like ours (``CUSTOM_RESERVATION_*`` classes and their
inventories, ``reservation:*`` flavors) that no record owns is an orphan.
A ``blazar_*`` provider of a host that is not enrolled is not: deleting
a host leaves its provider empty on purpose (nova-compute fails builds
once a provider it cached is deleted), so only its inventories count.
"""

import dataclasses
from collections.abc import Iterable
from collections.abc import Mapping

PENDING, ACTIVE, BUSY, ENDED = 'pending', 'active', 'busy', 'ended'
STATES = (PENDING, ACTIVE, BUSY, ENDED)

# Repairs, in the order they run.
REPAIRS = ('create_provider', 'delete_inventory', 'set_inventory',
           'delete_class', 'create_class',
           'delete_flavor', 'create_flavor', 'add_to_pool',
           'remove_from_pool')


@dataclasses.dataclass(frozen=True)
class HostRecord:
    hostname: str
    service_name: str
    provider_uuid: str | None
    reservable: bool


@dataclasses.dataclass(frozen=True)
class ReservationRecord:
    id: str
    resource_class: str
    flavor_id: str
    state: str
    # hypervisor hostname -> slots (what an active reservation holds)
    slots: Mapping[str, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Observed:
    """What Placement and Nova show now.

    :param providers: hypervisor hostname -> UUID of ``blazar_<host>``.
    :param inventories: hostname -> {reservation class: total} on it.
    :param classes: ``CUSTOM_RESERVATION_*`` classes.
    :param flavors: ids of ``reservation:*`` flavors.
    :param pool: service hosts in the free pool aggregate (None: no
        aggregate).
    """

    providers: Mapping[str, str]
    inventories: Mapping[str, Mapping[str, int]]
    classes: frozenset[str]
    flavors: frozenset[str]
    pool: frozenset[str] | None


@dataclasses.dataclass(frozen=True)
class Finding:
    """One difference: ``kind`` of drift, what it is about, why, and the
    repair (one of :data:`REPAIRS`) with its arguments."""

    kind: str
    subject: str
    detail: str
    repair: str
    args: tuple = ()

    def to_dict(self) -> dict:
        return {'kind': self.kind, 'subject': self.subject,
                'detail': self.detail, 'repair': self.repair}


def find_drift(hosts: Iterable[HostRecord],
               reservations: Iterable[ReservationRecord],
               observed: Observed) -> list[Finding]:
    """Every difference, sorted by repair order, then subject."""
    hosts = list(hosts)
    reservations = list(reservations)
    for res in reservations:
        if res.state not in STATES:
            raise ValueError(f'reservation {res.id}: unknown state '
                             f'{res.state!r}')
    findings = (_providers(hosts, observed)
                + _inventories(hosts, reservations, observed)
                + _classes(reservations, observed)
                + _flavors(reservations, observed)
                + _pool(hosts, observed))
    order = {name: i for i, name in enumerate(REPAIRS)}
    return sorted(findings, key=lambda f: (order[f.repair], f.subject,
                                           f.kind))


def _providers(hosts: list[HostRecord], observed: Observed
               ) -> list[Finding]:
    found = []
    for host in hosts:
        uuid = observed.providers.get(host.hostname)
        if uuid is None:
            found.append(Finding(
                'missing_provider', host.hostname,
                f'host {host.hostname} has no reservation provider',
                'create_provider', (host.hostname,)))
        elif uuid != host.provider_uuid:
            found.append(Finding(
                'provider_not_recorded', host.hostname,
                f'blazar_{host.hostname} is {uuid}, the database says '
                f'{host.provider_uuid}', 'create_provider',
                (host.hostname,)))
    return found


def _inventories(hosts: list[HostRecord],
                 reservations: list[ReservationRecord],
                 observed: Observed) -> list[Finding]:
    busy = {r.resource_class for r in reservations if r.state == BUSY}
    expected: dict[tuple[str, str], int] = {}
    for res in reservations:
        if res.state == ACTIVE:
            for hostname, slots in res.slots.items():
                expected[(hostname, res.resource_class)] = slots
    found = []
    for hostname, inventories in observed.inventories.items():
        for rc, total in inventories.items():
            if rc in busy:
                continue
            want = expected.get((hostname, rc))
            if want is None:
                found.append(Finding(
                    'orphan_inventory', f'{hostname}/{rc}',
                    f'{rc} (total {total}) on blazar_{hostname} is held '
                    f'by no active reservation', 'delete_inventory',
                    (hostname, rc)))
            elif want != total:
                found.append(Finding(
                    'wrong_inventory', f'{hostname}/{rc}',
                    f'{rc} on blazar_{hostname} has total {total}, the '
                    f'reservation holds {want} slots', 'set_inventory',
                    (hostname, rc, want)))
    enrolled = {h.hostname for h in hosts}
    for (hostname, rc), want in expected.items():
        if hostname in enrolled and \
                rc not in observed.inventories.get(hostname, {}):
            found.append(Finding(
                'missing_inventory', f'{hostname}/{rc}',
                f'active reservation class {rc} has no inventory on '
                f'blazar_{hostname} ({want} slots)', 'set_inventory',
                (hostname, rc, want)))
    return found


def _classes(reservations: list[ReservationRecord], observed: Observed
             ) -> list[Finding]:
    owned = {r.resource_class for r in reservations if r.state != ENDED}
    needed = {r.resource_class for r in reservations
              if r.state in (PENDING, ACTIVE)}
    found = [Finding('orphan_class', rc,
                     f'{rc} belongs to no live reservation', 'delete_class',
                     (rc,))
             for rc in sorted(observed.classes - owned)]
    found += [Finding('missing_class', rc,
                      f'live reservation class {rc} does not exist',
                      'create_class', (rc,))
              for rc in sorted(needed - observed.classes)]
    return found


def _flavors(reservations: list[ReservationRecord], observed: Observed
             ) -> list[Finding]:
    owned = {r.flavor_id for r in reservations if r.state != ENDED}
    needed = {r.flavor_id: r for r in reservations
              if r.state in (PENDING, ACTIVE)}
    found = [Finding('orphan_flavor', flavor,
                     f'flavor {flavor} belongs to no live reservation',
                     'delete_flavor', (flavor,))
             for flavor in sorted(observed.flavors - owned)]
    found += [Finding('missing_flavor', flavor,
                      f'the flavor of live reservation {needed[flavor].id} '
                      f'does not exist', 'create_flavor',
                      (needed[flavor].id,))
              for flavor in sorted(set(needed) - observed.flavors)]
    return found


def _pool(hosts: list[HostRecord], observed: Observed) -> list[Finding]:
    pool = observed.pool or frozenset()
    members = {h.service_name for h in hosts if h.reservable}
    found = [Finding('missing_pool_member', service,
                     f'reservable host {service} is not in the free pool',
                     'add_to_pool', (service,))
             for service in sorted(members - pool)]
    enrolled = {h.service_name for h in hosts}
    found += [Finding('orphan_pool_member', service,
                      f'{service} is in the free pool but not enrolled',
                      'remove_from_pool', (service,))
              for service in sorted(pool - enrolled)]
    return found
