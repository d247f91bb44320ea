"""Which hosts a lease create must read from Placement again.

Pure. The manager keeps Placement's last view of every reservable host
(inventories and usages of its compute node provider) with the provider
generation it was read at. Placement bumps a provider's generation on
every inventory change and every allocation written against it, so a
kept view whose generation is still the one Placement lists is exactly
what a fresh read would return, except for allocations deleted since
(deletes do not bump it): those only make the kept usage too high,
never too low, and the manager drops the view of a lease's hosts when
the lease ends and deletes its servers.
"""

import dataclasses
from collections.abc import Mapping


@dataclasses.dataclass(frozen=True)
class ReadPlan:
    """``read``: host ids to read now, sorted. ``unlisted``: those among
    them Placement did not list (not in the free pool's aggregate there),
    whose view cannot be checked and so is never kept."""

    read: tuple[int, ...]
    unlisted: tuple[int, ...]


def plan_reads(providers: Mapping[int, str], kept: Mapping[int, int],
               listed: Mapping[str, int]) -> ReadPlan:
    """Hosts whose kept view is missing or older than Placement's.

    :param providers: host id -> compute node provider UUID.
    :param kept: host id -> generation of the kept view.
    :param listed: provider UUID -> generation Placement lists now.
    """
    read, unlisted = [], []
    for host_id in sorted(providers):
        now = listed.get(providers[host_id])
        if now is None:
            unlisted.append(host_id)
            read.append(host_id)
        elif kept.get(host_id) != now:
            read.append(host_id)
    return ReadPlan(tuple(read), tuple(unlisted))
