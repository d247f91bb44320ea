"""Cloud selection, HAS plans and intent realisation, wired to
configuration and the regions' services. The conductor's RPC methods, the
CLI and the HAS-compatible plan API all call these functions.
"""

import collections
import dataclasses

from oslo_config import cfg

from placement_ext import exception
from placement_ext.conductor import homing_inputs
from placement_ext.decision import has_plan
from placement_ext.decision import has_recommendations
from placement_ext.decision import homing
from placement_ext.decision import intent_realization
from placement_ext.schemas import files
from placement_ext.schemas import homing as schema
from placement_ext.schemas import validate
from placement_ext.vocabulary import states

COST_FILE_OPTION = '[homing] cost_file'
REGIONS_FILE_OPTION = '[homing] regions_file'
SIZE_FIELDS = ('vcpus', 'memory_mb', 'disk_gb')


def select(conf: cfg.ConfigOpts, request: dict,
           clients: homing_inputs.RegionClients) -> dict:
    """The best candidate region for ``request``
    (``schemas.homing.SELECTION_REQUEST``), the ranking, every dropped
    region with its reason, and the Nova and Placement calls made.

    :raises InvalidInput: a bad request or cost file, naming the field.
    :raises NoRegion: every candidate was dropped.
    """
    selection, calls, _ = _selection(conf, request, clients)
    selection.require_best()
    return dict(selection.to_dict(request.get('ranking_size', 10)),
                calls=calls)


def solve_plan(conf: cfg.ConfigOpts, template: dict, limit: int,
               clients: homing_inputs.RegionClients,
               deadline: float | None = None) -> dict:
    """An ONAP HAS plan: every demand of ``template`` homed among the
    regions of ``[homing] regions_file``.

    :param deadline: ``time.monotonic()`` value by which the plan must
        be answered: no region is read after it, and a plan not solved
        by then ends ``error``.
    :returns: ``{"status": "done"|"not found"|"error", "message",
        "recommendations", "dropped": {demand: [...]}, "calls"}``.
    :raises InvalidInput: a template we cannot honour, or more demands
        than ``[homing] max_plan_demands``, naming the field.
    """
    has_plan.check_demand_count(template, conf.homing.max_plan_demands)
    candidates = regions(conf)
    translation = has_plan.translate(template)
    requests = translation.requests
    solved, dropped, calls = [], {}, collections.Counter()
    hpa: dict[str, dict] = {}
    for request in requests:
        kept, filtered = request.candidate_filter.split(candidates)
        kept, unmatched, hpa[request.name] = request.hpa_split(kept)
        selection = homing.Selection((), tuple(filtered + unmatched))
        if kept:
            found, used, timed_out = _selection(
                conf, request.selection_request(kept), clients, deadline,
                check_capacity=request.sized,
                hpa=(hpa[request.name], request.hpa_weight))
            calls.update(used)
            if timed_out:
                return {'status': states.PLAN_ERROR,
                        'message': f'timed out: the plan\'s timeout passed '
                                   f'with {len(solved)} of {len(requests)} '
                                   f'demand(s) solved',
                        'recommendations': [], 'dropped': dropped,
                        'calls': dict(calls)}
            selection = dataclasses.replace(
                found, dropped=selection.dropped + found.dropped)
        solved.append((request, selection))
        dropped[request.name] = [d.to_dict() for d in selection.dropped]
    homeless = [(r.name, s) for r, s in solved if s.best is None]
    message = '; '.join(
        f'demand {name}: ' + '; '.join(f'{d.region.name}: {d.reason}'
                                        for d in selection.dropped)
        for name, selection in homeless)
    found = has_recommendations.recommendations(solved, limit,
                                                translation.zones, hpa)
    if not homeless and not found:
        message = ('no combination of the demands\' regions keeps the '
                   'zone constraint(s) ' +
                   ', '.join(rule.name for rule in translation.zones))
    return {'status': 'not found' if homeless or not found else 'done',
            'message': message, 'recommendations': found,
            'dropped': dropped, 'calls': dict(calls)}


def _selection(conf: cfg.ConfigOpts, request: dict,
               clients: homing_inputs.RegionClients,
               deadline: float | None = None, check_capacity: bool = True,
               hpa: tuple[dict, float] = ({}, 0.0)
               ) -> tuple[homing.Selection, dict, bool]:
    """The selection, the calls it made and whether ``deadline``
    passed before it ended. Without ``check_capacity`` (a HAS demand
    that asks no size, nor HPA flavors) every region passes the capacity
    check unread.

    :param hpa: (region name -> its ``has_hpa.RegionMatch``, the weight
        of ``hpa_score``): the matched flavors' capacity is checked, and
        the region's HPA score counts in its value.
    """
    validate.validate(schema.SELECTION_REQUEST, request, 'request')
    opts = conf.homing
    _check_count(len(request['candidates']), opts.max_candidates,
                 'candidates', 'candidate regions', 'max_candidates')
    intent = intent_of(conf, request['policy'])
    demand = request['demand']
    matches, hpa_weight = hpa
    terms = _selection_terms(conf, request)
    if matches:
        terms['bonus'] = lambda region: hpa_weight * matches[
            region.name].score
    if not check_capacity and not matches:
        return _unsized_selection(request, intent, terms), {}, False
    reader = homing_inputs.FlavorsReader(
        clients, instance=instance_of(demand) if check_capacity else None,
        flavors={name: match.flavors for name, match in matches.items()},
        public_types=frozenset(opts.public_cloud_types),
        public_verdict=opts.public_cloud_capacity, deadline=deadline)
    selection = homing.select(
        intent, [homing.Region.from_dict(c) for c in request['candidates']],
        **terms, capacity=reader.capacity)
    reader.log_unknown()
    return selection, dict(reader.calls), reader.timed_out()


def _selection_terms(conf: cfg.ConfigOpts, request: dict) -> dict:
    """The arguments of ``homing.select`` but the intent, candidates and
    capacity."""
    opts = conf.homing
    demand = request['demand']
    weights = request.get('weights', {})
    customer = request['customer_location']
    return {
        'customer': (customer['latitude'], customer['longitude']),
        'demand': homing.Demand(demand.get('count', 1),
                                demand.get('service'),
                                demand.get('instance_type')),
        'capabilities': capabilities(conf), 'costs': cost_model(conf),
        'weights': homing.Weights(
            distance=weights.get('distance', opts.distance_weight),
            cost=weights.get('cost', opts.cost_weight)),
        'max_distance_km': request.get('max_distance_km')}


def _unsized_selection(request: dict, intent: homing.Intent,
                       terms: dict) -> homing.Selection:
    return homing.select(
        intent, [homing.Region.from_dict(c) for c in request['candidates']],
        **terms,
        capacity=lambda region: homing.Capacity(
            None, 'not checked: the demand asks no size (no vim_fit)',
            unlimited=True))


def _check_count(count: int, limit: int, field: str, what: str,
                 option: str) -> None:
    if count > limit:
        raise exception.InvalidInput(
            field=field, reason=f'has {count} {what}; at most {limit} are '
                                f'accepted ([homing] {option})')


def regions(conf: cfg.ConfigOpts) -> list[dict]:
    """The candidate regions of ``[homing] regions_file`` (what ONAP
    reads from A&AI)."""
    path = conf.homing.regions_file
    if not path:
        raise exception.InvalidInput(
            field=REGIONS_FILE_OPTION,
            reason='is not set: plans need the candidate regions')
    document = files.load_yaml(path, REGIONS_FILE_OPTION)
    validate.validate(schema.REGIONS, document, REGIONS_FILE_OPTION)
    _check_count(len(document), conf.homing.max_candidates,
                 REGIONS_FILE_OPTION, 'regions', 'max_candidates')
    return document


def realize(conf: cfg.ConfigOpts, policy: dict, template: dict,
            clients: homing_inputs.RegionClients | None = None,
            region_name: str | None = None,
            flavors: list[dict] | None = None,
            environment: dict | None = None) -> dict:
    """``template`` with the policy's intent realised for its VNFC
    (and its Heat ``environment``, when given, see
    ``intent_realization.realize``).

    Resource isolation needs the region's flavors: ``flavors`` when
    given, else read from Nova in ``region_name`` (default: ``[nova]
    region_name``).

    :raises InvalidInput: bad policy, template or flavors.
    :raises IntentUnrealisable: with the reason.
    """
    validate.validate(schema.CLOUD_SELECTION_POLICY, policy, 'policy')
    intent = intent_of(conf, policy)
    if intent.isolation and flavors is None and clients is not None:
        flavors = clients.nova(region_name or conf.nova.region_name) \
            .flavors(extra_specs=True)
    if flavors is not None:
        validate.validate(schema.FLAVORS, flavors, 'flavors')
        flavors = [intent_realization.Flavor.from_dict(f) for f in flavors]
    validate.check_document(template, 'template')
    return intent_realization.realize(template, intent, flavors,
                                      environment).to_dict()


def instance_of(demand: dict) -> str | dict:
    """The demand's flavor name, or its size as a flavor-like dict.

    :raises InvalidInput: both or neither given.
    """
    sized = [key for key in SIZE_FIELDS if key in demand]
    if 'flavor' in demand and sized:
        raise exception.InvalidInput(
            field=f'demand.{sized[0]}',
            reason='is not allowed with demand.flavor: give a flavor or '
                   'a size, not both')
    if 'flavor' in demand:
        return demand['flavor']
    if 'vcpus' not in demand:
        raise exception.InvalidInput(
            field='demand.flavor',
            reason='is required, unless the demand gives its size '
                   '(vcpus, memory_mb, disk_gb)')
    size = {'vcpus': demand['vcpus'], 'ram': demand.get('memory_mb', 0),
            'disk': demand.get('disk_gb', 0)}
    return dict(size, name='{vcpus} vCPU, {ram} MB, {disk} GB'.format(
        **size))


def intent_of(conf: cfg.ConfigOpts, policy: dict) -> homing.Intent:
    return homing.parse_intent(policy,
                               conf.homing.oversubscription_percentages)


def capabilities(conf: cfg.ConfigOpts) -> homing.Capabilities:
    return homing.Capabilities(
        high_availability=frozenset(
            conf.homing.high_availability_cloud_types),
        isolation=frozenset(conf.homing.isolation_cloud_types))


def cost_model(conf: cfg.ConfigOpts) -> homing.CostModel:
    """The operator's costs, read now (edits apply to the next
    selection)."""
    path = conf.homing.cost_file
    document = files.load_yaml(path, COST_FILE_OPTION) if path else None
    document = {} if document is None else document
    validate.validate(schema.COST_CONFIG, document, COST_FILE_OPTION)
    return homing.CostModel.from_document(document,
                                          conf.homing.default_cost)
