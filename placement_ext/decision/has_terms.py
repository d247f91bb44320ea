"""A HAS template's constraints and optimization, applied to its
demands. Pure.

Constraints ``distance_to_location`` (``"< 100 km"``: a limit),
``vim_fit`` (``request: {vCPU, Memory, Storage}``: one instance of that
size must fit, plus our optional ``count``), our
``cloud_selection_policy`` (``properties.policy``: ONAP OOF's policy;
optional ``flavor`` and ``count``), and ``zone`` and ``attribute``
(read by :mod:`has_constraints`); the ``optimization``: ``minimize`` a
``sum`` of ``distance_between`` and our ``cloud_cost`` terms, bare or in
``product`` with a weight, or the 2020-08-13 ``operation_function``.
``hpa`` (read by :mod:`has_hpa`) and ``hpa_score`` in the objective
(the higher a region's HPA score, the better: ``- weight * score``, as
HAS).
"""

import dataclasses
import re
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.decision import has_constraints
from placement_ext.decision import has_demand
from placement_ext.decision import has_fields
from placement_ext.decision import has_hpa

SUPPORTED_CONSTRAINTS = ('distance_to_location', 'vim_fit',
                         'cloud_selection_policy', 'zone', 'attribute',
                         'hpa')
SUPPORTED_FUNCTIONS = ('distance_between', 'cloud_cost', 'hpa_score')
_DISTANCE = re.compile(r'^\s*(<=?)\s*([0-9]+(?:\.[0-9]+)?)\s*(km|mi)?\s*$')
_KM_PER_MILE = 1.609344
_MB_PER = {'MB': 1, 'GB': 1024, 'TB': 1024 * 1024}
_GB_PER = {'GB': 1, 'TB': 1024}


def _targets(name: str, constraint: Mapping,
             requests: Mapping[str, has_demand.DemandRequest]
             ) -> list[has_demand.DemandRequest]:
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


def apply_constraint(name: str, constraint: object,
                      requests: Mapping[str, has_demand.DemandRequest],
                      locations: Mapping[str, dict],
                      zones: list[has_constraints.ZoneRule]) -> None:
    field = f'template.constraints.{name}'
    constraint = has_fields.mapping(constraint, field)
    kind = constraint.get('type')
    if kind not in SUPPORTED_CONSTRAINTS:
        raise has_constraints.unsupported(f'{field}.type',
                                          SUPPORTED_CONSTRAINTS, kind)
    properties = has_fields.mapping(constraint.get('properties', {}),
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
    elif kind == 'hpa':
        vnfcs = has_hpa.parse(properties, f'{field}.properties')
        for request in targets:
            request.hpa += vnfcs
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
    request = has_fields.mapping(properties.get('request'), f'{field}.request')
    size = {'vcpus': int(has_fields.number(request.get('vCPU'),
                                 f'{field}.request.vCPU'))}
    for key, target, units in (('Memory', 'memory_mb', _MB_PER),
                               ('Storage', 'disk_gb', _GB_PER)):
        if key in request:
            size[target] = has_fields.quantity(request[key], units,
                                     f'{field}.request.{key}')
    if 'count' in properties:
        size['count'] = int(has_fields.number(properties['count'],
                                              f'{field}.count'))
    return size


def _apply_policy(request: has_demand.DemandRequest, properties: Mapping,
                  field: str) -> None:
    request.policy = has_fields.mapping(properties.get('policy'),
                                        f'{field}.policy')
    if 'flavor' in properties:
        request.demand = dict(request.demand, flavor=properties['flavor'])
    if 'count' in properties:
        request.demand = dict(request.demand, count=int(has_fields.number(
            properties['count'], f'{field}.count')))


def apply_optimization(optimization: Mapping,
                        requests: Mapping[str, has_demand.DemandRequest],
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
            _demand_arg(args, requests, where).weights['cost'] += weight
        elif function == 'hpa_score':
            _demand_arg(args, requests, where).hpa_weight += weight
        else:
            raise has_constraints.unsupported(where, SUPPORTED_FUNCTIONS,
                                              function)


def _demand_arg(args: object,
                requests: Mapping[str, has_demand.DemandRequest],
                where: str) -> has_demand.DemandRequest:
    """The demand a one-demand function (``[demand]``) names."""
    demand = args[0] if isinstance(args, list) and args else None
    if demand not in requests:
        raise exception.InvalidInput(
            field=where, reason=f'{demand!r} is not a demand')
    return requests[demand]


def _objective_terms(optimization: Mapping, field: str) -> list[tuple]:
    """(function, weight, args, field) of every term of the sum."""
    if 'operation_function' in optimization:  # 2020-08-13
        if optimization.get('goal', 'minimize') != 'minimize':
            raise exception.InvalidInput(field=f'{field}.goal',
                                         reason='only minimize is supported')
        function = has_fields.mapping(optimization['operation_function'],
                            f'{field}.operation_function')
        if function.get('operator', 'sum') != 'sum':
            raise exception.InvalidInput(
                field=f'{field}.operation_function.operator',
                reason='only sum is supported')
        terms = []
        for index, operand in enumerate(function.get('operands', [])):
            where = f'{field}.operation_function.operands[{index}]'
            operand = has_fields.mapping(operand, where)
            params = has_fields.mapping(operand.get('params', {}),
                                        f'{where}.params')
            args = [params.get('location'), params.get('demand')] \
                if operand.get('function') == 'distance_between' \
                else [params.get('demand')]
            terms.append((operand.get('function'),
                          has_fields.number(operand.get('weight', 1.0),
                                  f'{where}.weight'), args, where))
        return terms
    total = has_fields.mapping(optimization.get('minimize'),
                               f'{field}.minimize')
    operands = total.get('sum')
    if not isinstance(operands, list):
        raise exception.InvalidInput(field=f'{field}.minimize.sum',
                                     reason='must be a list of terms')
    return [_legacy_term(operand, f'{field}.minimize.sum[{index}]')
            for index, operand in enumerate(operands)]


def _legacy_term(operand: object, where: str) -> tuple:
    operand = has_fields.mapping(operand, where)
    weight = 1.0
    if 'product' in operand:
        product = operand['product']
        if not isinstance(product, list) or len(product) != 2:
            raise exception.InvalidInput(
                field=f'{where}.product',
                reason='must be [weight, {function: args}]')
        weight = has_fields.number(product[0], f'{where}.product[0]')
        operand = has_fields.mapping(product[1], f'{where}.product[1]')
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
