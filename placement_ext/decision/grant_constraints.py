"""VNFM side: a GrantRequest's placementConstraints from the VNFD.

Pure: the caller passes the VNFD flavour's ``policies`` and ``groups``
(TOSCA, as parsed from the VNF package) and the operation's VNFC
instances; nothing is read from the VNFD store or from configuration.

Usage, for instantiate, scale-out and heal alike::

    result = grant_constraints.build(
        policies=flavour['topology_template']['policies'],
        groups=flavour['topology_template'].get('groups', {}),
        new_vnfcs=grant_constraints.new_vnfcs_from(grant_req.add_resources),
        existing_vnfcs=[ExistingVnfc(vdu_id, compute_resource_id, vim_id)
                        for every VNFC that stays],
        default_fallback_best_effort=conf.v2_vnfm.
            placement_fallback_best_effort,
        overrides=additional_params.get('placementFallbackBestEffort'))
    grant_req.placementConstraints = result.constraints
    for skipped in result.skipped: LOG.warning(...)

* Instantiate: every VNFC is new. Scale-out: the added VNFCs are new and
  the current ones existing. Heal: the re-created VNFCs are new (their
  addResources) and the VNFCs not healed existing. (Tacker sends no
  placement constraints for heal; we do, so the NFVO can keep
  anti-affinity when it places the healed VNFC.)
* ``tosca.policies.nfv.AffinityRule`` / ``AntiAffinityRule`` with scope
  ``zone`` or ``nfvi_node``; ``targets`` naming a
  ``tosca.groups.nfv.PlacementGroup`` expand to its ``members``. One
  constraint per policy: new VNFCs of the targets as ``GRANT``
  references, existing ones as ``RES_MGMT`` references (VIM id of the
  compute resource).
* A policy yielding no new VNFC or fewer than two resources (SOL 003
  requires 2..N) is skipped, with the reason, and does not stop the
  following policies (Tacker's ``break`` there skips them too).
  Other scopes are skipped with a reason, not silently.
* ``fallbackBestEffort`` is, by precedence: ``overrides[policy name]``
  (e.g. from the request's additionalParams), the policy's own
  ``properties.fallback_best_effort`` (our extension), then the default
  (``[v2_vnfm] placement_fallback_best_effort``).
"""

import dataclasses
from collections.abc import Iterable
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.sol import grant_request
from placement_ext.sol import placement_constraint as pc
from placement_ext.sol import vnfd
from placement_ext.vocabulary import sol_enums

AFFINITY_RULE = 'tosca.policies.nfv.AffinityRule'
ANTI_AFFINITY_RULE = 'tosca.policies.nfv.AntiAffinityRule'
PLACEMENT_GROUP = 'tosca.groups.nfv.PlacementGroup'
_RULES = {AFFINITY_RULE: sol_enums.AFFINITY,
          ANTI_AFFINITY_RULE: sol_enums.ANTI_AFFINITY}
_SCOPES = {'zone': sol_enums.ZONE, 'nfvi_node': sol_enums.NFVI_NODE}
FALLBACK_PROPERTY = 'fallback_best_effort'


@dataclasses.dataclass(frozen=True)
class NewVnfc:
    """A VNFC this operation creates: its VDU and addResources id."""

    vdu_id: str
    grant_resource_id: str


@dataclasses.dataclass(frozen=True)
class ExistingVnfc:
    """A VNFC that exists and stays: its VDU and compute resource."""

    vdu_id: str
    resource_id: str
    vim_connection_id: str | None = None
    resource_provider_id: str | None = None


@dataclasses.dataclass(frozen=True)
class SkippedPolicy:
    name: str
    reason: str


@dataclasses.dataclass(frozen=True)
class PolicyConstraints:
    """The constraints, the policy each came from, and what was skipped."""

    constraints: tuple[pc.PlacementConstraint, ...]
    policy_names: tuple[str, ...]
    skipped: tuple[SkippedPolicy, ...]


def new_vnfcs_from(resources: Iterable[grant_request.ResourceDefinition]
                   | None) -> tuple[NewVnfc, ...]:
    """NewVnfc of every COMPUTE resource definition (addResources)."""
    return tuple(NewVnfc(res.template, res.id) for res in resources or ()
                 if res.is_compute and res.template)


def build(policies: Iterable | Mapping, groups: Mapping | None,
          new_vnfcs: Iterable[NewVnfc],
          existing_vnfcs: Iterable[ExistingVnfc] = (),
          default_fallback_best_effort: bool = False,
          overrides: Mapping[str, bool] | None = None) -> PolicyConstraints:
    """Placement constraints for one GrantRequest, in policy order.

    :param policies: TOSCA ``policies``: a list of one-entry maps
        ``{name: {type, targets, properties}}`` or one map of them.
    :param groups: TOSCA ``groups`` (``{name: {type, members}}``).
    :param overrides: policy name -> fallbackBestEffort.
    :raises InvalidInput: a malformed policy, group or override.
    """
    new_vnfcs = tuple(new_vnfcs)
    existing_vnfcs = tuple(existing_vnfcs)
    overrides = _checked_overrides(overrides)
    constraints, names, skipped = [], [], []
    for name, policy in vnfd.policy_map(policies).items():
        kind = _RULES.get(policy.get('type'))
        if kind is None:
            continue  # scaling aspects, instantiation levels, ...
        vdus = _target_vdus(name, policy, groups or {})
        properties = policy.get('properties') or {}
        fallback = _fallback(name, properties, overrides,
                             default_fallback_best_effort)
        scope = _SCOPES.get(properties.get('scope'))
        refs = _refs(vdus, new_vnfcs, existing_vnfcs)
        reason = _skip_reason(properties.get('scope'), scope, vdus, refs)
        if reason:
            skipped.append(SkippedPolicy(name, reason))
            continue
        constraints.append(pc.PlacementConstraint(
            affinity_or_anti_affinity=kind, scope=scope, resource=refs,
            fallback_best_effort=fallback))
        names.append(name)
    return PolicyConstraints(tuple(constraints), tuple(names),
                             tuple(skipped))


def _target_vdus(name: str, policy: Mapping,
                 groups: Mapping) -> tuple[str, ...]:
    targets = policy.get('targets')
    if not isinstance(targets, list) or \
            not all(isinstance(t, str) for t in targets):
        raise exception.InvalidInput(field=f'policies.{name}.targets',
                                     reason='must be a list of names')
    vdus: dict[str, None] = {}
    for target in targets:
        group = groups.get(target)
        if isinstance(group, Mapping) and group.get('type') == PLACEMENT_GROUP:
            members = group.get('members')
            if not isinstance(members, list):
                raise exception.InvalidInput(
                    field=f'groups.{target}.members',
                    reason='must be a list of VDU names')
            vdus.update(dict.fromkeys(members))
        else:
            vdus[target] = None
    return tuple(vdus)


def _refs(vdus: tuple[str, ...], new_vnfcs: tuple[NewVnfc, ...],
          existing_vnfcs: tuple[ExistingVnfc, ...],
          ) -> tuple[pc.ConstraintResourceRef, ...]:
    new = [pc.ConstraintResourceRef.grant(vnfc.grant_resource_id)
           for vnfc in new_vnfcs if vnfc.vdu_id in vdus]
    if not new:
        return ()
    existing = [pc.ConstraintResourceRef.res_mgmt(
        vnfc.resource_id, vnfc.vim_connection_id, vnfc.resource_provider_id)
        for vnfc in existing_vnfcs if vnfc.vdu_id in vdus]
    return tuple(new + existing)


def _skip_reason(raw_scope: object, scope: str | None,
                 vdus: tuple[str, ...],
                 refs: tuple[pc.ConstraintResourceRef, ...]) -> str | None:
    if raw_scope is None:
        return 'no properties.scope'
    if scope is None:
        return (f'scope {raw_scope!r} is not supported in Grant '
                f'constraints (only {", ".join(_SCOPES)})')
    if not refs:
        return f'no new VNFC of {", ".join(vdus)} in this operation'
    if len(refs) < 2:
        return ('only one resource: SOL 003 needs at least two per '
                'constraint')
    return None


def _fallback(name: str, properties: Mapping, overrides: Mapping[str, bool],
              default: bool) -> bool:
    if name in overrides:
        return overrides[name]
    value = properties.get(FALLBACK_PROPERTY)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise exception.InvalidInput(
            field=f'policies.{name}.properties.{FALLBACK_PROPERTY}',
            reason='must be true or false')
    return value


def _checked_overrides(overrides: Mapping | None) -> dict[str, bool]:
    overrides = dict(overrides or {})
    for name, value in overrides.items():
        if not isinstance(value, bool):
            raise exception.InvalidInput(
                field=f'placementFallbackBestEffort.{name}',
                reason='must be true or false')
    return overrides
