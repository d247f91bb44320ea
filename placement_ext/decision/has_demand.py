"""What one demand of a HAS template asks: its selection request
without candidates, and its narrowing of the candidate regions as HAS's
A&AI plugin narrows them (``region``, ``complex``, ``excluded`` and
``required`` candidates, ``filtering_attributes``, attribute
constraints). Pure.
"""

import dataclasses
from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext.decision import has_constraints
from placement_ext.decision import has_hpa
from placement_ext.decision import homing

# HAS's match_inventory_attributes skips these (they select services)
_SERVICE_ATTRIBUTES = ('service-type', 'equipment-role',
                       'model-invariant-id', 'model-version-id')
DEFAULT_POLICY = {'content': {'cloud-cost-evaluation': False,
                              'cloud-deployment-intent': {}}}


@dataclasses.dataclass
class DemandRequest:
    """What one demand asks: a selection request without candidates."""

    name: str
    service_resource_id: str | None = None
    policy: dict = dataclasses.field(
        default_factory=lambda: dict(DEFAULT_POLICY))
    demand: dict = dataclasses.field(default_factory=dict)
    customer_location: dict | None = None
    max_distance_km: float | None = None
    weights: dict = dataclasses.field(
        default_factory=lambda: {'distance': 0.0, 'cost': 0.0})
    candidate_filter: 'CandidateFilter' = dataclasses.field(
        default_factory=lambda: CandidateFilter())
    passthrough_attributes: dict = dataclasses.field(default_factory=dict)
    # the VNFCs of its hpa constraints, and the weight of hpa_score
    hpa: tuple[has_hpa.Vnfc, ...] = ()
    hpa_weight: float = 0.0

    @property
    def sized(self) -> bool:
        """Whether the demand asks a size or flavor (its capacity is
        checked); HAS solves a cloud demand without ``vim_fit``."""
        return 'vcpus' in self.demand or 'flavor' in self.demand

    def hpa_split(self, candidates: Sequence[Mapping]
                  ) -> tuple[list[Mapping], list[homing.Dropped],
                             dict[str, has_hpa.RegionMatch]]:
        """(kept candidates, dropped ones, region name -> its flavors)
        by the demand's hpa constraints (all kept when it has none)."""
        if not self.hpa:
            return list(candidates), [], {}
        kept, dropped, matches = [], [], {}
        for candidate in candidates:
            region = homing.Region.from_dict(candidate)
            found = has_hpa.match_region(self.hpa, candidate.get('flavors'))
            if isinstance(found, str):
                dropped.append(homing.Dropped(region, found))
            else:
                kept.append(candidate)
                matches[region.name] = found
        return kept, dropped, matches

    def selection_request(self, candidates: list[dict]) -> dict:
        """The ``schemas.homing.SELECTION_REQUEST`` of this demand."""
        request = {
            'policy': self.policy, 'candidates': candidates,
            'customer_location': self.customer_location or
            {'latitude': 0.0, 'longitude': 0.0},
            'weights': self.weights, 'demand': self.demand}
        if self.max_distance_km is not None:
            request['max_distance_km'] = self.max_distance_km
        return request


@dataclasses.dataclass(frozen=True)
class CandidateFilter:
    """A demand's narrowing of the candidate regions, as HAS's A&AI
    plugin does it (``resolve_demands``): ``region`` and ``complex``
    (region id and CLLI), ``excluded`` / ``required`` region ids, and
    ``attributes`` (``filtering_attributes``)."""

    region: str | None = None
    complex: str | None = None
    excluded: frozenset[str] = frozenset()
    required: frozenset[str] | None = None
    attributes: Mapping = dataclasses.field(default_factory=dict)
    # of the attribute constraints on the demand
    rules: tuple[has_constraints.AttributeRule, ...] = ()

    def reason(self, region: Mapping) -> str | None:
        """Why the candidate ``region`` (a regions file entry) is
        dropped, or None when it is kept."""
        region_id = region['region_id']
        if self.region and region_id != self.region:
            return f'not the region {self.region!r} the demand asks'
        if self.complex and region.get('physical_location_id') != \
                self.complex:
            return f'not in the complex {self.complex!r} the demand asks'
        if region_id in self.excluded:
            return 'excluded by the demand (excluded_candidates)'
        if self.required is not None and region_id not in self.required:
            return 'not one of the demand\'s required_candidates'
        for rule in self.rules:
            reason = rule.reason(region)
            if reason:
                return reason
        return _attributes_mismatch(self.attributes, _attributes_of(region))

    def split(self, candidates: Sequence[Mapping]
              ) -> tuple[list[Mapping], list[homing.Dropped]]:
        """(kept candidates, dropped ones with their reason)."""
        kept, dropped = [], []
        for region in candidates:
            reason = self.reason(region)
            if reason is None:
                kept.append(region)
            else:
                dropped.append(homing.Dropped(homing.Region.from_dict(region),
                                              reason))
        return kept, dropped


def _attributes_of(region: Mapping) -> dict:
    """A region's attributes as HAS names them for a cloud candidate."""
    names = {'cloud-owner': 'cloud_owner',
             'cloud-region-version': 'cloud_region_version',
             'cloud-type': 'cloud_type', 'cloud-zone': 'cloud_zone',
             'complex-name': 'complex_name',
             'physical-location-id': 'physical_location_id'}
    return {name: region.get(key) for name, key in names.items()}


def _attributes_mismatch(wanted: Mapping, attributes: Mapping) -> str | None:
    """HAS's ``match_inventory_attributes``: a value list (or ``{"any":
    [...]}``) the attribute must be in, ``{"not": [...]}`` it must not."""
    for key, values in wanted.items():
        if key in _SERVICE_ATTRIBUTES:
            continue
        match = 'any'
        if isinstance(values, Mapping):
            match = 'not' if 'not' in values else 'any'
            values = values.get(match, [])
        values = values if isinstance(values, list) else [values]
        value = attributes.get(key)
        if match == 'any' and (key not in attributes or (
                values and value and value not in values)):
            return (f'filtering_attributes: {key} is {value!r}, not one of '
                    f'{values}' if key in attributes else
                    f'filtering_attributes: a cloud region has no {key}')
        if match == 'not' and value and value in values:
            return f'filtering_attributes: {key} is {value!r}'
    return None
