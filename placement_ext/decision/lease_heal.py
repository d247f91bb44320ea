"""Which reservations a host failure hits, and what becomes of each.

Pure. When hosts fail, each reservation holding slots on one of them
during the failure's period has its slots picked again elsewhere
(:mod:`placement_ext.manager.heal` does it). The outcome of each:
``CHANGED`` for a reservation that had started and moved (its servers
must be rebuilt on the new hosts), ``MISSING`` for one that cannot be
honoured any more, nothing for one that moved before it started (its
owner sees no difference).
"""

import dataclasses
import datetime
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Set

CHANGED, MISSING = 'changed', 'missing'


@dataclasses.dataclass(frozen=True)
class Held:
    """A reservation as the heal sees it."""

    id: str
    hosts: frozenset[str]       # hypervisor hostnames of its slots
    start: datetime.datetime    # its lease's period
    end: datetime.datetime
    started: bool               # the reservation's status is active


def hosts_to_retire(reservable: Iterable[str],
                    failed: Set[str]) -> list[str]:
    """The reservable hosts that failed: no new slot goes there."""
    return sorted(set(reservable) & failed)


def reservability_changes(ours: Mapping[str, bool],
                          theirs: Mapping[str, bool]
                          ) -> tuple[list[str], list[str]]:
    """What follows a host service's monitor (Blazar's marks a failed
    host non-reservable, and reservable again once it recovers): the
    hosts of ours to withdraw and those to offer again. Hosts only one
    side knows are left alone (enrolment handles them)."""
    common = set(ours) & set(theirs)
    return (sorted(n for n in common if ours[n] and not theirs[n]),
            sorted(n for n in common if theirs[n] and not ours[n]))


def is_hit(held: Held, failed: Set[str], begin: datetime.datetime,
           end: datetime.datetime) -> bool:
    """Whether ``held`` has slots on a failed host while the failure
    lasts ([begin, end); a lease that ends at ``begin`` or starts at
    ``end`` is not hit)."""
    return bool(held.hosts & failed) and held.start < end and \
        held.end > begin


def outcome(held: Held, moved: bool) -> str | None:
    """What a hit reservation's heal means to its owner.

    :param moved: its slots were picked again (False: no capacity).
    """
    if not moved:
        return MISSING
    return CHANGED if held.started else None
