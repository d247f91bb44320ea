"""GET /allocation_candidates: a typed request and typed results.

The request is the unnumbered group plus numbered (granular) groups, each
with ``resources``, ``required``, ``member_of`` and ``in_tree``, and the
request-wide ``group_policy`` and ``limit``. It is checked before it is
sent, with Placement's own rules, so a mistake is an ``InvalidInput``
naming the query parameter instead of a 400 from the server.

Results are :class:`AllocationCandidates`: each candidate lists which
provider gives which resource, and the provider summaries give capacity,
usage, traits and tree position of every provider involved.
"""

import dataclasses
import re
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence

from oslo_utils import uuidutils

from placement_ext import exception

Version = tuple[int, int]

GROUP_POLICIES = ('none', 'isolate')
SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'
_NAME_RE = re.compile(r'^[A-Z0-9_]+$')
_NUMERIC_SUFFIX_RE = re.compile(r'^[1-9][0-9]*$')
_SUFFIX_RE = re.compile(r'^[a-zA-Z0-9_-]{1,64}$')

# Microversions of the query features, from Placement's version history.
V_NESTED = (1, 29)          # our floor: nested providers in candidates
V_GRANULAR = (1, 25)        # resources<N> and friends
V_IN_TREE = (1, 31)         # in_tree and in_tree<N>
V_FORBIDDEN_AGG = (1, 32)   # member_of=!<agg>
V_STRING_SUFFIX = (1, 33)   # resources_<NAME>
V_MAPPINGS = (1, 34)        # "mappings" in allocation requests
V_ANY_TRAITS = (1, 39)      # required=in:T1,T2


@dataclasses.dataclass(frozen=True)
class RequestGroup:
    """One request group of GET /allocation_candidates.

    :param resources: resource class -> amount, e.g. ``{'VCPU': 1}``.
    :param required: trait names; ``'!NAME'`` forbids a trait and
        ``'in:A,B'`` asks for any of several (microversion 1.39).
    :param member_of: aggregate filters, all of which must hold. Each
        item is one aggregate UUID (``'!UUID'`` to exclude it) or a list
        of UUIDs of which the provider must be in at least one.
    :param in_tree: a provider UUID: only providers of its tree qualify.
    """

    resources: Mapping[str, int] = dataclasses.field(default_factory=dict)
    required: Sequence[str] = ()
    member_of: Sequence[str | Sequence[str]] = ()
    in_tree: str | None = None


@dataclasses.dataclass(frozen=True)
class AllocationCandidatesRequest:
    """The unnumbered group, numbered groups by suffix, policy and limit.

    A numbered group must be satisfied by one provider; the unnumbered
    group may be spread over a tree and sharing providers. Placement
    requires ``group_policy`` once there is more than one numbered group.
    """

    group: RequestGroup | None = None
    numbered: Mapping[str | int, RequestGroup] = dataclasses.field(
        default_factory=dict)
    group_policy: str | None = None
    limit: int | None = None

    def groups(self) -> list[tuple[str, RequestGroup]]:
        """(suffix, group) pairs; '' is the unnumbered group."""
        pairs = [('', self.group)] if self.group is not None else []
        return pairs + [(str(k), g) for k, g in self.numbered.items()]

    def in_tree_uuids(self) -> list[str]:
        return sorted({g.in_tree for _, g in self.groups() if g.in_tree})

    def validate(self) -> None:
        """Raise InvalidInput naming the first bad query parameter."""
        if not self.groups():
            raise exception.InvalidInput(
                field='resources', reason='the request has no group')
        for suffix, group in self.groups():
            _validate_group(suffix, group)
        if self.group_policy is not None and \
                self.group_policy not in GROUP_POLICIES:
            raise exception.InvalidInput(
                field='group_policy',
                reason=f'{self.group_policy!r} is not one of '
                       f'{", ".join(GROUP_POLICIES)}')
        if len(self.numbered) > 1 and self.group_policy is None:
            raise exception.InvalidInput(
                field='group_policy',
                reason=f'Placement requires it with more than one numbered '
                       f'group (got {len(self.numbered)}: '
                       f'{", ".join(s for s, _ in self.groups() if s)}); '
                       f'use "none" or "isolate"')
        if self.limit is not None and (
                isinstance(self.limit, bool)
                or not isinstance(self.limit, int) or self.limit < 1):
            raise exception.InvalidInput(
                field='limit',
                reason=f'{self.limit!r} is not a positive integer')

    def required_versions(self) -> list[tuple[Version, str]]:
        """(microversion, query parameter) for each feature used."""
        needs = [(V_NESTED, 'allocation_candidates')]
        for suffix, group in self.groups():
            if suffix:
                needs.append((V_STRING_SUFFIX
                              if not _NUMERIC_SUFFIX_RE.match(suffix)
                              else V_GRANULAR, f'resources{suffix}'))
            if group.in_tree:
                needs.append((V_IN_TREE, f'in_tree{suffix}'))
            if any(str(m).startswith('!') for m in group.member_of
                   if isinstance(m, str)):
                needs.append((V_FORBIDDEN_AGG, f'member_of{suffix}'))
            if any(t.startswith('in:') for t in group.required):
                needs.append((V_ANY_TRAITS, f'required{suffix}'))
        return needs

    def to_params(self) -> list[tuple[str, str]]:
        """The query string as (name, value) pairs, names may repeat."""
        params = []
        for suffix, group in self.groups():
            params.extend(_group_params(suffix, group))
        if self.group_policy is not None:
            params.append(('group_policy', self.group_policy))
        if self.limit is not None:
            params.append(('limit', str(self.limit)))
        return params


def _group_params(suffix: str, group: RequestGroup) -> list[tuple]:
    params = [(f'resources{suffix}', ','.join(
        f'{rc}:{amount}' for rc, amount in sorted(group.resources.items())))]
    plain = [t for t in group.required if not t.startswith('in:')]
    if plain:
        params.append((f'required{suffix}', ','.join(plain)))
    params.extend((f'required{suffix}', t) for t in group.required
                  if t.startswith('in:'))
    for item in group.member_of:
        value = item if isinstance(item, str) else (
            item[0] if len(item) == 1 else 'in:' + ','.join(item))
        params.append((f'member_of{suffix}', value))
    if group.in_tree:
        params.append((f'in_tree{suffix}', group.in_tree))
    return params


def _validate_group(suffix: str, group: RequestGroup) -> None:
    if suffix and not _SUFFIX_RE.match(suffix):
        raise exception.InvalidInput(
            field=f'resources{suffix}',
            reason='a group suffix is 1 to 64 letters, digits, _ or -')
    field = f'resources{suffix}'
    if not group.resources:
        raise exception.InvalidInput(field=field,
                                     reason='no resources requested')
    for rc, amount in group.resources.items():
        if not _NAME_RE.match(str(rc)):
            raise exception.InvalidInput(
                field=field, reason=f'{rc!r} is not a resource class name')
        if isinstance(amount, bool) or not isinstance(amount, int) \
                or amount < 1:
            raise exception.InvalidInput(
                field=field,
                reason=f'amount of {rc} must be a positive integer, '
                       f'not {amount!r}')
    for trait in group.required:
        names = trait[3:].split(',') if trait.startswith('in:') else \
            [trait[1:] if trait.startswith('!') else trait]
        if not all(_NAME_RE.match(name) for name in names):
            raise exception.InvalidInput(
                field=f'required{suffix}',
                reason=f'{trait!r} is not a trait, !trait or in:t1,t2')
    for item in group.member_of:
        uuids = [item[1:] if item.startswith('!') else item] \
            if isinstance(item, str) else list(item)
        if not uuids or not all(uuidutils.is_uuid_like(u) for u in uuids):
            raise exception.InvalidInput(
                field=f'member_of{suffix}',
                reason=f'{item!r} is not an aggregate UUID or a list of '
                       f'them')
    if group.in_tree is not None and \
            not uuidutils.is_uuid_like(group.in_tree):
        raise exception.InvalidInput(
            field=f'in_tree{suffix}',
            reason=f'{group.in_tree!r} is not a provider UUID')


# -- results -----------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Allocation:
    """``amount`` of ``resource_class`` from one provider."""

    provider_uuid: str
    resource_class: str
    amount: int


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One way to satisfy the request.

    ``mappings`` (microversion 1.34+, else empty) maps each group suffix
    ('' for the unnumbered group) to the providers that satisfied it.
    """

    allocations: tuple[Allocation, ...]
    mappings: Mapping[str, tuple[str, ...]]

    def providers(self, resource_class: str | None = None) -> tuple:
        """Providers used, or those giving ``resource_class``."""
        return tuple(sorted({
            a.provider_uuid for a in self.allocations
            if resource_class is None or a.resource_class == resource_class}))


@dataclasses.dataclass(frozen=True)
class Usage:
    capacity: int
    used: int

    @property
    def free(self) -> int:
        return max(0, self.capacity - self.used)


@dataclasses.dataclass(frozen=True)
class ProviderSummary:
    uuid: str
    resources: Mapping[str, Usage]
    traits: frozenset[str]
    parent_provider_uuid: str | None
    root_provider_uuid: str

    @property
    def sharing(self) -> bool:
        return SHARING_TRAIT in self.traits


@dataclasses.dataclass(frozen=True)
class AllocationCandidates:
    """Candidates in Placement's order, and every provider's summary."""

    candidates: tuple[Candidate, ...]
    provider_summaries: Mapping[str, ProviderSummary]
    microversion: str

    def __len__(self) -> int:
        return len(self.candidates)

    def __iter__(self) -> Iterator[Candidate]:
        return iter(self.candidates)

    @classmethod
    def from_json(cls, body: dict, microversion: str
                  ) -> 'AllocationCandidates':
        """Parse a response body of microversion 1.12 or later."""
        candidates = tuple(_parse_candidate(req)
                           for req in body.get('allocation_requests', []))
        summaries = {
            uuid: _parse_summary(uuid, summary)
            for uuid, summary in body.get('provider_summaries', {}).items()}
        return cls(candidates, summaries, microversion)


def _parse_candidate(request: dict) -> Candidate:
    allocations = tuple(sorted(
        (Allocation(rp, rc, int(amount))
         for rp, alloc in request['allocations'].items()
         for rc, amount in alloc['resources'].items()),
        key=lambda a: (a.provider_uuid, a.resource_class)))
    mappings = {suffix: tuple(rps)
                for suffix, rps in request.get('mappings', {}).items()}
    return Candidate(allocations, mappings)


def _parse_summary(uuid: str, summary: dict) -> ProviderSummary:
    resources = {rc: Usage(int(r['capacity']), int(r['used']))
                 for rc, r in summary.get('resources', {}).items()}
    return ProviderSummary(
        uuid=uuid, resources=resources,
        traits=frozenset(summary.get('traits', ())),
        parent_provider_uuid=summary.get('parent_provider_uuid'),
        root_provider_uuid=summary.get('root_provider_uuid') or uuid)
