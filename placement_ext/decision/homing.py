"""Cloud selection (homing): which candidate region hosts a VNFC.

Pure: the policy, the candidates and the operator's costs come in as
data; capacity comes from a callback the caller backs with Placement and
Nova (or a cache), asked only for regions every cheaper check kept.

Order, cheapest first as ONAP HAS ranks its constraints:

1. the policy's cloud types and VIM ids;
2. the cloud type must realise every intent (HA, resource isolation);
3. the great-circle distance to the customer, when a limit is given;
4. capacity (the callback): a private region must fit ``count``
   instances within both free capacity and the tenant's quota; a public
   one passes or is dropped, as the operator configured;
5. rank by ``wd * distance_km + wc * cost``; ``wc`` counts only when the
   policy asks for cost evaluation. Ties go to the nearer region, then
   the cheaper, then the name, so the answer never depends on input
   order.

Every dropped region keeps the reason it was dropped.

Over 400 lines as one module on purpose: the five steps share the
candidate and reason types, and reading them in order is the ranking.

Longer than 400 lines on purpose: the intent, the cost model and the
ranking are read from one policy and one cost file, and each check
explains itself with the others' data.
"""

import dataclasses
import math
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext import exception
from placement_ext.schemas import homing as schema

EARTH_RADIUS_KM = 6371.0  # mean radius, as ONAP HAS's haversine

# Names of the cost file's feature groups (``feature_groups[].feature``)
# an intent asks for; not the policy's intent keys in ``schemas.homing``.
HIGH_AVAILABILITY_FEATURE = 'high_availability'
GUARANTEED_QOS_FEATURE = 'guaranteed_qos'
BURSTABLE_QOS_FEATURE = 'burstable_qos'
_ISOLATION_FEATURE = {schema.GUARANTEED_QOS: GUARANTEED_QOS_FEATURE,
                      schema.BURSTABLE_QOS: BURSTABLE_QOS_FEATURE}


@dataclasses.dataclass(frozen=True)
class Intent:
    """A cloud selection policy's content, checked."""

    cost_evaluation: bool
    vnfc: str | None = None
    cloud_types: frozenset[str] | None = None   # None: any
    vim_ids: frozenset[str] | None = None        # None: any
    high_availability: bool = False
    isolation: str | None = None                 # schema.*_QOS
    oversubscription: int | None = None          # percent, Burstable only

    @property
    def features(self) -> tuple[str, ...]:
        """The feature groups this intent needs a cloud to realise."""
        features = ((HIGH_AVAILABILITY_FEATURE,) if self.high_availability
                    else ())
        if self.isolation:
            features += (_ISOLATION_FEATURE[self.isolation],)
        return features


def parse_intent(policy: Mapping, allowed_percentages: Iterable[int]
                 ) -> Intent:
    """The intent of a policy already valid against
    ``schemas.homing.CLOUD_SELECTION_POLICY``.

    :raises InvalidInput: Burstable QoS without a percentage, a
        percentage without Burstable QoS, or one the operator does not
        allow.
    """
    content = policy['content']
    wanted = content['cloud-deployment-intent']
    isolation = wanted.get(schema.ISOLATION)
    percent = wanted.get(schema.OVERSUBSCRIPTION)
    field = f'content.cloud-deployment-intent.{schema.OVERSUBSCRIPTION}'
    if isolation == schema.BURSTABLE_QOS:
        allowed = sorted(set(allowed_percentages))
        if percent is None:
            raise exception.InvalidInput(
                field=field, reason='is required with Burstable QoS')
        if percent not in allowed:
            raise exception.InvalidInput(
                field=field,
                reason=f'{percent} is not one of the percentages the '
                       f'operator allows ([homing] '
                       f'oversubscription_percentages): '
                       f'{", ".join(map(str, allowed)) or "none"}')
    elif percent is not None:
        raise exception.InvalidInput(
            field=field, reason='is only allowed with Burstable QoS')
    return Intent(
        cost_evaluation=content['cloud-cost-evaluation'],
        vnfc=content.get('vnfc'),
        cloud_types=_optional_set(wanted.get(schema.CLOUD_TYPES)),
        vim_ids=_optional_set(wanted.get(schema.VIM_IDS)),
        high_availability=wanted.get(schema.HIGH_AVAILABILITY, False),
        isolation=isolation, oversubscription=percent)


def _optional_set(values: Sequence[str] | None) -> frozenset[str] | None:
    return frozenset(values) if values else None


_AAI_FIELDS = ('physical_location_id', 'cloud_region_version', 'cloud_zone',
               'complex_name')


@dataclasses.dataclass(frozen=True, slots=True)
class Region:
    """A candidate cloud region (ONAP: a cloud candidate from A&AI).

    ``vim_id`` is ``<cloud-owner>_<cloud-region-id>``, as ONAP names a
    VIM; ``name``, unique among candidates, adds the zone if any. Both
    are computed once: a selection reads them several times per region.
    """

    cloud_owner: str
    region_id: str
    cloud_type: str
    latitude: float
    longitude: float
    availability_zone: str | None = None
    project: str | None = None
    # A&AI's cloud-region fields (HAS hands them to SO)
    physical_location_id: str | None = None
    cloud_region_version: str | None = None
    cloud_zone: str | None = None
    complex_name: str | None = None
    vim_id: str = dataclasses.field(init=False, compare=False, repr=False)
    name: str = dataclasses.field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        vim_id = f'{self.cloud_owner}_{self.region_id}'
        zone = self.availability_zone
        object.__setattr__(self, 'vim_id', vim_id)
        object.__setattr__(self, 'name',
                           f'{vim_id}/{zone}' if zone else vim_id)

    @classmethod
    def from_dict(cls, data: Mapping) -> 'Region':
        return cls(data['cloud_owner'], data['region_id'],
                   data['cloud_type'], data['latitude'], data['longitude'],
                   data.get('availability_zone'), data.get('project'),
                   **{key: data.get(key) for key in _AAI_FIELDS})

    def to_dict(self) -> dict:
        data = {'name': self.name, 'vim_id': self.vim_id,
                'cloud_owner': self.cloud_owner,
                'region_id': self.region_id, 'cloud_type': self.cloud_type,
                'latitude': self.latitude, 'longitude': self.longitude}
        if self.availability_zone is not None:
            data['availability_zone'] = self.availability_zone
        if self.project is not None:
            data['project'] = self.project
        for key in _AAI_FIELDS:
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


@dataclasses.dataclass(frozen=True)
class Capabilities:
    """Which cloud types realise which intent feature ([homing])."""

    high_availability: frozenset[str]
    isolation: frozenset[str]

    def missing(self, intent: Intent, cloud_type: str) -> list[str]:
        """The intents ``cloud_type`` cannot realise."""
        missing = []
        if intent.high_availability and \
                cloud_type not in self.high_availability:
            missing.append(schema.HIGH_AVAILABILITY)
        if intent.isolation and cloud_type not in self.isolation:
            missing.append(f'{schema.ISOLATION} ({intent.isolation})')
        return missing


def great_circle_km(lat1: float, lon1: float, lat2: float, lon2: float
                    ) -> float:
    """Haversine distance on a sphere of the Earth's mean radius."""
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi = phi2 - phi1
    dlambda = math.radians(lon2 - lon1)
    h = (math.sin(dphi / 2) ** 2
         + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2)
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


@dataclasses.dataclass(frozen=True, slots=True)
class Cost:
    amount: float
    basis: str  # how it was computed, for the answer's reasons


@dataclasses.dataclass(frozen=True)
class CostModel:
    """The operator's workload deployment costs (``[homing] cost_file``,
    schema ``schemas.homing.COST_CONFIG``).

    A region costs its instance type's price there, when the instance
    type (mapped from <service, vnfc, cloud owner>) has one, else its
    cloud type's fixed cost, else ``default``; plus the cost (or
    discount) of each feature group the intent needs.
    """

    default: float = 0.0
    cloud_types: Mapping[str, float] = dataclasses.field(
        default_factory=dict)
    instance_types: Sequence[Mapping] = ()
    instance_costs: Mapping[tuple[str, str, str], float] = \
        dataclasses.field(default_factory=dict)
    feature_groups: Sequence[Mapping] = ()

    @classmethod
    def from_document(cls, document: Mapping, default: float = 0.0
                      ) -> 'CostModel':
        return cls(
            default=default,
            cloud_types=dict(document.get('cloud_types', {})),
            instance_types=tuple(document.get('instance_types', ())),
            instance_costs={
                (row['cloud_owner'], row['region_id'],
                 row['instance_type']): row['cost']
                for row in document.get('instance_costs', ())},
            feature_groups=tuple(document.get('feature_groups', ())))

    def instance_type(self, cloud_owner: str, service: str | None,
                      vnfc: str | None) -> str | None:
        """The most specific mapping for this owner, service and VNFC."""
        best, best_score = None, -1
        for row in self.instance_types:
            if row['cloud_owner'] != cloud_owner:
                continue
            if any(row.get(key) not in (None, value)
                   for key, value in (('service', service), ('vnfc', vnfc))):
                continue
            score = sum(row.get(key) is not None for key in ('service',
                                                             'vnfc'))
            if score > best_score:
                best, best_score = row['instance_type'], score
        return best

    def cost(self, region: Region, intent: Intent, *,
             service: str | None = None,
             instance_type: str | None = None) -> Cost:
        instance_type = instance_type or self.instance_type(
            region.cloud_owner, service, intent.vnfc)
        key = (region.cloud_owner, region.region_id, instance_type)
        if instance_type and key in self.instance_costs:
            amount = self.instance_costs[key]
            basis = f'instance type {instance_type} costs {amount:g}'
        elif region.cloud_type in self.cloud_types:
            amount = self.cloud_types[region.cloud_type]
            basis = f'cloud type {region.cloud_type} costs {amount:g}'
        else:
            amount = self.default
            basis = f'default cost {amount:g}'
        for row in self.feature_groups:
            if row['feature'] in intent.features and \
                    row.get('cloud_type', region.cloud_type) == \
                    region.cloud_type:
                amount += row['cost']
                basis += f', {row["feature"]} {row["cost"]:+g}'
        return Cost(amount, basis)


@dataclasses.dataclass(frozen=True, slots=True)
class Capacity:
    """How many instances of the demand fit in a region, and how we know.

    ``instances`` None means unknown (a region that could not be read);
    ``unlimited`` is a public cloud taken to have room.
    """

    instances: int | None
    basis: str
    unlimited: bool = False

    def fits(self, count: int) -> bool:
        return self.unlimited or (self.instances or 0) >= count


@dataclasses.dataclass(frozen=True)
class Weights:
    distance: float = 1.0
    cost: float = 1.0


@dataclasses.dataclass(frozen=True, slots=True)
class Ranked:
    region: Region
    distance_km: float
    cost: Cost | None  # None: the policy does not evaluate cost
    value: float
    capacity: Capacity

    def to_dict(self) -> dict:
        data = {'region': self.region.to_dict(),
                'distance_km': round(self.distance_km, 3),
                'value': round(self.value, 3),
                'capacity': self.capacity.basis}
        if self.cost is not None:
            data.update(cost=self.cost.amount, cost_basis=self.cost.basis)
        return data


@dataclasses.dataclass(frozen=True, slots=True)
class Dropped:
    region: Region
    reason: str

    def to_dict(self) -> dict:
        return {'region': self.region.name, 'reason': self.reason}


@dataclasses.dataclass(frozen=True)
class Selection:
    ranked: tuple[Ranked, ...]     # best first
    dropped: tuple[Dropped, ...]   # in the candidates' order

    @property
    def best(self) -> Ranked | None:
        return self.ranked[0] if self.ranked else None

    def to_dict(self, ranking_size: int | None = None) -> dict:
        """The best region, the first ``ranking_size`` of the ranking
        (all when None) and every dropped region with its reason."""
        best = self.best
        return {'selected': best.to_dict() if best else None,
                'ranked': [entry.to_dict()
                           for entry in self.ranked[:ranking_size]],
                'ranked_total': len(self.ranked),
                'dropped': [entry.to_dict() for entry in self.dropped]}

    def require_best(self) -> Ranked:
        """:raises NoRegion: naming why every candidate was dropped."""
        if self.best is None:
            reasons = '; '.join(f'{d.region.name}: {d.reason}'
                                for d in self.dropped)
            raise exception.NoRegion(reason=reasons or 'no candidates')
        return self.best


@dataclasses.dataclass(frozen=True)
class Demand:
    count: int = 1
    service: str | None = None
    instance_type: str | None = None


def select(intent: Intent, candidates: Sequence[Region], *,
           customer: tuple[float, float], demand: Demand,
           capabilities: Capabilities, costs: CostModel,
           capacity: Callable[[Region], Capacity],
           weights: Weights = Weights(),
           max_distance_km: float | None = None,
           bonus: Callable[[Region], float] | None = None) -> Selection:
    """Rank the candidates that pass every check; see the module doc.

    :param bonus: taken off a region's value (HAS's ``hpa_score``).
    """
    _refuse_duplicates(candidates)
    ranked, dropped = [], []
    # zones of one region share its policy verdict and its cost
    policy_reasons, region_costs = {}, {}
    for region in candidates:
        key = (region.cloud_owner, region.region_id, region.cloud_type)
        if key not in policy_reasons:
            policy_reasons[key] = _policy_reason(intent, region,
                                                 capabilities)
        reason = policy_reasons[key]
        if reason is not None:
            dropped.append(Dropped(region, reason))
            continue
        distance = great_circle_km(*customer, region.latitude,
                                   region.longitude)
        reason = _distance_reason(distance, max_distance_km)
        room = None
        if reason is None:
            room = capacity(region)
            if not room.fits(demand.count):
                reason = (f'capacity: {demand.count} instance(s) needed, '
                          f'{room.basis}')
        if reason is not None:
            dropped.append(Dropped(region, reason))
            continue
        cost = None
        if intent.cost_evaluation:
            if key not in region_costs:
                region_costs[key] = costs.cost(
                    region, intent, service=demand.service,
                    instance_type=demand.instance_type)
            cost = region_costs[key]
        value = weights.distance * distance + \
            (weights.cost * cost.amount if cost else 0.0) - \
            (bonus(region) if bonus else 0.0)
        ranked.append(Ranked(region, distance, cost, value, room))
    ranked.sort(key=lambda r: (r.value, r.distance_km,
                               r.cost.amount if r.cost else 0.0,
                               r.region.name))
    return Selection(tuple(ranked), tuple(dropped))


def _refuse_duplicates(candidates: Sequence[Region]) -> None:
    seen = set()
    for index, region in enumerate(candidates):
        if region.name in seen:
            raise exception.InvalidInput(
                field=f'candidates[{index}]',
                reason=f'{region.name} is listed twice')
        seen.add(region.name)


def _policy_reason(intent: Intent, region: Region,
                   capabilities: Capabilities) -> str | None:
    if intent.vim_ids is not None and region.vim_id not in intent.vim_ids:
        return (f'VIM id {region.vim_id} is not in the policy\'s '
                f'{schema.VIM_IDS}')
    if intent.cloud_types is not None and \
            region.cloud_type not in intent.cloud_types:
        return (f'cloud type {region.cloud_type} is not in the policy\'s '
                f'{schema.CLOUD_TYPES}')
    missing = capabilities.missing(intent, region.cloud_type)
    if missing:
        return (f'cloud type {region.cloud_type} cannot realise '
                f'{" and ".join(missing)}')
    return None


def _distance_reason(distance: float, limit: float | None) -> str | None:
    if limit is not None and distance > limit:
        return (f'{distance:.1f} km from the customer, more than the '
                f'{limit:g} km allowed')
    return None


def instances_within_quota(usage: Mapping[str, tuple[int, int]],
                           vcpus: int, ram: int) -> int | None:
    """How many more instances of ``vcpus`` and ``ram`` (MB) a compute
    quota allows, from ``{"cores"|"ram"|"instances": (limit, used)}``;
    None when no limit applies (every limit is -1)."""
    need = {'cores': vcpus, 'ram': ram, 'instances': 1}
    bounds = [max(0, (limit - used) // need[name])
              for name, (limit, used) in usage.items()
              if need.get(name) and limit >= 0]
    return min(bounds) if bounds else None
