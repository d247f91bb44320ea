"""How many instances of one flavor fit, read from allocation candidates.

Placement answers "which providers can give this once"; the provider
summaries next to the candidates give each provider's capacity and usage.
Together they say how many copies fit: for a resource class asked in the
unnumbered group, each copy takes its whole amount from one provider, so
a provider with ``free`` units holds ``free // amount`` copies, and a tree
holds the smallest such sum over the classes asked.

Only providers that Placement offered for a class count for it, so
Placement's own filters (traits, aggregates, ``in_tree``, ``max_unit``)
stay in force. Sharing providers (``MISC_SHARES_VIA_AGGREGATE``) serve
several trees; their units form one pool that trees draw on in UUID order
after using their own providers, so they are never counted twice.

This is arithmetic on what Placement returned: no I/O, no choice of host.
"""

from collections.abc import Callable
from collections.abc import Mapping

from placement_ext.drivers.placement import candidates as ac


def instances_per_tree(result: ac.AllocationCandidates,
                       resources: Mapping[str, int]) -> dict[str, int]:
    """Root provider UUID -> how many copies of ``resources`` it can host.

    :param result: candidates for an unnumbered-group request of
        ``resources`` (no ``limit``: a trimmed list hides providers).
    :param resources: resource class -> amount of one copy.
    """
    local, shared = _supply(result, resources)
    units = _units_counter(result.provider_summaries, resources)
    local_units = {
        root: {rc: sum(units(p, rc) for p in local[root].get(rc, ()))
               for rc in resources}
        for root in local}
    pool = {rc: sum(units(p, rc) for p in shared.get(rc, ()))
            for rc in resources}
    counts = {root: min(by_rc.values()) for root, by_rc in
              local_units.items()}
    for root in sorted(counts):
        spare = {rc: local_units[root][rc] - counts[root]
                 for rc in resources}
        extra = min(spare[rc] + pool[rc] for rc in resources)
        if extra > 0:
            for rc in resources:
                pool[rc] -= max(0, extra - spare[rc])
            counts[root] += extra
    return counts


def _supply(result: ac.AllocationCandidates, resources: Mapping[str, int]
            ) -> tuple[dict, dict]:
    """Providers offered per class: per home tree, and shared ones."""
    summaries = result.provider_summaries
    local: dict[str, dict[str, set[str]]] = {}
    shared: dict[str, set[str]] = {}
    for candidate in result:
        home = _home_root(candidate, summaries)
        by_rc = local.setdefault(home, {})
        for alloc in candidate.allocations:
            if alloc.resource_class not in resources:
                continue
            if _root(alloc.provider_uuid, summaries) == home:
                by_rc.setdefault(alloc.resource_class, set()).add(
                    alloc.provider_uuid)
            else:
                shared.setdefault(alloc.resource_class, set()).add(
                    alloc.provider_uuid)
    # a provider that serves other trees is counted once, in the pool
    for by_rc in local.values():
        for rc, providers in by_rc.items():
            providers -= shared.get(rc, set())
    return local, shared


def _home_root(candidate: ac.Candidate,
               summaries: Mapping[str, ac.ProviderSummary]) -> str:
    """The tree a candidate lands in: that of its non-sharing providers."""
    providers = candidate.providers()
    for uuid in providers:
        summary = summaries.get(uuid)
        if summary is None or not summary.sharing:
            return _root(uuid, summaries)
    return _root(providers[0], summaries)


def _root(uuid: str, summaries: Mapping[str, ac.ProviderSummary]) -> str:
    summary = summaries.get(uuid)
    return summary.root_provider_uuid if summary else uuid


def _units_counter(summaries: Mapping[str, ac.ProviderSummary],
                   resources: Mapping[str, int]
                   ) -> Callable[[str, str], int]:
    def units(provider: str, rc: str) -> int:
        summary = summaries.get(provider)
        usage = summary.resources.get(rc) if summary else None
        return usage.free // resources[rc] if usage else 0
    return units
