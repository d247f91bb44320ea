"""A VNFD deployment flavour (ETSI NFV-SOL 001 TOSCA): what a Grant needs.

:func:`parse` reads the decoded document of one VNFD file, the
flavour's: the one whose ``topology_template`` holds the VDUs, the
``policies`` and the ``groups`` (``imports`` are not followed). Pure: the
caller reads the file.

* VDUs: the node templates of type ``tosca.nodes.nfv.Vdu.Compute``, in
  document order, each with its initial number of instances
  (``tosca.policies.nfv.VduInitialDelta``, else 1).
* ``flavour_id``: ``substitution_mappings.properties.flavour_id``, else
  a node template's ``flavour_id`` property. ``descriptor_id``: the same
  places, then the default of the substituted node type's
  ``descriptor_id`` property (Tacker's sample packages declare it there).
  Values that are not strings (``{get_input: ...}``) are not used.
* ``policies``: one ordered map name -> definition (TOSCA allows a list
  of one-entry maps or a map); with ``groups``, what
  :func:`placement_ext.decision.grant_constraints.build` takes.
* :func:`affinity_rules`: the ``AffinityRule`` / ``AntiAffinityRule``
  policies with their targets resolved to VDUs (a
  ``tosca.groups.nfv.PlacementGroup`` target expands to its members),
  checked: an unknown target is refused naming the policy.
"""

import dataclasses
from collections.abc import Mapping

from placement_ext import exception

VDU_COMPUTE = 'tosca.nodes.nfv.Vdu.Compute'
VDU_INITIAL_DELTA = 'tosca.policies.nfv.VduInitialDelta'
AFFINITY_RULE = 'tosca.policies.nfv.AffinityRule'
ANTI_AFFINITY_RULE = 'tosca.policies.nfv.AntiAffinityRule'
PLACEMENT_GROUP = 'tosca.groups.nfv.PlacementGroup'
# properties.fallback_best_effort: our extension of the rules (a rule
# that may be relaxed: best effort in a Grant, a soft Nova policy)
FALLBACK_PROPERTY = 'fallback_best_effort'


@dataclasses.dataclass(frozen=True)
class Vnfd:
    """One deployment flavour of a VNFD."""

    vdus: Mapping[str, int]  # VDU id -> initial number of instances
    policies: Mapping[str, Mapping]
    groups: Mapping[str, object]
    flavour_id: str | None = None
    descriptor_id: str | None = None
    # VDU id -> vdu_profile.max_number_of_instances, where the VNFD says
    max_instances: Mapping[str, int] = dataclasses.field(
        default_factory=dict)
    # VDU id -> vdu_profile.min_number_of_instances, where the VNFD says
    min_instances: Mapping[str, int] = dataclasses.field(
        default_factory=dict)

    def initial_capacity(self, vdu: str) -> int:
        """The VDU's initial instances, raised to its
        ``min_number_of_instances``: a count Heat's AutoScalingGroup
        accepts (``desired_capacity`` between ``min_size`` and
        ``max_size``; parse checked the initial count against the max)."""
        return max(self.vdus[vdu], self.min_instances.get(vdu, 0))

    def placement_policies(self, types: tuple[str, ...]) -> tuple[str, ...]:
        """Names of the policies of the given ``types``, in order."""
        return tuple(name for name, policy in self.policies.items()
                     if policy.get('type') in types)


def parse(document: object) -> Vnfd:
    """The flavour described by a decoded VNFD file.

    :raises InvalidInput: naming the part of the document at fault.
    """
    topology = _map(_map(document, 'VNFD').get('topology_template'),
                    'topology_template')
    nodes = _map(topology.get('node_templates'), 'node_templates')
    for name, node in nodes.items():
        _name(name, 'node_templates')
        _map(node, f'node_templates.{name}')
    policies = policy_map(topology.get('policies'))
    vdus = {name: 1 for name, node in nodes.items()
            if node.get('type') == VDU_COMPUTE}
    if not vdus:
        raise exception.InvalidInput(
            field='node_templates',
            reason=f'no node template of type {VDU_COMPUTE}')
    vdus.update(_initial_deltas(policies, vdus))
    max_instances = _instances(nodes, vdus, 'max_number_of_instances', 1)
    min_instances = _instances(nodes, vdus, 'min_number_of_instances', 0)
    for vdu_id, count in vdus.items():
        if min_instances.get(vdu_id, 0) > max_instances.get(vdu_id,
                                                            float('inf')):
            raise exception.InvalidInput(
                field=f'node_templates.{vdu_id}.properties.vdu_profile',
                reason=f'min_number_of_instances {min_instances[vdu_id]} '
                       f'exceeds max_number_of_instances '
                       f'{max_instances[vdu_id]}')
        if count > max_instances.get(vdu_id, count):
            raise exception.InvalidInput(
                field=f'node_templates.{vdu_id}.properties.vdu_profile',
                reason=f'its initial {count} instances exceed '
                       f'max_number_of_instances '
                       f'{max_instances[vdu_id]}')
    substitution = _map(topology.get('substitution_mappings') or {},
                        'substitution_mappings')
    return Vnfd(
        vdus=vdus, policies=policies, max_instances=max_instances,
        min_instances=min_instances,
        groups=_map(topology.get('groups') or {}, 'groups'),
        flavour_id=_property(substitution, nodes, 'flavour_id'),
        descriptor_id=_property(substitution, nodes, 'descriptor_id')
        or _type_default(document, substitution, 'descriptor_id'))


def _name(name: object, where: str) -> str:
    """A template or policy name: YAML allows ``1:`` as a key, TOSCA
    names are strings."""
    if not isinstance(name, str) or not name:
        raise exception.InvalidInput(
            field=f'{where}.{name}',
            reason=f'the name must be a non-empty string, not {name!r}')
    return name


def _instances(nodes: Mapping, vdus: Mapping[str, int], name: str,
               least: int) -> dict[str, int]:
    out = {}
    for vdu_id in vdus:
        value = _lookup(nodes[vdu_id], 'properties', 'vdu_profile', name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) \
                or value < least:
            raise exception.InvalidInput(
                field=f'node_templates.{vdu_id}.properties.vdu_profile.'
                      f'{name}',
                reason=f'must be a whole number of at least {least}, not '
                       f'{value!r}')
        out[vdu_id] = value
    return out


def _map(value: object, field: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise exception.InvalidInput(field=field, reason='must be a map')
    return value


def policy_map(policies: object) -> dict[str, Mapping]:
    """TOSCA ``policies`` (a list of one-entry maps, or one map) as one
    ordered map name -> definition.

    :raises InvalidInput: an entry that is not a one-entry map, a name
        defined twice, a definition that is not a map.
    """
    if policies is None:
        return {}
    if isinstance(policies, Mapping):
        entries = [policies]
    elif isinstance(policies, list):
        entries = policies
    else:
        raise exception.InvalidInput(
            field='policies', reason='must be a list of one-entry maps')
    out: dict[str, Mapping] = {}
    for index, entry in enumerate(entries):
        if isinstance(policies, list) and (
                not isinstance(entry, Mapping) or len(entry) != 1):
            raise exception.InvalidInput(
                field=f'policies[{index}]',
                reason='must map one policy name to its definition')
        for name, policy in entry.items():
            _name(name, 'policies')
            if name in out:
                raise exception.InvalidInput(
                    field=f'policies.{name}', reason='defined twice')
            out[name] = _map(policy, f'policies.{name}')
    return out


def _initial_deltas(policies: Mapping[str, Mapping],
                    vdus: Mapping[str, int]) -> dict[str, int]:
    deltas = {}
    for name, policy in policies.items():
        if policy.get('type') != VDU_INITIAL_DELTA:
            continue
        count = _lookup(policy, 'properties', 'initial_delta',
                        'number_of_instances')
        if isinstance(count, bool) or not isinstance(count, int) \
                or count < 0:
            raise exception.InvalidInput(
                field=f'policies.{name}.properties.initial_delta.'
                      'number_of_instances',
                reason='must be a whole number of at least 0')
        targets = policy.get('targets')
        if not isinstance(targets, list) or not targets:
            raise exception.InvalidInput(field=f'policies.{name}.targets',
                                         reason='must be a list of VDUs')
        for target in targets:
            if not isinstance(target, str) or target not in vdus:
                raise exception.InvalidInput(
                    field=f'policies.{name}.targets',
                    reason=f'{target!r} is not a VDU of the VNFD')
            deltas[target] = count
    return deltas


def _property(substitution: Mapping, nodes: Mapping,
              name: str) -> str | None:
    for owner in [substitution, *nodes.values()]:
        value = _lookup(owner, 'properties', name)
        if isinstance(value, str) and value:
            return value
    return None


def _type_default(document: Mapping, substitution: Mapping,
                  name: str) -> str | None:
    node_type = substitution.get('node_type')
    if not isinstance(node_type, str):
        return None
    value = _lookup(document, 'node_types', node_type, 'properties', name,
                    'default')
    return value if isinstance(value, str) and value else None


def _lookup(value: object, *keys: str) -> object:
    """``value[key1][key2]...``; None where a level is missing or not a
    map."""
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


@dataclasses.dataclass(frozen=True)
class AffinityRule:
    """An ``AffinityRule`` / ``AntiAffinityRule`` policy, targets resolved.

    ``soft``: the policy's ``properties.fallback_best_effort`` is true
    (the rule may be relaxed), unless overridden by the caller.
    """

    name: str
    anti: bool
    scope: str
    vdus: tuple[str, ...]
    soft: bool = False

    @property
    def kind(self) -> str:
        return 'anti-affinity' if self.anti else 'affinity'


def affinity_rules(flavour: Vnfd,
                   soft: Mapping[str, bool] | None = None
                   ) -> tuple[AffinityRule, ...]:
    """The flavour's affinity and anti-affinity rules, in policy order.

    :param soft: policy name -> soft, overriding the policy's
        ``fallback_best_effort`` property.
    :raises InvalidInput: naming the policy (``policies.<name>...``): a
        target that is neither a VDU nor a PlacementGroup of the VNFD, a
        group member that is not a VDU, no ``scope``, a
        ``fallback_best_effort`` that is not a boolean; or an override
        naming no such rule.
    """
    soft = dict(soft or {})
    rules = []
    for name, policy in flavour.policies.items():
        anti = {ANTI_AFFINITY_RULE: True,
                AFFINITY_RULE: False}.get(policy.get('type'))
        if anti is None:
            continue
        properties = _map(policy.get('properties') or {},
                          f'policies.{name}.properties')
        scope = properties.get('scope')
        if not isinstance(scope, str) or not scope:
            raise exception.InvalidInput(
                field=f'policies.{name}.properties.scope',
                reason='a rule needs a scope (nfvi_node, zone, ...)')
        fallback = properties.get(FALLBACK_PROPERTY, False)
        if not isinstance(fallback, bool):
            raise exception.InvalidInput(
                field=f'policies.{name}.properties.{FALLBACK_PROPERTY}',
                reason='must be true or false')
        rules.append(AffinityRule(
            name=name, anti=anti, scope=scope,
            vdus=_rule_vdus(flavour, name, policy.get('targets')),
            soft=soft.pop(name, fallback)))
    if soft:
        raise exception.InvalidInput(
            field='policies',
            reason=f'no affinity or anti-affinity rule named '
                   f'{", ".join(sorted(soft))}')
    return tuple(rules)


def _rule_vdus(flavour: Vnfd, name: str, targets: object
               ) -> tuple[str, ...]:
    field = f'policies.{name}.targets'
    if not isinstance(targets, list) or not targets or \
            not all(isinstance(t, str) for t in targets):
        raise exception.InvalidInput(
            field=field, reason='must be a non-empty list of VDU or '
                                'PlacementGroup names')
    vdus: dict[str, None] = {}
    for target in targets:
        if target in flavour.vdus:
            vdus[target] = None
            continue
        group = flavour.groups.get(target)
        if not isinstance(group, Mapping) or \
                group.get('type') != PLACEMENT_GROUP:
            raise exception.InvalidInput(
                field=field,
                reason=f'{target!r} is neither a VDU nor a {PLACEMENT_GROUP}'
                       f' of the VNFD')
        members = group.get('members')
        if not isinstance(members, list) or not members:
            raise exception.InvalidInput(
                field=field, reason=f'group {target!r} has no members list')
        for member in members:
            if not isinstance(member, str) or member not in flavour.vdus:
                raise exception.InvalidInput(
                    field=field,
                    reason=f'group {target!r}: member {member!r} is not a '
                           f'VDU of the VNFD')
            vdus[member] = None
    return tuple(vdus)
