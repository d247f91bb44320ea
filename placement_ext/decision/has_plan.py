"""ONAP OOF-HAS homing templates, translated to our selection requests,
and our selections written back as HAS recommendations.

Pure. What is read from a HAS template (``homing_template_version`` one
of HAS's: 2016-11-01, 2017-10-10, 2018-02-01, and 2020-08-13 for the
objective form; any other is refused by name):

- ``parameters`` and ``{"get_param": NAME}`` anywhere below;
- ``locations``: ``latitude`` / ``longitude`` of named places;
- ``demands``: one selection per demand, of ``inventory_type: cloud``,
  its candidates narrowed as HAS does by ``region`` and ``complex``
  (region id, CLLI), ``excluded_candidates`` / ``required_candidates``
  (``[{"inventory_type": "cloud", "candidate_id": [region ids]}]``) and
  ``filtering_attributes`` (over a region's ``cloud-owner``,
  ``cloud-region-version``, ``cloud-type``, ``cloud-zone``,
  ``complex-name``, ``physical-location-id``); ``passthrough_attributes``
  are copied to the recommendation's attributes; a demand with no size
  (no ``vim_fit``) has its capacity left unchecked, as HAS does;
- constraints ``zone`` and ``attribute``: see ``decision.has_constraints``;
- constraints ``distance_to_location`` (``"< 100 km"``: a limit),
  ``vim_fit`` (``request: {vCPU, Memory, Storage}``: one instance of
  that size must fit, plus our optional ``count``) and, our extension,
  ``cloud_selection_policy`` (``properties.policy``: ONAP OOF's policy;
  optional ``flavor`` and ``count``);
- ``optimization``: ``minimize`` a ``sum`` of ``distance_between`` and
  our ``cloud_cost`` terms, bare or in ``product`` with a weight.

Anything else (``reservation``, ``hpa`` constraints, the ``hpa_score``
function, demand keys such as ``conflict_identifier``...) is refused
by name, never silently ignored: a plan we cannot honour must not be
answered as if we had.

Over 400 lines as one module on purpose: it is the whole mapping of ONAP
HAS's plan language onto our homing request, and the list of what it
refuses must sit beside what it accepts.
"""

import dataclasses
import math
import re
from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext import exception
from placement_ext.decision import has_constraints
from placement_ext.decision import homing

SUPPORTED_CONSTRAINTS = ('distance_to_location', 'vim_fit',
                         'cloud_selection_policy', 'zone', 'attribute')
_DISTANCE = re.compile(r'^\s*(<=?)\s*([0-9]+(?:\.[0-9]+)?)\s*(km|mi)?\s*$')
_KM_PER_MILE = 1.609344
_MB_PER = {'MB': 1, 'GB': 1024, 'TB': 1024 * 1024}
_GB_PER = {'GB': 1, 'TB': 1024}
# conductor/controller/translator_utils.py VERSIONS of onap/optf-has
HAS_VERSIONS = ('2016-11-01', '2017-10-10', '2018-02-01', '2020-08-13')
TEMPLATE_KEYS = ('homing_template_version', 'parameters', 'locations',
                 'demands', 'constraints', 'optimization')
# service_* and customer_id only select A&AI service instances in HAS:
# a cloud demand ignores them there too
DEMAND_KEYS = ('inventory_provider', 'inventory_type', 'service_type',
               'service_id', 'customer_id', 'service_resource_id',
               'region', 'complex', 'excluded_candidates',
               'required_candidates', 'filtering_attributes',
               'passthrough_attributes')
# HAS's match_inventory_attributes skips these (they select services)
_SERVICE_ATTRIBUTES = ('service-type', 'equipment-role',
                       'model-invariant-id', 'model-version-id')
_NO_HPA = ('is not supported: HPA (flavors matched by hardware platform '
           'features, the matched flavor\'s capacity checked in Placement, '
           'hpa_score) is not built here; home the demand with vim_fit or '
           'a cloud_selection_policy flavor')
DEFAULT_POLICY = {'content': {'cloud-cost-evaluation': False,
                              'cloud-deployment-intent': {}}}
INVENTORY_PROVIDER = 'placement_ext'


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

    @property
    def sized(self) -> bool:
        """Whether the demand asks a size or flavor (its capacity is
        checked); HAS solves a cloud demand without ``vim_fit``."""
        return 'vcpus' in self.demand or 'flavor' in self.demand

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


@dataclasses.dataclass
class Translation:
    """A template's demands (iterating over it gives them) and its zone
    constraints, which tie demands together."""

    requests: list[DemandRequest]
    zones: list[has_constraints.ZoneRule]

    def __iter__(self):  # noqa: ANN204 (an iterator of DemandRequest)
        return iter(self.requests)

    def __len__(self) -> int:
        return len(self.requests)


def check_demand_count(template: object, limit: int) -> None:
    """Refuse a template of more than ``limit`` demands (``[homing]
    max_plan_demands``), before any work on it.

    :raises InvalidInput: naming ``template.demands``.
    """
    demands = template.get('demands') if isinstance(template, Mapping) \
        else None
    if isinstance(demands, Mapping) and len(demands) > limit:
        raise exception.InvalidInput(
            field='template.demands',
            reason=f'has {len(demands)} demands; a plan may have at most '
                   f'{limit} ([homing] max_plan_demands)')


def translate(template: Mapping) -> Translation:
    """One request per demand of a HAS ``template``, and its zone
    constraints.

    :raises InvalidInput: naming the template field and the reason.
    """
    _check_version(template)
    unknown = [key for key in template if key not in TEMPLATE_KEYS]
    if unknown == ['reservation']:
        raise exception.InvalidInput(
            field='template.reservation',
            reason='is not supported: no reservation or order locking '
                   'here')
    if unknown:
        raise has_constraints.unsupported(f'template.{unknown[0]}',
                                          TEMPLATE_KEYS)
    params = _mapping(template.get('parameters', {}), 'template.parameters')
    resolve = _Resolver(params)
    locations = _locations(template.get('locations', {}), resolve)
    demands = _mapping(template.get('demands'), 'template.demands')
    if not demands:
        raise exception.InvalidInput(field='template.demands',
                                     reason='must name at least one demand')
    requests = {name: _demand(name, resolve(entries))
                for name, entries in demands.items()}
    constraints = _mapping(template.get('constraints', {}),
                           'template.constraints')
    zones: list[has_constraints.ZoneRule] = []
    for name, constraint in constraints.items():
        _apply_constraint(name, resolve(constraint), requests, locations,
                          zones)
    _apply_optimization(resolve(template.get('optimization') or {}),
                        requests, locations)
    return Translation(list(requests.values()), zones)


def _check_version(template: Mapping) -> None:
    version = template.get('homing_template_version')
    if version not in HAS_VERSIONS:
        raise exception.InvalidInput(
            field='template.homing_template_version',
            reason=f'{version!r} is not a version HAS accepts: '
                   f'conductor_template_version must be one of: '
                   f'{", ".join(HAS_VERSIONS)}')


def recommendations(solved: Sequence[tuple[DemandRequest, homing.Selection]],
                    limit: int,
                    zones: Sequence[has_constraints.ZoneRule] = ()
                    ) -> list[dict]:
    """Up to ``limit`` solutions. Without zone constraints solution k
    takes each demand's k-th ranked region (demands are independent:
    each is exact); with some, the first combinations they allow
    (:func:`has_constraints.combine`)."""
    if zones:
        requests = {request.name: request for request, _ in solved}
        combinations = has_constraints.combine(
            [(request.name, selection.ranked)
             for request, selection in solved], zones, limit)
        return [{name: _recommendation(requests[name], ranked)
                 for name, ranked in combination.items()}
                for combination in combinations]
    depth = min((len(selection.ranked) for _, selection in solved),
                default=0)
    return [{request.name: _recommendation(request, selection.ranked[k])
             for request, selection in solved}
            for k in range(min(limit, depth))]


def _recommendation(request: DemandRequest, ranked: homing.Ranked) -> dict:
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
    return {'inventory_provider': INVENTORY_PROVIDER,
            'service_resource_id': request.service_resource_id or '',
            'candidate': candidate, 'attributes': attributes,
            'selection': selection}


class _Resolver:
    """Replaces ``{"get_param": NAME}`` by the parameter's value."""

    def __init__(self, params: Mapping) -> None:
        self._params = params

    def __call__(self, value: object, path: str = 'template') -> object:
        if isinstance(value, Mapping):
            if set(value) == {'get_param'}:
                name = value['get_param']
                if not isinstance(name, str) or name not in self._params:
                    raise exception.InvalidInput(
                        field=path, reason=f'get_param {name!r} is not a '
                                           f'parameter of the template')
                return self._params[name]
            return {key: self(item, f'{path}.{key}')
                    for key, item in value.items()}
        if isinstance(value, list):
            return [self(item, f'{path}[{index}]')
                    for index, item in enumerate(value)]
        return value


def _mapping(value: object, field: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise exception.InvalidInput(field=field, reason='must be an object')
    return value


def _number(value: object, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise exception.InvalidInput(field=field, reason='must be a number')
    try:
        return float(value)
    except ValueError:
        raise exception.InvalidInput(
            field=field, reason=f'{value!r} is not a number')


def _locations(raw: object, resolve: _Resolver) -> dict:
    locations = {}
    for name, place in _mapping(raw, 'template.locations').items():
        field = f'template.locations.{name}'
        place = _mapping(resolve(place, field), field)
        latitude = _number(place.get('latitude'), f'{field}.latitude')
        longitude = _number(place.get('longitude'), f'{field}.longitude')
        if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
            raise exception.InvalidInput(
                field=field, reason='latitude must be within -90..90 and '
                                    'longitude within -180..180')
        locations[name] = {'latitude': latitude, 'longitude': longitude}
    return locations


def _demand(name: str, entries: object) -> DemandRequest:
    field = f'template.demands.{name}'
    if not isinstance(entries, list) or len(entries) != 1 or \
            not isinstance(entries[0], Mapping):
        raise exception.InvalidInput(
            field=field, reason='must be a list of exactly one inventory '
                                'entry')
    entry = entries[0]
    field = f'{field}[0]'
    if entry.get('inventory_type', 'cloud') != 'cloud':
        raise exception.InvalidInput(
            field=f'{field}.inventory_type',
            reason=f'{entry.get("inventory_type")!r} is not supported; '
                   f'only cloud regions are homed here')
    unknown = [key for key in entry if key not in DEMAND_KEYS]
    if unknown:
        raise has_constraints.unsupported(f'{field}.{unknown[0]}',
                                          DEMAND_KEYS)
    return DemandRequest(
        name, entry.get('service_resource_id'),
        candidate_filter=CandidateFilter(
            region=_optional_text(entry, 'region', field),
            complex=_optional_text(entry, 'complex', field),
            excluded=frozenset(_candidate_ids(
                entry, 'excluded_candidates', field) or ()),
            required=_candidate_ids(entry, 'required_candidates', field),
            attributes=_mapping(entry.get('filtering_attributes') or {},
                                f'{field}.filtering_attributes')),
        passthrough_attributes=dict(_mapping(
            entry.get('passthrough_attributes') or {},
            f'{field}.passthrough_attributes')))


def _optional_text(entry: Mapping, key: str, field: str) -> str | None:
    value = entry.get(key)
    if value is not None and not isinstance(value, str):
        raise exception.InvalidInput(field=f'{field}.{key}',
                                     reason='must be a string')
    return value or None


def _candidate_ids(entry: Mapping, key: str,
                   field: str) -> frozenset[str] | None:
    """The cloud region ids of HAS's ``[{"inventory_type": "cloud",
    "candidate_id": [ids]}]`` (None when the key is absent)."""
    if key not in entry:
        return None
    items = entry[key]
    if not isinstance(items, list):
        raise exception.InvalidInput(field=f'{field}.{key}',
                                     reason='must be a list')
    ids = set()
    for index, item in enumerate(items):
        where = f'{field}.{key}[{index}]'
        item = _mapping(item, where)
        if item.get('inventory_type') != 'cloud':
            continue  # HAS compares candidates of the same type only
        candidate_ids = item.get('candidate_id')
        if not isinstance(candidate_ids, list):
            # HAS: "Invalid candidate id list format"
            raise exception.InvalidInput(
                field=f'{where}.candidate_id',
                reason='must be a list of candidate ids')
        ids.update(str(candidate_id) for candidate_id in candidate_ids)
    return frozenset(ids)


def _targets(name: str, constraint: Mapping,
             requests: Mapping[str, DemandRequest]
             ) -> list[DemandRequest]:
    demands = constraint.get('demands')
    field = f'template.constraints.{name}.demands'
    if isinstance(demands, str):  # HAS takes one demand's name bare
        demands = [demands]
    if not isinstance(demands, list) or not demands:
        raise exception.InvalidInput(field=field,
                                     reason='must list the demands')
    unknown = [d for d in demands if d not in requests]
    if unknown:
        raise exception.InvalidInput(
            field=field, reason=f'{unknown[0]!r} is not a demand')
    return [requests[demand] for demand in demands]


def _apply_constraint(name: str, constraint: object,
                      requests: Mapping[str, DemandRequest],
                      locations: Mapping[str, dict],
                      zones: list[has_constraints.ZoneRule]) -> None:
    field = f'template.constraints.{name}'
    constraint = _mapping(constraint, field)
    kind = constraint.get('type')
    if kind == 'hpa':
        raise exception.InvalidInput(field=f'{field}.type', reason=_NO_HPA)
    if kind not in SUPPORTED_CONSTRAINTS:
        raise has_constraints.unsupported(f'{field}.type',
                                          SUPPORTED_CONSTRAINTS, kind)
    properties = _mapping(constraint.get('properties', {}),
                          f'{field}.properties')
    targets = _targets(name, constraint, requests)
    if kind == 'distance_to_location':
        limit, location = _distance_limit(properties, locations, field)
        for request in targets:
            request.max_distance_km = limit if request.max_distance_km \
                is None else min(limit, request.max_distance_km)
            request.customer_location = request.customer_location or \
                location
    elif kind == 'vim_fit':
        size = _vim_fit_size(properties, f'{field}.properties')
        for request in targets:
            request.demand = dict(request.demand, **size)
    elif kind == 'zone':
        zones.append(has_constraints.ZoneRule.parse(
            name, properties, [r.name for r in targets],
            f'{field}.properties'))
    elif kind == 'attribute':
        rules = tuple(has_constraints.attribute_rules(
            name, properties, f'{field}.properties'))
        for request in targets:
            request.candidate_filter = dataclasses.replace(
                request.candidate_filter,
                rules=request.candidate_filter.rules + rules)
    else:
        for request in targets:
            _apply_policy(request, properties, f'{field}.properties')


def _distance_limit(properties: Mapping, locations: Mapping[str, dict],
                    field: str) -> tuple[float, dict]:
    location = properties.get('location')
    if location not in locations:
        raise exception.InvalidInput(
            field=f'{field}.properties.location',
            reason=f'{location!r} is not one of the template\'s locations')
    match = _DISTANCE.match(str(properties.get('distance', '')))
    if not match:
        raise exception.InvalidInput(
            field=f'{field}.properties.distance',
            reason='must read "< N km" or "<= N km" (only an upper limit '
                   'can drop a region)')
    value = float(match.group(2))
    if match.group(3) == 'mi':
        value *= _KM_PER_MILE
    return value, locations[location]


def _vim_fit_size(properties: Mapping, field: str) -> dict:
    request = _mapping(properties.get('request'), f'{field}.request')
    size = {'vcpus': int(_number(request.get('vCPU'),
                                 f'{field}.request.vCPU'))}
    for key, target, units in (('Memory', 'memory_mb', _MB_PER),
                               ('Storage', 'disk_gb', _GB_PER)):
        if key in request:
            size[target] = _quantity(request[key], units,
                                     f'{field}.request.{key}')
    if 'count' in properties:
        size['count'] = int(_number(properties['count'], f'{field}.count'))
    return size


def _quantity(value: object, units: Mapping[str, int], field: str) -> int:
    """``{"quantity": 4, "unit": "GB"}``, or a bare number of GB (HAS
    drops the unit too), in the unit whose factor is 1."""
    unit = 'GB'
    if isinstance(value, Mapping):
        unit = str(value.get('unit', 'GB')).upper()
        value = value.get('quantity')
    if unit not in units:
        raise exception.InvalidInput(
            field=f'{field}.unit',
            reason=f'{unit!r} is not one of {", ".join(units)}')
    return math.ceil(_number(value, field) * units[unit])


def _apply_policy(request: DemandRequest, properties: Mapping,
                  field: str) -> None:
    request.policy = _mapping(properties.get('policy'), f'{field}.policy')
    if 'flavor' in properties:
        request.demand = dict(request.demand, flavor=properties['flavor'])
    if 'count' in properties:
        request.demand = dict(request.demand, count=int(_number(
            properties['count'], f'{field}.count')))


def _apply_optimization(optimization: Mapping,
                        requests: Mapping[str, DemandRequest],
                        locations: Mapping[str, dict]) -> None:
    if not optimization:
        return
    field = 'template.optimization'
    for term in _objective_terms(optimization, field):
        function, weight, args, where = term
        if function == 'distance_between':
            location, demand = _distance_args(args, locations, requests,
                                              where)
            requests[demand].weights['distance'] += weight
            requests[demand].customer_location = locations[location]
        elif function == 'cloud_cost':
            demand = args[0] if isinstance(args, list) and args else None
            if demand not in requests:
                raise exception.InvalidInput(
                    field=where, reason=f'{demand!r} is not a demand')
            requests[demand].weights['cost'] += weight
        elif function == 'hpa_score':
            raise exception.InvalidInput(field=where, reason=_NO_HPA)
        else:
            raise has_constraints.unsupported(
                where, ('distance_between', 'cloud_cost'), function)


def _objective_terms(optimization: Mapping, field: str) -> list[tuple]:
    """(function, weight, args, field) of every term of the sum."""
    if 'operation_function' in optimization:  # 2020-08-13
        if optimization.get('goal', 'minimize') != 'minimize':
            raise exception.InvalidInput(field=f'{field}.goal',
                                         reason='only minimize is supported')
        function = _mapping(optimization['operation_function'],
                            f'{field}.operation_function')
        if function.get('operator', 'sum') != 'sum':
            raise exception.InvalidInput(
                field=f'{field}.operation_function.operator',
                reason='only sum is supported')
        terms = []
        for index, operand in enumerate(function.get('operands', [])):
            where = f'{field}.operation_function.operands[{index}]'
            operand = _mapping(operand, where)
            params = _mapping(operand.get('params', {}), f'{where}.params')
            args = [params.get('location'), params.get('demand')] \
                if operand.get('function') == 'distance_between' \
                else [params.get('demand')]
            terms.append((operand.get('function'),
                          _number(operand.get('weight', 1.0),
                                  f'{where}.weight'), args, where))
        return terms
    total = _mapping(optimization.get('minimize'), f'{field}.minimize')
    operands = total.get('sum')
    if not isinstance(operands, list):
        raise exception.InvalidInput(field=f'{field}.minimize.sum',
                                     reason='must be a list of terms')
    return [_legacy_term(operand, f'{field}.minimize.sum[{index}]')
            for index, operand in enumerate(operands)]


def _legacy_term(operand: object, where: str) -> tuple:
    operand = _mapping(operand, where)
    weight = 1.0
    if 'product' in operand:
        product = operand['product']
        if not isinstance(product, list) or len(product) != 2:
            raise exception.InvalidInput(
                field=f'{where}.product',
                reason='must be [weight, {function: args}]')
        weight = _number(product[0], f'{where}.product[0]')
        operand = _mapping(product[1], f'{where}.product[1]')
    if len(operand) != 1:
        raise exception.InvalidInput(field=where,
                                     reason='must hold exactly one function')
    (function, args), = operand.items()
    return function, weight, args, where


def _distance_args(args: object, locations: Mapping, requests: Mapping,
                   where: str) -> tuple[str, str]:
    if not isinstance(args, list) or len(args) != 2:
        raise exception.InvalidInput(
            field=where, reason='distance_between takes [location, demand]')
    location, demand = args
    if location not in locations:
        raise exception.InvalidInput(
            field=where, reason=f'{location!r} is not a location')
    if demand not in requests:
        raise exception.InvalidInput(
            field=where, reason=f'{demand!r} is not a demand')
    return location, demand
