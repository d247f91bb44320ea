"""Realise a deployment intent in a Heat template (ONAP OOF's
cloud-agnostic intent, step 7).

Pure: the template and the region's flavors in, the changed template and
a list of what changed out. Nothing else in the template changes.

- Infrastructure HA: one ``OS::Nova::ServerGroup`` with the
  ``anti-affinity`` policy per VNFC, and ``scheduler_hints: {group: ...}``
  on every server of the VNFC, also inside an ``OS::Heat::ResourceGroup``
  or ``OS::Heat::AutoScalingGroup`` (whose count is the scale-out
  factor). A server already in another group is refused, not moved.
- Resource isolation: the servers of the VNFC get the flavor whose extra
  specs give the asked QoS, of at least the template flavor's size (the
  same size when there is one). A flavor's oversubscription is its own
  ``placement_ext:oversubscription_percent`` extra spec, or follows from
  ``quota:cpu_reservation_percent`` and ``quota:memory_reservation_percent``
  (both needed; the lower counts): reserving R% of the vCPUs and memory
  lets the instance burst to 100/R of its guarantee, an oversubscription
  of 100/R - 1 (R=80: 25%; R=100: 0%, Guaranteed QoS). ONAP's VMware
  plugin published R itself as the "oversubscription"; we do not.

Realising twice gives the same template (idempotent).
"""

import copy
import dataclasses
from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext import exception
from placement_ext.decision import homing
from placement_ext.schemas import homing as schema

SERVER = 'OS::Nova::Server'
SERVER_GROUP = 'OS::Nova::ServerGroup'
# group resource type -> property holding the member definition
_GROUPS = {'OS::Heat::ResourceGroup': 'resource_def',
           'OS::Heat::AutoScalingGroup': 'resource'}
OVERSUBSCRIPTION_SPEC = 'placement_ext:oversubscription_percent'
RESERVATION_SPECS = ('quota:cpu_reservation_percent',
                     'quota:memory_reservation_percent')


@dataclasses.dataclass(frozen=True)
class Flavor:
    name: str
    vcpus: int
    ram: int
    disk: int
    extra_specs: Mapping[str, str] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping) -> 'Flavor':
        return cls(data['name'], data['vcpus'], data['ram'], data['disk'],
                   dict(data.get('extra_specs') or {}))

    @property
    def size(self) -> tuple[int, int, int]:
        return (self.vcpus, self.ram, self.disk)

    def oversubscription(self) -> int | None:
        """Percent, 0 for Guaranteed QoS; None when the flavor does not
        say (or says something unreadable)."""
        try:
            explicit = self.extra_specs.get(OVERSUBSCRIPTION_SPEC)
            if explicit is not None:
                return max(0, int(explicit))
            reserved = [int(self.extra_specs[key])
                        for key in RESERVATION_SPECS]
        except (KeyError, ValueError):
            return None
        lowest = min(reserved)
        if lowest <= 0:
            return None  # nothing guaranteed: unbounded oversubscription
        return 0 if lowest >= 100 else round(100 * (100 / lowest - 1))


@dataclasses.dataclass(frozen=True)
class Realization:
    template: dict
    changes: tuple[str, ...]
    flavor: str | None = None
    environment: dict | None = None

    def to_dict(self) -> dict:
        data = {'template': self.template, 'changes': list(self.changes),
                'flavor': self.flavor}
        if self.environment is not None:
            data['environment'] = self.environment
        return data


def realize(template: Mapping, intent: homing.Intent,
            flavors: Sequence[Flavor] | None = None,
            environment: Mapping | None = None) -> Realization:
    """The template with ``intent`` realised for ``intent.vnfc``.

    :param flavors: the chosen region's flavors (with extra specs);
        needed only for a resource isolation intent.
    :param environment: the template's Heat environment: a server whose
        flavor is a parameter the environment sets gets its flavor
        there (``parameters``), the template unchanged, as the
        specification suggests (switch to a pre-defined flavor in the
        environment file).
    :raises InvalidInput: ``template`` is not a Heat template.
    :raises IntentUnrealisable: no server of the VNFC, a server already in
        another server group, or no flavor with the asked QoS.
    """
    _check_template(template)
    result = copy.deepcopy(dict(template))
    env = None if environment is None else _environment(environment)
    servers = _vnfc_servers(result['resources'], intent.vnfc)
    if not servers:
        raise exception.IntentUnrealisable(
            reason=f'the template has no {SERVER} '
                   f'{_of_vnfc(intent.vnfc)}')
    changes = []
    if intent.high_availability:
        changes += _anti_affinity(result['resources'], servers, intent.vnfc)
    flavor = None
    if intent.isolation:
        flavor, change = _isolation_flavor(result, servers, intent, flavors,
                                           env)
        changes += change
    return Realization(result, tuple(changes), flavor, env)


def _environment(environment: object) -> dict:
    """A copy of the Heat environment, checked."""
    if not isinstance(environment, Mapping) or not isinstance(
            environment.get('parameters', {}), Mapping):
        raise exception.InvalidInput(
            field='environment',
            reason='must be a Heat environment (a mapping whose '
                   'parameters are a mapping)')
    return copy.deepcopy(dict(environment))


def _parameter(flavor: object) -> str | None:
    """The parameter a server's ``flavor: {get_param: P}`` names."""
    if isinstance(flavor, Mapping) and isinstance(flavor.get('get_param'),
                                                  str):
        return flavor['get_param']
    return None


def _check_template(template: object) -> None:
    if not isinstance(template, Mapping) or \
            'heat_template_version' not in template:
        raise exception.InvalidInput(
            field='template',
            reason='is not a Heat template (no heat_template_version)')
    resources = template.get('resources')
    if not isinstance(resources, Mapping) or not all(
            isinstance(r, Mapping) for r in resources.values()):
        raise exception.InvalidInput(
            field='template.resources',
            reason='must map resource names to resource definitions')


def _of_vnfc(vnfc: str | None) -> str:
    return f'for VNFC {vnfc}' if vnfc else 'at all'


def _belongs(name: str, properties: Mapping, vnfc: str | None) -> bool:
    if vnfc is None or name == vnfc:
        return True
    if name.startswith(vnfc) and name[len(vnfc):len(vnfc) + 1] in '-_':
        return True
    metadata = properties.get('metadata')
    return isinstance(metadata, Mapping) and metadata.get('vnfc') == vnfc


def _vnfc_servers(resources: dict, vnfc: str | None
                  ) -> list[tuple[str, dict]]:
    """(where, properties) of every server of the VNFC, group members
    included; ``properties`` is the live dict to change."""
    servers = []
    for name, resource in sorted(resources.items()):
        kind = resource.get('type')
        if kind != SERVER and kind not in _GROUPS or \
                not _belongs(name, resource.get('properties') or {}, vnfc):
            continue
        properties = resource.setdefault('properties', {})
        if kind == SERVER:
            servers.append((name, properties))
        else:
            member = properties.get(_GROUPS[kind])
            if isinstance(member, dict) and member.get('type') == SERVER:
                servers.append((f'{name} members',
                                member.setdefault('properties', {})))
    return servers


def _anti_affinity(resources: dict, servers: list, vnfc: str | None
                   ) -> list[str]:
    group = f'{vnfc or "vnf"}_anti_affinity'
    wanted = {'type': SERVER_GROUP,
              'properties': {'name': group, 'policies': ['anti-affinity']}}
    changes = []
    if group not in resources:
        resources[group] = wanted
        changes.append(f'added {SERVER_GROUP} {group} (anti-affinity)')
    elif resources[group] != wanted:
        raise exception.IntentUnrealisable(
            reason=f'the template already has a resource {group} that is '
                   f'not an anti-affinity server group')
    reference = {'get_resource': group}
    for where, properties in servers:
        hints = properties.get('scheduler_hints') or {}
        if not isinstance(hints, dict):
            raise exception.IntentUnrealisable(
                reason=f'{where}: scheduler_hints is not a mapping')
        current = hints.get('group')
        if current == reference:
            continue
        if current is not None:
            raise exception.IntentUnrealisable(
                reason=f'{where} is already in server group {current!r}; '
                       f'{schema.HIGH_AVAILABILITY} would move it')
        properties['scheduler_hints'] = dict(hints, group=reference)
        changes.append(f'{where}: scheduler_hints.group = {group}')
    return changes


def _isolation_flavor(template: dict, servers: list, intent: homing.Intent,
                      flavors: Sequence[Flavor] | None,
                      environment: dict | None = None
                      ) -> tuple[str, list[str]]:
    if flavors is None:
        raise exception.IntentUnrealisable(
            reason=f'{intent.isolation} needs the region\'s flavors')
    by_name = {flavor.name: flavor for flavor in flavors}
    wanted = intent.oversubscription or 0
    set_by_env = {} if environment is None else \
        environment.setdefault('parameters', {})
    base = _base_flavor(template, servers, by_name, set_by_env)
    chosen = _choose_flavor(flavors, wanted, base)
    if chosen is None:
        near = f' of at least {base.name}\'s size {base.size}' if base else ''
        raise exception.IntentUnrealisable(
            reason=f'the region has no flavor{near} with '
                   f'{_describe_qos(intent)}: none says '
                   f'{OVERSUBSCRIPTION_SPEC}={wanted} or has both '
                   f'{" and ".join(RESERVATION_SPECS)} giving it')
    changes = []
    for where, properties in servers:
        parameter = _parameter(properties.get('flavor'))
        if parameter in set_by_env:
            if set_by_env[parameter] != chosen.name:
                set_by_env[parameter] = chosen.name
                changes.append(f'environment parameter {parameter} '
                               f'({where}) = {chosen.name} '
                               f'({_describe_qos(intent)})')
        elif properties.get('flavor') != chosen.name:
            properties['flavor'] = chosen.name
            changes.append(f'{where}: flavor = {chosen.name} '
                           f'({_describe_qos(intent)})')
    return chosen.name, changes


def _describe_qos(intent: homing.Intent) -> str:
    if intent.isolation == schema.BURSTABLE_QOS:
        return f'{schema.BURSTABLE_QOS} {intent.oversubscription}%'
    return schema.GUARANTEED_QOS


def _base_flavor(template: Mapping, servers: list,
                 by_name: Mapping[str, Flavor],
                 set_by_env: Mapping) -> Flavor | None:
    """The flavor the VNFC's servers name (literal, a parameter's value
    in the environment or its default), if the region has it."""
    parameters = template.get('parameters') or {}
    for _where, properties in servers:
        flavor = properties.get('flavor')
        parameter = _parameter(flavor)
        if parameter in set_by_env:
            flavor = set_by_env[parameter]
        elif isinstance(flavor, Mapping):
            flavor = (parameters.get(parameter) or {}).get('default') \
                if parameter else None
        if isinstance(flavor, str) and flavor in by_name:
            return by_name[flavor]
    return None


def _choose_flavor(flavors: Sequence[Flavor], percent: int,
                   base: Flavor | None) -> Flavor | None:
    matching = [flavor for flavor in flavors
                if flavor.oversubscription() == percent]
    if base is not None:
        matching = [flavor for flavor in matching
                    if all(have >= need for have, need
                           in zip(flavor.size, base.size, strict=True))]
    if not matching:
        return None
    return min(matching, key=lambda flavor: (flavor.size, flavor.name))
