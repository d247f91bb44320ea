"""Placement driver: allocation candidates and the targeted queries on them.

When the target is already known (one host for a reservation, the same
host for heal or rebuild, a host named by the operator, the hosts of one
zone) the request says so with ``in_tree`` or ``member_of``, and Placement
only searches that tree or aggregate instead of every provider: the
targeted query stays flat as the cloud grows, the unfiltered one grows with
it (figures in benchmarks/results/in_tree.rst, by benchmarks/bench_in_tree.py).

Placement answers an ``in_tree`` UUID that does not exist with an empty
list, the same as a full host. When a targeted query comes back empty
this driver asks whether the providers exist, and raises ``NotFound`` for
one that does not.
"""

import dataclasses
from collections.abc import Mapping
from collections.abc import Sequence

from oslo_config import cfg

from placement_ext import exception
from placement_ext.drivers.placement import candidates as ac
from placement_ext.drivers.placement import capacity
from placement_ext.drivers.placement import client as pclient
from placement_ext.drivers.placement import reservation

ROUTE = '/allocation_candidates'
V_PROVIDER = (1, 14)    # GET /resource_providers/{uuid} with parent/root


@dataclasses.dataclass(frozen=True)
class ZoneCapacity:
    """How many copies of a flavor fit in a zone, and on which trees."""

    total: int
    per_tree: Mapping[str, int]


class PlacementDriver:
    """Reads allocation candidates and manages reservation providers."""

    def __init__(self, client: pclient.PlacementClient) -> None:
        self.client = client
        self.reservations = reservation.ReservationProviders(client)

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts, group: str = 'placement'
                  ) -> 'PlacementDriver':
        return cls(pclient.PlacementClient.from_conf(conf, group))

    def allocation_candidates(
            self, request: ac.AllocationCandidatesRequest, *,
            microversion: str | None = None) -> ac.AllocationCandidates:
        """GET /allocation_candidates for a checked request.

        :param microversion: ask for this one instead of the highest the
            server and this client share.
        :raises InvalidInput: the request is malformed, or needs a later
            microversion than ``microversion``.
        :raises PlacementTooOld: the server lacks a feature it uses.
        :raises NotFound: no candidates, and an ``in_tree`` provider does
            not exist.
        """
        request.validate()
        version = self._version_for(request, microversion)
        resp = self.client.request('GET', ROUTE, what=ROUTE,
                                   microversion=version,
                                   params=request.to_params())
        result = ac.AllocationCandidates.from_json(
            resp.json(), pclient.version_string(version))
        if not result.candidates:
            for uuid in request.in_tree_uuids():
                self.provider(uuid)
        return result

    def _version_for(self, request: ac.AllocationCandidatesRequest,
                     microversion: str | None) -> pclient.Version:
        needs = request.required_versions()
        if microversion is None:
            for version, field in needs:
                self.client.require(version, f'GET {ROUTE} with {field}')
            return self.client.max_version
        version = pclient.parse_version(microversion)
        for needed, field in needs:
            if version < needed:
                raise exception.InvalidInput(
                    field=field,
                    reason=f'needs microversion '
                           f'{pclient.version_string(needed)} or later, '
                           f'{microversion} was asked')
        self.client.require(version, f'GET {ROUTE} at {microversion}')
        return version

    def provider(self, uuid: str) -> dict:
        """GET /resource_providers/{uuid}; NotFound if it does not exist."""
        return self.client.request(
            'GET', f'/resource_providers/{uuid}',
            what='/resource_providers/{uuid}', microversion=V_PROVIDER,
            kind='resource provider', id=uuid).json()

    # -- targeted queries ---------------------------------------------------

    def candidates_on_host(self, provider_uuid: str,
                           resources: Mapping[str, int], *,
                           required: Sequence[str] = (),
                           limit: int | None = None
                           ) -> ac.AllocationCandidates:
        """Candidates inside the tree of ``provider_uuid`` only.

        For a host already chosen: heal or rebuild on the same host, or a
        host named by the operator. ``provider_uuid`` may be any provider
        of the tree (a NUMA child gives the same answer as its root).
        Sharing providers outside the tree are not offered.
        """
        group = ac.RequestGroup(resources=resources, required=required,
                                in_tree=provider_uuid)
        return self.allocation_candidates(
            ac.AllocationCandidatesRequest(group=group, limit=limit))

    def capacity_on_host(self, provider_uuid: str,
                         resources: Mapping[str, int], *,
                         required: Sequence[str] = ()) -> int:
        """How many copies of ``resources`` fit in one host's tree now."""
        result = self.candidates_on_host(provider_uuid, resources,
                                         required=required)
        return sum(capacity.instances_per_tree(result, resources).values())

    def zone_capacity(self, aggregate_uuids: str | Sequence[str],
                      resources: Mapping[str, int], *,
                      required: Sequence[str] = ()) -> ZoneCapacity:
        """How many copies fit on the hosts of a zone's aggregate(s).

        A provider qualifies when it or its root is in one of the
        aggregates (Nova puts the compute node, the root, in the zone's
        aggregate). No ``limit``: every tree must be seen to be counted.
        """
        if isinstance(aggregate_uuids, str):
            aggregate_uuids = [aggregate_uuids]
        return self._capacity(ac.RequestGroup(
            resources=resources, required=required,
            member_of=[tuple(aggregate_uuids)]))

    def zone_hosts(self, aggregate_uuids: Sequence[str],
                   resources: Mapping[str, int]
                   ) -> dict[str, dict[str, int]]:
        """Root provider -> what it can still take (resource class ->
        amount), for the hosts of a zone's aggregates that can take at
        least ``resources``."""
        result = self.allocation_candidates(ac.AllocationCandidatesRequest(
            group=ac.RequestGroup(resources=resources,
                                  member_of=[tuple(aggregate_uuids)])))
        return {uuid: {rc: usage.free
                       for rc, usage in summary.resources.items()}
                for uuid, summary in result.provider_summaries.items()
                if summary.parent_provider_uuid is None}

    def cloud_capacity(self, resources: Mapping[str, int], *,
                       required: Sequence[str] = ()) -> ZoneCapacity:
        """How many copies fit on every host Placement knows."""
        return self._capacity(ac.RequestGroup(resources=resources,
                                              required=required))

    def _capacity(self, group: ac.RequestGroup) -> ZoneCapacity:
        result = self.allocation_candidates(
            ac.AllocationCandidatesRequest(group=group))
        per_tree = capacity.instances_per_tree(result, group.resources)
        return ZoneCapacity(sum(per_tree.values()), per_tree)
