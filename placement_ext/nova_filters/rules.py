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

These are BlazarFilter's rules (blazar-nova 10.0.0), read with its
options (:class:`Settings`, ``[blazar:physical:host]`` in nova.conf):
the host lease zone prefix, the owner key, the free pool's name and
preemptible instances (``blazar:preemptible`` flavors, on the
preemptible aggregate's hosts only, when allowed). Two differences, on
purpose: a host lease's pool refuses reserved instances of other projects
(BlazarFilter passes any instance reservation everywhere and relies on
Placement), and the free pool is also found by its metadata mark,
whatever its name.
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
# A host lease's pool's zone also starts with this (older Blazar's).
LEGACY_ZONE_PREFIX = 'blazar:'
# A preemptible instance's flavor extra spec (true/false).
PREEMPTIBLE_SPEC = 'blazar:preemptible'
# The scheduler hint naming host reservations (their pools' names).
RESERVATION_HINT = 'reservation'
# resources:CUSTOM_RESERVATION_X=1, or in a request group such as
# resources1: or resources_GROUP:.
_RESERVATION_SPEC = re.compile(
    r'^resources[A-Za-z0-9_-]*:CUSTOM_RESERVATION_[A-Z0-9_]+$')


@dataclasses.dataclass(frozen=True)
class Settings:
    """BlazarFilter's options (``[blazar:physical:host]``), its defaults."""

    az_prefix: str = 'blazar_'
    owner_key: str = 'blazar:owner'
    freepool_name: str = 'freepool'
    allow_preemptibles: bool = False
    preemptible_aggregate: str = 'freepool'


DEFAULTS = Settings()


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


def is_preemptible_request(extra_specs: Mapping[str, str] | None) -> bool:
    """True if the flavor says ``blazar:preemptible`` is true."""
    value = str((extra_specs or {}).get(PREEMPTIBLE_SPEC, '')).strip()
    return value.lower() in ('1', 't', 'true', 'on', 'y', 'yes')


def _is_free_pool(agg: Aggregate, settings: Settings) -> bool:
    return agg.name == settings.freepool_name or \
        str(agg.metadata.get(FREEPOOL_METADATA_KEY, '')).strip().lower() \
        == FREEPOOL_METADATA_VALUE


def in_free_pool(aggregates: Iterable[Aggregate],
                 settings: Settings = DEFAULTS) -> bool:
    """True if one of the host's aggregates is the free pool."""
    return any(_is_free_pool(agg, settings) for agg in aggregates)


def host_lease_pools(aggregates: Iterable[Aggregate],
                     settings: Settings = DEFAULTS) -> list[Aggregate]:
    """The host lease pools among the host's aggregates."""
    return [agg for agg in aggregates if _is_lease_pool(agg, settings)]


def _is_lease_pool(agg: Aggregate, settings: Settings) -> bool:
    prefixes = (settings.az_prefix, LEGACY_ZONE_PREFIX)
    return str(agg.availability_zone or '').startswith(prefixes) and \
        not _is_free_pool(agg, settings)


def may_use(pool: Aggregate, project_id: str | None,
            settings: Settings = DEFAULTS) -> bool:
    """True if ``project_id`` owns the pool or the pool lists it."""
    if not project_id:
        return False
    return pool.metadata.get(settings.owner_key) == project_id or \
        bool(pool.metadata.get(project_id))


def _preemptible_passes(aggregates: list[Aggregate],
                        settings: Settings) -> tuple[bool, str]:
    # BlazarFilter: only a host whose one Blazar aggregate is the
    # preemptible aggregate
    blazar = [agg for agg in aggregates
              if agg.name == settings.preemptible_aggregate
              or _is_free_pool(agg, settings)
              or _is_lease_pool(agg, settings)]
    if len(blazar) == 1 and blazar[0].name == settings.preemptible_aggregate:
        return True, (f'preemptible request on the preemptible aggregate '
                      f'{settings.preemptible_aggregate}')
    return False, (f'preemptible requests run only on hosts of the '
                   f'aggregate {settings.preemptible_aggregate} alone')


def host_passes(request: Request, aggregates: Iterable[Aggregate],
                settings: Settings = DEFAULTS) -> tuple[bool, str]:
    """(passes, why) for one host and one request."""
    aggregates = list(aggregates)
    pools = host_lease_pools(aggregates, settings)
    if request.reservations:
        named = [p for p in pools if p.name in request.reservations]
        if not named:
            return False, (f'host is in none of the host reservations '
                           f'{list(request.reservations)}')
        if any(may_use(p, request.project_id, settings) for p in named):
            return True, f'host reservation {named[0].name} of the project'
        return False, (f'host reservation {named[0].name} belongs to '
                       f'another project than {request.project_id}')
    if settings.allow_preemptibles and \
            is_preemptible_request(request.extra_specs) and \
            not is_reservation_request(request.extra_specs):
        return _preemptible_passes(aggregates, settings)
    if pools:
        pool = pools[0]
        if is_reservation_request(request.extra_specs) and \
                may_use(pool, request.project_id, settings):
            return True, f'reserved request of the project owning {pool.name}'
        return False, (f'host is held by host reservation {pool.name} of '
                       f'project {pool.metadata.get(settings.owner_key)}; '
                       f'its project boots with --hint '
                       f'{RESERVATION_HINT}={pool.name}')
    if is_reservation_request(request.extra_specs):
        return True, 'reserved request: Placement picks the reserved hosts'
    if in_free_pool(aggregates, settings):
        return False, 'host is reservable (free pool); the flavor holds ' \
                      'no reservation'
    return True, 'host is not reservable'
