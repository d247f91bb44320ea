"""Which hosts a Nova request may use, as pure rules (no Nova import).

Three kinds of hosts matter (Blazar's, whichever plugins run):

* the *free pool*: every reservable host not held by a host lease, in one
  Nova aggregate marked with :data:`FREEPOOL_METADATA_KEY` (our plugins
  mark Blazar's ``freepool``). Its capacity is promised to reservations,
  so only reserved instances land there;
* a *host lease's pool*: the aggregate Blazar's ``physical:host`` plugin
  moves a leased host into (named after the reservation, availability
  zone ``blazar_<reservation id>``, metadata ``blazar:owner=<project>``).
  Only the lease's project, asking with the scheduler hint
  ``reservation=<reservation id>``, may use it (projects that the pool's
  metadata lists as keys too, as upstream's BlazarFilter allows);
* any other host: ordinary requests only (a reserved instance lands
  where Placement offers its reservation's class, and only a
  ``blazar_<host>`` provider holding its slots can).

A reserved request is one whose flavor asks for
``resources:CUSTOM_RESERVATION_*`` (the Placement class of the slots), or
carries Blazar's ``aggregate_instance_extra_specs:reservation`` (which
our flavors carry too, for an operator who runs upstream's BlazarFilter).

These are BlazarFilter's rules, with two differences: a host lease's
pool refuses reserved instances of other projects (BlazarFilter passes
any instance reservation everywhere and relies on Placement), and the
free pool is found by its metadata mark rather than by name.
"""

import dataclasses
import re
from collections.abc import Iterable
from collections.abc import Mapping

# Aggregate metadata marking the free pool; the value is "true".
FREEPOOL_METADATA_KEY = 'placement_ext:freepool'
FREEPOOL_METADATA_VALUE = 'true'
# Blazar's flavor extra spec of an instance reservation (value: its id).
BLAZAR_FLAVOR_SPEC = 'aggregate_instance_extra_specs:reservation'
# A host lease's pool: its zone starts with one of these (Blazar's
# ``blazar_az_prefix``, and the older ``blazar:``) ...
HOST_LEASE_ZONE_PREFIXES = ('blazar_', 'blazar:')
# ... and this metadata names the lease's project.
OWNER_METADATA_KEY = 'blazar:owner'
# The scheduler hint naming host reservations (their pools' names).
RESERVATION_HINT = 'reservation'
# resources:CUSTOM_RESERVATION_X=1, or in a request group such as
# resources1: or resources_GROUP:.
_RESERVATION_SPEC = re.compile(
    r'^resources[A-Za-z0-9_-]*:CUSTOM_RESERVATION_[A-Z0-9_]+$')


@dataclasses.dataclass(frozen=True)
class Aggregate:
    """What the rules read of one of the host's Nova aggregates."""

    name: str = ''
    availability_zone: str | None = None
    metadata: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Request:
    """What the rules read of one scheduling request."""

    extra_specs: Mapping[str, str] | None = None
    project_id: str | None = None
    # host reservations named by the ``reservation`` hint
    reservations: tuple[str, ...] = ()


def is_reservation_request(extra_specs: Mapping[str, str] | None) -> bool:
    """True if the flavor belongs to an instance reservation."""
    for key, value in (extra_specs or {}).items():
        if str(value).strip() in ('', '0'):
            continue
        if key == BLAZAR_FLAVOR_SPEC or _RESERVATION_SPEC.match(key):
            return True
    return False


def in_free_pool(aggregates: Iterable[Aggregate]) -> bool:
    """True if one of the host's aggregates is the free pool."""
    return any(
        str(agg.metadata.get(FREEPOOL_METADATA_KEY, '')).strip().lower()
        == FREEPOOL_METADATA_VALUE
        for agg in aggregates)


def host_lease_pools(aggregates: Iterable[Aggregate]) -> list[Aggregate]:
    """The host lease pools among the host's aggregates."""
    return [agg for agg in aggregates
            if str(agg.availability_zone or '').startswith(
                HOST_LEASE_ZONE_PREFIXES)
            and not in_free_pool([agg])]


def may_use(pool: Aggregate, project_id: str | None) -> bool:
    """True if ``project_id`` owns the pool or the pool lists it."""
    if not project_id:
        return False
    return pool.metadata.get(OWNER_METADATA_KEY) == project_id or \
        bool(pool.metadata.get(project_id))


def host_passes(request: Request,
                aggregates: Iterable[Aggregate]) -> tuple[bool, str]:
    """(passes, why) for one host and one request."""
    aggregates = list(aggregates)
    pools = host_lease_pools(aggregates)
    if request.reservations:
        named = [p for p in pools if p.name in request.reservations]
        if not named:
            return False, (f'host is in none of the host reservations '
                           f'{list(request.reservations)}')
        if any(may_use(p, request.project_id) for p in named):
            return True, f'host reservation {named[0].name} of the project'
        return False, (f'host reservation {named[0].name} belongs to '
                       f'another project than {request.project_id}')
    if pools:
        pool = pools[0]
        if is_reservation_request(request.extra_specs) and \
                may_use(pool, request.project_id):
            return True, f'reserved request of the project owning {pool.name}'
        return False, (f'host is held by host reservation {pool.name} of '
                       f'project {pool.metadata.get(OWNER_METADATA_KEY)}; '
                       f'its project boots with --hint '
                       f'{RESERVATION_HINT}={pool.name}')
    if is_reservation_request(request.extra_specs):
        return True, 'reserved request: Placement picks the reserved hosts'
    if in_free_pool(aggregates):
        return False, 'host is reservable (free pool); the flavor holds ' \
                      'no reservation'
    return True, 'host is not reservable'
