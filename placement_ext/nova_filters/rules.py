"""Which hosts a Nova request may use, as pure rules (no Nova import).

The reservation manager keeps every reservable host in one Nova host
aggregate, the *free pool*, marked with :data:`FREEPOOL_METADATA_KEY`.
Capacity there is promised to reservations, so an ordinary request (a
flavor without ``resources:CUSTOM_RESERVATION_*``) must not land on a
free-pool host; a reserved request may land anywhere Placement offers,
because only the hosts holding the reservation's inventory
(``blazar_<host>`` children with ``CUSTOM_RESERVATION_<ID>``) can satisfy
its resource class.

This is upstream BlazarFilter's rule, keyed on the flavor's resource
class as the blazar ``placement-api`` spec intended (upstream still keys
on ``aggregate_instance_extra_specs:reservation``).
"""

import re
from collections.abc import Iterable
from collections.abc import Mapping

# Aggregate metadata marking the free pool; the value is "true".
FREEPOOL_METADATA_KEY = 'placement_ext:freepool'
FREEPOOL_METADATA_VALUE = 'true'
# resources:CUSTOM_RESERVATION_X=1, or in a request group such as
# resources1: or resources_GROUP:.
_RESERVATION_SPEC = re.compile(
    r'^resources[A-Za-z0-9_-]*:CUSTOM_RESERVATION_[A-Z0-9_]+$')


def is_reservation_request(extra_specs: Mapping[str, str] | None) -> bool:
    """True if the flavor asks for a reservation's resource class."""
    for key, value in (extra_specs or {}).items():
        if _RESERVATION_SPEC.match(key) and str(value).strip() not in (
                '', '0'):
            return True
    return False


def in_free_pool(aggregate_metadata: Iterable[Mapping[str, str]]) -> bool:
    """True if one of the host's aggregates is the free pool."""
    return any(
        str(metadata.get(FREEPOOL_METADATA_KEY, '')).strip().lower()
        == FREEPOOL_METADATA_VALUE
        for metadata in aggregate_metadata)


def host_passes(extra_specs: Mapping[str, str] | None,
                aggregate_metadata: Iterable[Mapping[str, str]]
                ) -> tuple[bool, str]:
    """(passes, why) for one host and one request."""
    if is_reservation_request(extra_specs):
        return True, 'reserved request: Placement picks the reserved hosts'
    if in_free_pool(aggregate_metadata):
        return False, 'host is reservable (free pool); the flavor holds ' \
                      'no reservation'
    return True, 'host is not reservable'
