"""Our selections written back as HAS recommendations. Pure.

A recommendation carries HAS's candidate and attributes, so that OSDF
hands SO what HAS would; how we chose the region is under
``selection``, which OSDF does not read.
"""

from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext.decision import has_constraints
from placement_ext.decision import has_demand
from placement_ext.decision import has_hpa
from placement_ext.decision import homing

INVENTORY_PROVIDER = 'placement_ext'


def recommendations(solved: Sequence[tuple[has_demand.DemandRequest,
                                           homing.Selection]],
                    limit: int,
                    zones: Sequence[has_constraints.ZoneRule] = (),
                    hpa: Mapping[str, Mapping[str, has_hpa.RegionMatch]]
                    | None = None) -> list[dict]:
    """Up to ``limit`` solutions. Without zone constraints solution k
    takes each demand's k-th ranked region (demands are independent:
    each is exact); with some, the first combinations they allow
    (:func:`has_constraints.combine`).

    :param hpa: demand -> region name -> the region's flavors for the
        demand's hpa constraints.
    """
    def recommend(request: has_demand.DemandRequest,
                  ranked: homing.Ranked) -> dict:
        return _recommendation(request, ranked, (hpa or {}).get(
            request.name, {}).get(ranked.region.name))

    if zones:
        requests = {request.name: request for request, _ in solved}
        combinations = has_constraints.combine(
            [(request.name, selection.ranked)
             for request, selection in solved], zones, limit)
        return [{name: recommend(requests[name], ranked)
                 for name, ranked in combination.items()}
                for combination in combinations]
    depth = min((len(selection.ranked) for _, selection in solved),
                default=0)
    return [{request.name: recommend(request, selection.ranked[k])
             for request, selection in solved}
            for k in range(min(limit, depth))]


def _recommendation(request: has_demand.DemandRequest,
                    ranked: homing.Ranked,
                    flavors: has_hpa.RegionMatch | None = None) -> dict:
    """A recommendation with HAS's candidate and attributes (HAS's
    solver service, ``solution`` of ``conductor/solver/service.py``), so
    OSDF's response processor hands SO the region (``cloudRegionId``),
    owner, CLLI (``cloudClli``) and version HAS would; how we chose it is
    under ``selection``, which OSDF does not read."""
    region = ranked.region
    candidate = {'candidate_id': region.region_id, 'inventory_type': 'cloud',
                 'cloud_owner': region.cloud_owner,
                 # HAS's location type of every cloud region
                 'location_type': 'att_aic',
                 # HAS leaves it empty for 2.5 regions
                 'location_id': '' if region.cloud_region_version == '2.5'
                 else region.region_id,
                 # no rehoming: never a "speed changed" request here
                 'is_rehome': 'false', 'vim-id': region.vim_id}
    if region.availability_zone:
        candidate['availability_zone'] = region.availability_zone
    attributes = {'physical-location-id': region.physical_location_id,
                  'cloud_owner': region.cloud_owner,
                  'aic_version': region.cloud_region_version}
    for key, value in request.passthrough_attributes.items():
        attributes.setdefault(key, value)  # HAS keeps its own on a clash
    selection = {'cloud_type': region.cloud_type,
                 'distance_km': round(ranked.distance_km, 3),
                 'net_value': round(ranked.value, 3),
                 'capacity': ranked.capacity.basis}
    if ranked.cost is not None:
        selection['cost'] = ranked.cost.amount
    if flavors is not None:
        # HAS's: the flavor directives filled in with the flavors
        attributes['directives'] = flavors.directives()
        selection.update(flavor_map=flavors.flavor_map,
                         hpa_score=flavors.score)
    return {'inventory_provider': INVENTORY_PROVIDER,
            'service_resource_id': request.service_resource_id or '',
            'candidate': candidate, 'attributes': attributes,
            'selection': selection}
