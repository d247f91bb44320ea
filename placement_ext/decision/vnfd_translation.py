"""VNFD affinity rules into Heat: Nova server groups and scheduler hints.

Pure: the caller passes the parsed VNFD flavour, the decoded Heat
templates and, for the host-count check, how many compute hosts can take
the VNF's servers. Nothing is read or written here.

What :func:`translate` does with each ``tosca.policies.nfv.AffinityRule``
or ``AntiAffinityRule`` (targets: VDUs and/or
``tosca.groups.nfv.PlacementGroup``\\ s, expanded to their members):

* ``scope: nfvi_node`` (host): an ``OS::Nova::ServerGroup`` named
  ``<policy>_group`` in the top template (heat-translator's name), with
  ``policies: [anti-affinity]`` or ``[affinity]``, ``soft-`` prefixed
  when the rule is soft (its ``fallback_best_effort`` property, or the
  caller's override), and ``scheduler_hints: {group: ...}`` on the
  ``OS::Nova::Server`` of every member VDU, wherever it is:

  - a top-level ``OS::Nova::Server`` named after the VDU:
    ``{get_resource: <policy>_group}``;
  - the resource definition of an ``OS::Heat::AutoScalingGroup``
    (``resource``) or ``OS::Heat::ResourceGroup`` (``resource_def``)
    named after the VDU;
  - a nested template (Tacker v2: ``VDU1: {type: OS::Heat::
    AutoScalingGroup, properties: {resource: {type: VDU1.yaml}}}``, or
    StandardUserData's per-VNFC ``VDU1-0: {type: VDU1.yaml}``): the
    resource gets the property ``server_group: {get_resource: ...}``,
    the nested template a ``server_group`` string parameter and its
    server (the one named after the VDU, else the only one)
    ``scheduler_hints: {group: {get_param: server_group}}``; nested
    templates inside nested templates likewise.

* ``scope: zone``: a zone is not a server group. Nothing is added to the
  templates; a warning says the rule is left to the Grant's ZONE
  placement constraint (``placement-ext grant request``) and to zone
  reselection, which keep it.
* Other scopes (``nfvi_pop``, ``zone_group``, ...): a warning, nothing
  added.

Refused (:class:`~placement_ext.exception.InvalidInput` naming the
policy): an unknown target (see
:func:`placement_ext.sol.vnfd.affinity_rules`); a VDU in two
``nfvi_node`` rules (Nova puts a server in one group only); a VDU with no
server in the templates; a server already in another group; a nested
template shared by a member and a non-member; and, when ``hosts`` is
given, a hard anti-affinity rule whose members'
``min_number_of_instances`` add up to more than the usable hosts (per
zone when a hard zone-affinity rule keeps all its VDUs in one zone: then
the largest zone's hosts). A soft rule that is short of hosts is a
warning.

Idempotent: what a translation added is recognised, so translating its
output again changes nothing (``changed`` is false).

Over 400 lines as one module on purpose: the skeleton, the server groups
and the capacity checks share the translation's naming rules and its
idempotence, which would be scattered by a split.
"""

import copy
import dataclasses
import re
from collections.abc import Iterable
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.sol import vnfd as vnfd_mod

NFVI_NODE = 'nfvi_node'
ZONE = 'zone'
SERVER = 'OS::Nova::Server'
SERVER_GROUP = 'OS::Nova::ServerGroup'
AUTO_SCALING_GROUP = 'OS::Heat::AutoScalingGroup'
RESOURCE_GROUP = 'OS::Heat::ResourceGroup'
# the property an AutoScalingGroup or ResourceGroup defines its members in
_MEMBER_DEFINITION = {AUTO_SCALING_GROUP: 'resource',
                      RESOURCE_GROUP: 'resource_def'}
# the nested template's parameter carrying the server group id
GROUP_PARAM = 'server_group'
HEAT_TEMPLATE_VERSION = '2021-04-16'
_MAX_NESTING = 10


@dataclasses.dataclass(frozen=True)
class Translation:
    """The translated templates (name -> template, the top one first)."""

    templates: dict[str, dict]
    server_groups: dict[str, str]  # policy name -> group resource name
    warnings: tuple[str, ...]
    changed: bool


def server_group_name(policy: str) -> str:
    return f'{policy}_group'


def nova_policy(rule: vnfd_mod.AffinityRule) -> str:
    """``affinity``, ``anti-affinity`` or their ``soft-`` variants."""
    return ('soft-' if rule.soft else '') + rule.kind


def translate(flavour: vnfd_mod.Vnfd, templates: Mapping[str, Mapping],
              top: str, hosts: int | Mapping[str, int] | None = None,
              soft: Mapping[str, bool] | None = None) -> Translation:
    """Server groups and scheduler hints for the flavour's rules.

    :param templates: template name (as resources' ``type`` names it,
        e.g. ``VDU1.yaml``) -> decoded HOT; not changed.
    :param top: the name of the top template in ``templates``.
    :param hosts: usable compute hosts, in all (int) or per zone; None
        skips the host-count check.
    :param soft: policy name -> soft, overriding the policies'
        ``fallback_best_effort``.
    :raises InvalidInput: see the module's doc.
    """
    if top not in templates:
        raise exception.InvalidInput(field='templates',
                                     reason=f'no top template {top!r}')
    out = {name: copy.deepcopy(_template(name, tpl))
           for name, tpl in templates.items()}
    out = {top: out.pop(top), **out}
    rules = vnfd_mod.affinity_rules(flavour, soft)
    warnings: list[str] = []
    host_rules = _host_rules(rules, warnings)
    if hosts is not None:
        _check_hosts(flavour, rules, host_rules, hosts, warnings)
    groups: dict[str, str] = {}
    members: dict[str, str] = {}  # VDU -> group resource
    for rule in host_rules:
        groups[rule.name] = _server_group(out[top], rule)
        members.update(dict.fromkeys(rule.vdus, groups[rule.name]))
    edits = _Edits(out)
    for vdu, group in members.items():
        policy = next(r.name for r in host_rules if vdu in r.vdus)
        edits.attach(top, vdu, {'get_resource': group}, policy)
    edits.check_shared_templates(members)
    changed = out != {name: templates[name] for name in out}
    return Translation(out, groups, tuple(warnings), changed)


def skeleton(flavour: vnfd_mod.Vnfd, top: str = 'top.yaml'
             ) -> dict[str, dict]:
    """A Tacker v2 shaped BaseHOT for the flavour, to review or complete.

    The top template has one ``OS::Heat::AutoScalingGroup`` per VDU
    (``min_size``/``max_size`` from the ``vdu_profile``) whose members are
    the nested ``<VDU>.yaml``: one ``OS::Nova::Server``. As in Tacker's
    BaseHOTs, ``desired_capacity``, flavour and image come from the
    ``nfv`` parameter Tacker fills (``nfv.VDU.<VDU>.desired_capacity``
    from the instantiation level, ``computeFlavourId``, ``vcImageId``).
    The parameter's default holds each VDU's initial capacity (see
    :meth:`~placement_ext.sol.vnfd.Vnfd.initial_capacity`), so the
    template is valid without Tacker too (Heat refuses a
    ``desired_capacity`` outside ``min_size``..``max_size``).
    """
    resources, nested, defaults = {}, {}, {}
    for vdu in flavour.vdus:
        capacity = flavour.initial_capacity(vdu)
        defaults[vdu] = {'desired_capacity': capacity}
        resources[vdu] = {'type': AUTO_SCALING_GROUP, 'properties': {
            'min_size': flavour.min_instances.get(vdu, capacity),
            'max_size': flavour.max_instances.get(vdu, capacity),
            'desired_capacity': _nfv(vdu, 'desired_capacity'),
            'resource': {'type': f'{vdu}.yaml', 'properties': {
                'flavor': _nfv(vdu, 'computeFlavourId'),
                'image': _nfv(vdu, 'vcImageId'),
            }}}}
        nested[f'{vdu}.yaml'] = {
            'heat_template_version': HEAT_TEMPLATE_VERSION,
            'description': f'{vdu}: one VNFC',
            'parameters': {'flavor': {'type': 'string'},
                           'image': {'type': 'string'}},
            'resources': {vdu: {'type': SERVER, 'properties': {
                'name': vdu, 'flavor': {'get_param': 'flavor'},
                'image': {'get_param': 'image'}}}}}
    described = ', '.join(f'{k} {v}' for k, v in (
        ('VNFD', flavour.descriptor_id), ('flavour', flavour.flavour_id))
        if v)
    return {top: {
        'heat_template_version': HEAT_TEMPLATE_VERSION,
        'description': f'Generated from {described or "the VNFD"} by '
                       f'placement-ext vnfd translate',
        'parameters': {'nfv': {'type': 'json',
                               'default': {'VDU': defaults}}},
        'resources': resources}, **nested}


def _nfv(vdu: str, key: str) -> dict:
    """``get_param`` of the VDU's ``key`` in Tacker's ``nfv`` parameter."""
    return {'get_param': ['nfv', 'VDU', vdu, key]}


def _template(name: str, template: object) -> Mapping:
    if not isinstance(template, Mapping) or \
            not isinstance(template.get('resources') or {}, Mapping):
        raise exception.InvalidInput(
            field=f'templates.{name}',
            reason='must be a Heat template (a map with a resources map)')
    return template


def _host_rules(rules: Iterable[vnfd_mod.AffinityRule],
                warnings: list[str]) -> list[vnfd_mod.AffinityRule]:
    """The nfvi_node rules; a warning for each rule of another scope."""
    host_rules, owner = [], {}
    for rule in rules:
        if rule.scope == ZONE:
            warnings.append(
                f'{rule.name}: scope zone ({rule.kind} of '
                f'{", ".join(rule.vdus)}) is not a Nova server group; it '
                f'is left to the Grant\'s ZONE placement constraint '
                f'(placement-ext grant request) and to zone reselection')
            continue
        if rule.scope != NFVI_NODE:
            warnings.append(
                f'{rule.name}: scope {rule.scope!r} is not translated '
                f'(only nfvi_node becomes a server group); nothing added')
            continue
        for vdu in rule.vdus:
            if vdu in owner:
                raise exception.InvalidInput(
                    field=f'policies.{rule.name}.targets',
                    reason=f'VDU {vdu!r} is already in the nfvi_node rule '
                           f'{owner[vdu]!r}: Nova puts a server in one '
                           f'server group only')
            owner[vdu] = rule.name
        host_rules.append(rule)
    return host_rules


def _check_hosts(flavour: vnfd_mod.Vnfd,
                 rules: tuple[vnfd_mod.AffinityRule, ...],
                 host_rules: list[vnfd_mod.AffinityRule],
                 hosts: int | Mapping[str, int],
                 warnings: list[str]) -> None:
    for rule in host_rules:
        if not rule.anti:
            continue
        counts = {vdu: flavour.min_instances.get(vdu, flavour.vdus[vdu])
                  for vdu in rule.vdus}
        needed = sum(counts.values())
        usable, where = _usable_hosts(rule, rules, hosts)
        if needed <= usable:
            continue
        detail = ', '.join(f'{vdu}: {n}' for vdu, n in counts.items())
        reason = (f'{nova_policy(rule)} needs {needed} different hosts for '
                  f'min_number_of_instances ({detail}); {where} has '
                  f'{usable} usable compute host{"s" * (usable != 1)}')
        if rule.soft:
            warnings.append(f'{rule.name}: {reason}; soft, so Nova will '
                            f'put some of them together')
            continue
        raise exception.InvalidInput(field=f'policies.{rule.name}',
                                     reason=reason)


def _usable_hosts(rule: vnfd_mod.AffinityRule,
                  rules: tuple[vnfd_mod.AffinityRule, ...],
                  hosts: int | Mapping[str, int]) -> tuple[int, str]:
    """Hosts the rule's servers can spread over, and what they are."""
    if not isinstance(hosts, Mapping):
        return hosts, 'the cloud'
    one_zone = next((other.name for other in rules
                     if other.scope == ZONE and not other.anti
                     and not other.soft
                     and set(rule.vdus) <= set(other.vdus)), None)
    if one_zone is None:
        return sum(hosts.values()), 'the cloud'
    zone, count = max(hosts.items(), key=lambda item: (item[1], item[0]),
                      default=('no zone', 0))
    return count, (f'the largest zone ({zone}; {one_zone} keeps them in '
                   f'one zone)')


def _server_group(top: dict, rule: vnfd_mod.AffinityRule) -> str:
    name = server_group_name(rule.name)
    resources = top.setdefault('resources', {})
    existing = resources.get(name)
    if existing is not None and (not isinstance(existing, Mapping) or
                                 existing.get('type') != SERVER_GROUP):
        raise exception.InvalidInput(
            field=f'policies.{rule.name}',
            reason=f'the top template already has a resource {name!r} '
                   f'that is not an {SERVER_GROUP}')
    group = {'type': SERVER_GROUP, 'properties': {
        'name': name, 'policies': [nova_policy(rule)]}}
    if existing is not None:
        properties = dict(existing.get('properties') or {})
        properties.setdefault('name', name)
        properties.pop('policy', None)
        properties['policies'] = [nova_policy(rule)]
        group = {**existing, 'properties': properties}
    resources[name] = group
    return name


class _Edits:
    """Scheduler hints put into the templates, and who uses which
    nested template."""

    def __init__(self, templates: dict[str, dict]) -> None:
        self.templates = templates
        self.grouped: dict[str, str] = {}  # nested template -> policy

    def attach(self, top: str, vdu: str, group: object,
               policy: str) -> None:
        resources = self.templates[top].get('resources') or {}
        pattern = re.compile(re.escape(vdu) + r'(-\d+)?')
        found = [name for name in resources if pattern.fullmatch(name)]
        if not found:
            raise exception.InvalidInput(
                field=f'policies.{policy}',
                reason=f'VDU {vdu!r} has no resource in the top template '
                       f'{top!r} (a resource named {vdu}, or {vdu}-<n> per '
                       f'VNFC)')
        for name in found:
            self._member(top, resources[name], vdu, group, policy, 0)

    def _member(self, where: str, resource: object, vdu: str, group: object,
                policy: str, depth: int) -> None:
        if not isinstance(resource, dict):
            raise exception.InvalidInput(
                field=f'templates.{where}',
                reason=f'the resource of VDU {vdu!r} is not a map')
        kind = resource.get('type')
        if resource.get('properties') is None:
            resource['properties'] = {}
        properties = resource['properties']
        if not isinstance(properties, dict):
            raise exception.InvalidInput(
                field=f'templates.{where}',
                reason=f'the properties of VDU {vdu!r} are not a map')
        if kind in _MEMBER_DEFINITION:
            self._member(where, properties.get(_MEMBER_DEFINITION[kind]),
                         vdu, group, policy, depth)
        elif kind == SERVER:
            _hint(properties, group, vdu, policy)
        elif kind in self.templates:
            if depth >= _MAX_NESTING:
                raise exception.InvalidInput(
                    field=f'templates.{kind}',
                    reason=f'nested more than {_MAX_NESTING} deep')
            properties[GROUP_PARAM] = group
            self.grouped.setdefault(kind, policy)
            nested = self.templates[kind]
            parameters = nested.setdefault('parameters', {})
            declared = parameters.get(GROUP_PARAM)
            if declared is None:
                parameters[GROUP_PARAM] = {
                    'type': 'string',
                    'description': 'Nova server group of the server '
                                   '(placement-ext vnfd translate)'}
            elif not isinstance(declared, Mapping) or \
                    declared.get('type') != 'string':
                raise exception.InvalidInput(
                    field=f'templates.{kind}.parameters.{GROUP_PARAM}',
                    reason='already declared, and not as a string')
            server = _server_of(nested, kind, vdu, policy,
                                set(self.templates))
            self._member(kind, server, vdu,
                         {'get_param': GROUP_PARAM}, policy, depth + 1)
        else:
            raise exception.InvalidInput(
                field=f'policies.{policy}',
                reason=f'the resource of VDU {vdu!r} in {where!r} has type '
                       f'{kind!r}: neither {SERVER}, an {AUTO_SCALING_GROUP}'
                       f' or {RESOURCE_GROUP}, nor a template given')

    def check_shared_templates(self, members: Mapping[str, str]) -> None:
        """Every user of a nested template that now takes a server
        group passes one."""
        for where, template in self.templates.items():
            for name, resource in (template.get('resources') or {}).items():
                for kind, properties in _uses(resource):
                    if kind in self.grouped and \
                            GROUP_PARAM not in properties:
                        raise exception.InvalidInput(
                            field=f'policies.{self.grouped[kind]}',
                            reason=f'{kind!r} now puts its server in a '
                                   f'server group, but resource {name!r} '
                                   f'of {where!r} uses it too and is in '
                                   f'no nfvi_node rule; give its VDU its '
                                   f'own nested template')


def _uses(resource: object) -> list[tuple[str, Mapping]]:
    """(type, properties) of a resource and of its group's members."""
    out = []
    while isinstance(resource, Mapping):
        properties = resource.get('properties') or {}
        out.append((resource.get('type'), properties))
        kind = resource.get('type')
        resource = properties.get(_MEMBER_DEFINITION[kind]) \
            if kind in _MEMBER_DEFINITION and isinstance(properties,
                                                         Mapping) else None
    return out


def _server_of(template: Mapping, name: str, vdu: str, policy: str,
               nested: set[str]) -> object:
    resources = template.get('resources') or {}
    if vdu in resources:
        return resources[vdu]
    candidates = [r for r in resources.values()
                  if isinstance(r, Mapping) and (
                      r.get('type') == SERVER or r.get('type') in nested
                      or r.get('type') in _MEMBER_DEFINITION)]
    if len(candidates) != 1:
        raise exception.InvalidInput(
            field=f'policies.{policy}',
            reason=f'the nested template {name!r} of VDU {vdu!r} has '
                   f'{len(candidates)} servers and none named {vdu}')
    return candidates[0]


def _hint(properties: dict, group: object, vdu: str, policy: str) -> None:
    hints = properties.get('scheduler_hints')
    if hints is None:
        hints = properties['scheduler_hints'] = {}
    if not isinstance(hints, dict):
        raise exception.InvalidInput(
            field=f'policies.{policy}',
            reason=f'the scheduler_hints of VDU {vdu!r} are not a map')
    if hints.get('group', group) != group:
        raise exception.InvalidInput(
            field=f'policies.{policy}',
            reason=f'the server of VDU {vdu!r} is already in the server '
                   f'group {hints["group"]!r}: Nova puts a server in one '
                   f'group only')
    hints['group'] = group
