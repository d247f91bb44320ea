"""NFVO side: the Grant for a GrantRequest, given the cloud's zones.

Pure and deterministic: ``evaluate(request, cloud, grant_id)`` places
every new COMPUTE resource (``addResources`` and ``tempResources``) on a
host of some zone, with the hosts' free capacity
(:class:`~placement_ext.decision.cloud_zones.Cloud`, built by the caller
from Placement, or read from a file by ``placement-ext grant evaluate``),
and returns a :class:`GrantDecision`:

* every placement constraint honoured: the Grant, with ``zones`` for the
  zones used and each COMPUTE ``addResources[].zoneId`` set to the
  ``ZoneInfo.id`` of its zone;
* a constraint with ``fallbackBestEffort`` false (or absent) that cannot
  be honoured, or not enough capacity at all: a refusal with the reason
  (``grant`` None), naming the constraint at fault when one alone is;
* otherwise the best effort placement: the largest set of constraints
  that can be kept (on a tie, the earlier constraints are kept), the
  relaxed ones still preferred by the search, and reported in
  ``relaxed`` and in the Grant's
  ``additionalParams.relaxedPlacementConstraints``
  (``[{"index", "constraint", "reason"}]``) so the VNFM sees them.

Scopes: ZONE (zone), ZONE_GROUP (the zone's ``zone_group``, else the
zone), NFVI_POP (the zone's ``nfvi_pop``, else the VIM), NFVI_NODE and
CIS_NODE (host). Resources other than COMPUTE get no zone and are not
placed; references to them in constraints are ignored. Hosts freed by
``removeResources`` are not counted as free (conservative).

The NFVO decides zones only: the hosts found are an estimate that the
zones can hold the resources (``GrantDecision.hosts``), not a promise.
"""

import dataclasses
import itertools
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.decision import cloud_zones
from placement_ext.decision import placement_search as search
from placement_ext.sol import grant as grant_mod
from placement_ext.sol import grant_request as gr
from placement_ext.sol import placement_constraint as pc
from placement_ext.vocabulary import sol_enums

# Search nodes for one evaluation (and again for explaining a refusal).
DEFAULT_SEARCH_BUDGET = 50_000
RELAXED_PARAM = 'relaxedPlacementConstraints'
_HOST_SCOPES = cloud_zones.HOST_SCOPES


@dataclasses.dataclass(frozen=True)
class Relaxed:
    """A best-effort constraint the Grant does not keep, and how."""

    index: int
    constraint: pc.PlacementConstraint
    reason: str

    def to_dict(self) -> dict:
        return {'index': self.index, 'constraint': self.constraint.to_dict(),
                'reason': self.reason}


@dataclasses.dataclass(frozen=True)
class GrantDecision:
    """The Grant, or the refusal, with what was relaxed and why.

    :ivar hosts: resource id -> (zone, host) the estimate used.
    """

    grant: grant_mod.Grant | None
    refusal: str | None = None
    relaxed: tuple[Relaxed, ...] = ()
    hosts: Mapping[str, tuple[str, str | None]] = dataclasses.field(
        default_factory=dict)
    reasons: tuple[str, ...] = ()

    @property
    def granted(self) -> bool:
        return self.grant is not None


@dataclasses.dataclass
class _Problem:
    slots: list[search.Slot]
    free: dict[search.Slot, Mapping[str, int]]
    items: list[search.Item]
    fixed: dict[str, search.Slot]
    rules: list[search.Rule]

    def search(self, rules: list[search.Rule], soft: list[search.Rule],
               budget: search.Budget) -> dict[str, search.Slot] | None:
        return search.Search(self.slots, self.free, self.items, self.fixed,
                             rules, soft).run(budget)


def evaluate(request: gr.GrantRequest, cloud: cloud_zones.Cloud, grant_id: str,
             grant_href: str | None = None,
             budget_nodes: int = DEFAULT_SEARCH_BUDGET) -> GrantDecision:
    """Decide the Grant for ``request``; see the module docstring.

    :param grant_id: the new Grant's id (the caller makes it).
    :param grant_href: its ``_links.self``; default a relative URI.
    :raises InvalidInput: the request names a VDU without a flavour, or
        an allocated resource whose location is unknown.
    """
    problem = _problem(request, cloud)
    constraints = request.constraints()
    hard = [r for r in problem.rules if not constraints[r.index].best_effort]
    soft = [r for r in problem.rules if constraints[r.index].best_effort]
    try:
        location = _solve(problem, hard, soft, budget_nodes)
    except search.BudgetExhausted:
        location = None
    if location is None:
        return GrantDecision(grant=None, refusal=_refusal(
            problem, hard, constraints, budget_nodes))
    relaxed = tuple(
        Relaxed(rule.index, constraints[rule.index],
                _violation(rule, {**problem.fixed, **location}))
        for rule in soft if search.clashes(rule, {**problem.fixed,
                                                  **location}))
    grant = _grant(request, cloud, grant_id, grant_href, location, relaxed)
    hosts = {rid: (slot.zone, slot.host) for rid, slot in location.items()}
    return GrantDecision(grant=grant, relaxed=relaxed, hosts=hosts,
                         reasons=_reasons(hosts, relaxed, len(problem.rules)))


def _solve(problem: _Problem, hard: list[search.Rule],
           soft: list[search.Rule],
           budget_nodes: int) -> dict[str, search.Slot] | None:
    """Keep every rule if possible, else drop as few soft ones as can be
    (later ones first). If the budget runs out meanwhile: one search with
    only the hard rules, the soft ones guiding the choice."""
    budget = search.Budget(budget_nodes)
    try:
        found = problem.search(hard + soft, [], budget)
        if found is not None or not soft:
            return found
        fallback = problem.search(hard, soft, budget)
        if fallback is None:
            return None  # dropping every soft rule is not enough
        for size in range(1, len(soft)):
            for dropped in itertools.combinations(soft[::-1], size):
                kept = hard + [r for r in soft if r not in dropped]
                found = problem.search(kept, list(dropped), budget)
                if found is not None:
                    return found
        return fallback
    except search.BudgetExhausted:
        return problem.search(hard, soft, search.Budget(budget_nodes))


def _problem(request: gr.GrantRequest, cloud: cloud_zones.Cloud) -> _Problem:
    slots, free = [], {}
    for zone in cloud.zones:
        for host in zone.hosts:
            slots.append(cloud.slot(zone, host.name))
            free[slots[-1]] = host.free
    items = []
    for wire, index, res in request.definitions():
        if wire in ('addResources', 'tempResources') and res.is_compute:
            if res.template not in cloud.flavours:
                raise exception.InvalidInput(
                    field=f'{wire}[{index}].resourceTemplateId',
                    reason=f'no flavour for {res.template!r} in the zones '
                           f'(flavours)')
            items.append(search.Item(res.id, cloud.flavours[res.template]))
    fixed: dict[str, search.Slot] = {}
    rules = [_rule(index, constraint, {item.id for item in items}, cloud,
                   fixed)
             for index, constraint in enumerate(request.constraints())]
    return _Problem(slots, free, items, fixed, rules)


def _rule(index: int, constraint: pc.PlacementConstraint, new_ids: set[str],
          cloud: cloud_zones.Cloud,
          fixed: dict[str, search.Slot]) -> search.Rule:
    members = []
    zones = {zone.zone_id: zone for zone in cloud.zones}
    for r_index, ref in enumerate(constraint.resource):
        if ref.id_type == sol_enums.GRANT:
            if ref.resource_id in new_ids:
                members.append(ref.resource_id)
            continue  # not a new COMPUTE resource: not placed here
        field = f'placementConstraints[{index}].resource[{r_index}]'
        loc = cloud.existing.get(ref.resource_id)
        if loc is None:
            raise exception.InvalidInput(
                field=f'{field}.resourceId',
                reason=f'where {ref.resource_id!r} is allocated is unknown '
                       f'(add it to existing)')
        if constraint.scope in _HOST_SCOPES and loc.host is None:
            raise exception.InvalidInput(
                field=f'existing.{ref.resource_id}.host',
                reason=f'needed by {field} (scope {constraint.scope})')
        fixed[ref.resource_id] = cloud.slot(zones[loc.zone_id], loc.host)
        members.append(ref.resource_id)
    return search.Rule(index, constraint.is_affinity, constraint.scope,
                       tuple(dict.fromkeys(members)))


def _refusal(problem: _Problem, hard: list[search.Rule],
             constraints: tuple[pc.PlacementConstraint, ...],
             budget_nodes: int) -> str:
    """Why no Grant: capacity alone, one constraint alone, or several."""
    try:
        if problem.search([], [], search.Budget(budget_nodes)) is None:
            return _capacity_text(problem)
        for rule in hard:
            if problem.search([rule], [], search.Budget(budget_nodes)) \
                    is None:
                return (f'placementConstraints[{rule.index}] '
                        f'({constraints[rule.index].describe()}) cannot be '
                        f'honoured: {_why(problem, rule)}')
    except search.BudgetExhausted:
        return 'no placement was found within the search limit'
    indexes = ', '.join(str(rule.index) for rule in hard)
    return (f'placementConstraints[{indexes}] (fallbackBestEffort false) '
            f'cannot all be honoured together with the free capacity')


def _capacity_text(problem: _Problem) -> str:
    return (f'insufficient capacity: the zones cannot hold the '
            f'{len(problem.items)} new COMPUTE resource(s)')


def _why(problem: _Problem, rule: search.Rule) -> str:
    if search.clashes(rule, problem.fixed):
        return 'the allocated resources already break it'
    scope = rule.scope.lower()
    if rule.affinity:
        return f'no single {scope} has room for all its new resources'
    demands = [item.demand for item in problem.items
               if item.id in rule.members]
    keys = {slot.key(rule.scope) for slot in problem.slots
            if any(search.room(problem.free[slot], d) for d in demands)}
    keys |= {problem.fixed[m].key(rule.scope) for m in rule.members
             if m in problem.fixed}
    return (f'it needs {len(rule.members)} different {scope}s; '
            f'{len(keys)} are usable')


def _violation(rule: search.Rule, location: Mapping[str, search.Slot]) -> str:
    by_place: dict[str, list[str]] = {}
    for member in rule.members:
        if member in location:
            by_place.setdefault(_place(location[member], rule.scope),
                                []).append(member)
    if rule.affinity:
        spread = '; '.join(f'{place}: {", ".join(members)}'
                           for place, members in by_place.items())
        return f'best effort: spread over {len(by_place)} ({spread})'
    shared = '; '.join(f'{", ".join(members)} share {place}'
                       for place, members in by_place.items()
                       if len(members) > 1)
    return f'best effort: {shared}'


def _place(slot: search.Slot, scope: str) -> str:
    if scope in _HOST_SCOPES:
        return f'{slot.zone}/{slot.host}'
    key = slot.key(scope)
    return str(key)


def _grant(request: gr.GrantRequest, cloud: cloud_zones.Cloud, grant_id: str,
           grant_href: str | None, location: Mapping[str, search.Slot],
           relaxed: tuple[Relaxed, ...]) -> grant_mod.Grant:
    zone_ids: dict[str, str] = {}  # zone name -> ZoneInfo.id
    for res in request.new_resources():
        if res.id in location:
            zone_ids.setdefault(location[res.id].zone, f'zone-{len(zone_ids)}')

    def granted(res: gr.ResourceDefinition) -> grant_mod.GrantInfo:
        slot = location.get(res.id)
        return grant_mod.GrantInfo(
            resource_definition_id=res.id,
            vim_connection_id=cloud.vim_connection_id,
            zone_id=zone_ids[slot.zone] if slot else None)

    def allocated(res: gr.ResourceDefinition) -> grant_mod.GrantInfo:
        return grant_mod.GrantInfo(resource_definition_id=res.id)

    def listed(resources: tuple | None, how: object) -> tuple | None:
        return None if resources is None else tuple(map(how, resources))

    links = request.links
    return grant_mod.Grant(
        id=grant_id, vnf_instance_id=request.vnf_instance_id,
        vnf_lcm_op_occ_id=request.vnf_lcm_op_occ_id,
        links={'self': {'href': grant_href or f'/grant/v1/grants/{grant_id}'},
               'vnfLcmOpOcc': links['vnfLcmOpOcc'],
               'vnfInstance': links['vnfInstance']},
        zones=tuple(grant_mod.ZoneInfo(
            id=zone_info_id, zone_id=name,
            vim_connection_id=cloud.vim_connection_id)
            for name, zone_info_id in zone_ids.items()),
        zone_groups=_zone_groups(request, cloud, zone_ids),
        add_resources=listed(request.add_resources, granted),
        temp_resources=listed(request.temp_resources, granted),
        remove_resources=listed(request.remove_resources, allocated),
        update_resources=listed(request.update_resources, allocated),
        additional_params=({RELAXED_PARAM: [r.to_dict() for r in relaxed]}
                           if relaxed else None))


def _zone_groups(request: gr.GrantRequest, cloud: cloud_zones.Cloud,
                 zone_ids: Mapping[str, str]) -> tuple | None:
    """ZoneGroupInfo of the zones used, when ZONE_GROUP was asked for."""
    if not any(c.scope == sol_enums.ZONE_GROUP for c in request.constraints()):
        return None
    groups: dict[str, list[str]] = {}
    for zone in cloud.zones:
        if zone.zone_id in zone_ids:
            groups.setdefault(zone.zone_group or zone.zone_id, []).append(
                zone_ids[zone.zone_id])
    return tuple(grant_mod.ZoneGroupInfo(zone_id=tuple(ids))
                 for ids in groups.values())


def _reasons(hosts: Mapping[str, tuple[str, str | None]],
             relaxed: tuple[Relaxed, ...], rule_count: int) -> tuple:
    lines = [f'{rid} -> {zone} (host {host})'
             for rid, (zone, host) in hosts.items()]
    lines.append(f'kept {rule_count - len(relaxed)} of {rule_count} '
                 f'placement constraint(s)')
    lines.extend(f'relaxed placementConstraints[{r.index}]: {r.reason}'
                 for r in relaxed)
    return tuple(lines)
