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
- constraints ``hpa`` (flavors matched by HPA features, see
  ``decision.has_hpa``; the matched flavors' capacity is checked) and
  ``hpa_score`` in the optimization;
- constraints ``distance_to_location`` (``"< 100 km"``: a limit),
  ``vim_fit`` (``request: {vCPU, Memory, Storage}``: one instance of
  that size must fit, plus our optional ``count``) and, our extension,
  ``cloud_selection_policy`` (``properties.policy``: ONAP OOF's policy;
  optional ``flavor`` and ``count``);
- ``optimization``: ``minimize`` a ``sum`` of ``distance_between`` and
  our ``cloud_cost`` terms, bare or in ``product`` with a weight.

Anything else (``reservation``, other constraint types and
functions, demand keys such as ``conflict_identifier``...) is refused
by name, never silently ignored: a plan we cannot honour must not be
answered as if we had.

This module reads the template's frame (version, keys, parameters,
locations, demands) and refuses what is unknown at each level; what a
demand asks is :mod:`has_demand`, the constraints and the optimization
are applied by :mod:`has_terms` (zone and attribute read by
:mod:`has_constraints`), values are read by :mod:`has_fields`, and the
answers are written by :mod:`has_recommendations`.
"""

import dataclasses
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.decision import has_constraints
from placement_ext.decision import has_demand
from placement_ext.decision import has_fields
from placement_ext.decision import has_terms

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


@dataclasses.dataclass
class Translation:
    """A template's demands (iterating over it gives them) and its zone
    constraints, which tie demands together."""

    requests: list[has_demand.DemandRequest]
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
    params = has_fields.mapping(template.get('parameters', {}),
                                'template.parameters')
    resolve = has_fields.Resolver(params)
    locations = _locations(template.get('locations', {}), resolve)
    demands = has_fields.mapping(template.get('demands'), 'template.demands')
    if not demands:
        raise exception.InvalidInput(field='template.demands',
                                     reason='must name at least one demand')
    requests = {name: _demand(name, resolve(entries))
                for name, entries in demands.items()}
    constraints = has_fields.mapping(template.get('constraints', {}),
                           'template.constraints')
    zones: list[has_constraints.ZoneRule] = []
    for name, constraint in constraints.items():
        has_terms.apply_constraint(name, resolve(constraint), requests,
                                   locations, zones)
    has_terms.apply_optimization(resolve(template.get('optimization') or {}),
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


def _locations(raw: object, resolve: has_fields.Resolver) -> dict:
    locations = {}
    for name, place in has_fields.mapping(raw, 'template.locations').items():
        field = f'template.locations.{name}'
        place = has_fields.mapping(resolve(place, field), field)
        latitude = has_fields.number(place.get('latitude'),
                                     f'{field}.latitude')
        longitude = has_fields.number(place.get('longitude'),
                                      f'{field}.longitude')
        if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
            raise exception.InvalidInput(
                field=field, reason='latitude must be within -90..90 and '
                                    'longitude within -180..180')
        locations[name] = {'latitude': latitude, 'longitude': longitude}
    return locations


def _demand(name: str, entries: object) -> has_demand.DemandRequest:
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
    return has_demand.DemandRequest(
        name, entry.get('service_resource_id'),
        candidate_filter=has_demand.CandidateFilter(
            region=_optional_text(entry, 'region', field),
            complex=_optional_text(entry, 'complex', field),
            excluded=frozenset(_candidate_ids(
                entry, 'excluded_candidates', field) or ()),
            required=_candidate_ids(entry, 'required_candidates', field),
            attributes=has_fields.mapping(
                entry.get('filtering_attributes') or {},
                f'{field}.filtering_attributes')),
        passthrough_attributes=dict(has_fields.mapping(
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
        item = has_fields.mapping(item, where)
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
