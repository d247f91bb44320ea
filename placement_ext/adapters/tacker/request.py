"""Tacker's stack fields and VNFD rules as our operation request.

Tacker (StandardUserData) names each VNFC ``<VDU>-<index>`` and puts its
zone in the stack parameter ``nfv.VDU.<VNFC>.locationConstraints``; that
is our operation request's placement (``schemas/operation.py``). Its
VNFD rules are ``(targets, scope)`` pairs of VDU names; the zone-scoped
ones become SOL 003 placement constraints over those VDUs' VNFCs (rules
scoped ``nfvi_node`` are Nova server groups in the BaseHOT, left to Nova).
"""

import json

from placement_ext.decision import flavors as flavor_map
from placement_ext.decision import grant_constraints
from placement_ext.schemas import files
from placement_ext.vocabulary import sol_enums

# Tacker's VNFD scope name of the rules reselection honours (rules scoped
# ``nfvi_node`` are Nova server groups in the BaseHOT, left to Nova).
ZONE_SCOPE = 'zone'
RULE_TYPES = {sol_enums.AFFINITY: grant_constraints.AFFINITY_RULE,
              sol_enums.ANTI_AFFINITY: grant_constraints.ANTI_AFFINITY_RULE}


def vdu_of(vnfc: str) -> str:
    """``VDU1-0`` -> ``VDU1`` (StandardUserData's ``rm_idx``)."""
    return vnfc.rpartition('-')[0] or vnfc


def placement(vdu_params: dict) -> dict[str, str]:
    """VNFC -> zone, for every VNFC of the stack that has one."""
    return {vnfc: params['locationConstraints']
            for vnfc, params in vdu_params.items()
            if isinstance(params, dict) and params.get('locationConstraints')}


def constraints(rules: dict[str, list], vnfcs: list[str],
                best_effort: bool) -> list[dict]:
    """Zone-scoped VNFD ``rules`` (``{kind: [(targets, scope)]}``) as
    constraints over the VNFCs of their target VDUs, built by
    :func:`placement_ext.decision.grant_constraints.build` (a rule over
    fewer than two VNFCs constrains nothing)."""
    policies = [
        {f'{kind}-{index}': {'type': RULE_TYPES[kind], 'targets': targets,
                             'properties': {'scope': scope}}}
        for kind in sol_enums.AFFINITY_TYPES
        for index, (targets, scope) in enumerate(rules.get(kind, []))
        if scope == ZONE_SCOPE]
    built = grant_constraints.build(
        policies, None,
        [grant_constraints.NewVnfc(vdu_of(vnfc), vnfc)
         for vnfc in sorted(vnfcs)],
        default_fallback_best_effort=best_effort)
    return [constraint.to_dict() for constraint in built.constraints]


def flavors(vdu_params: dict, known: list[dict]) -> dict[str, dict]:
    """VNFC -> flavor size, for the VNFCs whose ``computeFlavourId`` (a
    flavor name or id) is one of Nova's ``known`` flavors."""
    by_key = flavor_map.by_name_or_id(known)
    return {vnfc: flavor_map.size(by_key[params['computeFlavourId']])
            for vnfc, params in vdu_params.items()
            if isinstance(params, dict)
            and params.get('computeFlavourId') in by_key}


def operation_request(*, operation: str, vnf_instance_id: str,
                      stack_name: str, fields: dict, targets: list[str],
                      rules: dict[str, list], known_flavors: list[dict],
                      grant_zones: list[str], best_effort: bool,
                      lcm_op_occ_id: str | None = None) -> dict:
    """Our operation request for the stack Tacker failed to create or
    update with ``fields`` (its ``template``, ``files``, ``parameters``).

    :param targets: the VNFCs this operation creates or heals (Tacker's
        ``vdu_ids``); only they move.
    :param rules: ``{'AFFINITY': [...], 'ANTI_AFFINITY': [...]}``, the
        VNFD's ``(targets, scope)`` rules of the instantiated flavour.
    :param lcm_op_occ_id: Tacker's LCM operation occurrence it runs in
        (its retry resumes the operation).
    """
    vdu_params = fields['parameters']['nfv'].get('VDU', {})
    zones = placement(vdu_params)
    request = {
        'operation': operation, 'vnf_instance_id': vnf_instance_id,
        'stack_name': stack_name, 'parameters': fields['parameters'],
        'placement': zones,
        'targets': sorted(vnfc for vnfc in targets if vnfc in zones),
        'constraints': constraints(rules, list(zones), best_effort),
        'flavors': flavors(vdu_params, known_flavors),
    }
    template = fields.get('template')
    if template:
        # Tacker keeps the top HOT as YAML text, whose
        # heat_template_version YAML reads as a date: keep it a string
        if isinstance(template, str):
            template = json.loads(json.dumps(files.parse_yaml(template),
                                             default=str))
        request['template'] = template
        request['files'] = fields.get('files') or {}
    if grant_zones:
        request['grant_zones'] = sorted(set(grant_zones))
    if lcm_op_occ_id:
        request['lcm_op_occ_id'] = lcm_op_occ_id
    return request
