"""HAS's ``zone`` and ``attribute`` constraints over our regions. Pure.

- ``attribute`` (HAS's ``get_candidates_by_attributes``): ``properties.
  evaluate`` maps an attribute to ``{"any": [...]}`` (the region's value
  is one of them), ``{"all": [...]}`` (it is every one of them, as HAS
  reads it) or a bare value or list (``any``). A value that is null or
  ``""`` (or holds only those) asks nothing, as in HAS (OSDF sends
  every attribute of its policy, most of them null or blank). Read
  from the regions file:
  ``complex`` (``complex_name``), ``cloud-region`` (``{"cloud-requests":
  [region ids]}``, as HAS), and ours, which HAS ignores:
  ``cloud_version`` (``cloud_region_version``), ``cloud_type`` and
  ``cloud-region-id``. Any other attribute with a value is refused by
  name (HAS reads ``network_roles``, ``region``, ``country``...
  from A&AI, or ignores them).
- ``zone`` (HAS's ``Zone``): the demands' regions are the ``same`` or
  ``different`` (pairwise) in ``category`` ``region`` (the cloud region
  id) or ``complex`` (``complex_name``; a region without one satisfies
  neither). Other categories are refused.

With zone constraints the demands are no longer independent: solutions
are the first combinations, in each demand's rank order and the
template's demand order, that every zone constraint allows (HAS's search
decides demand after demand the same way), at most ``MAX_STEPS``
partial combinations looked at.
"""

import dataclasses
from collections.abc import Mapping
from collections.abc import Sequence

from placement_ext import exception
from placement_ext.decision import homing

ZONE_CATEGORIES = {'region': 'region_id', 'complex': 'complex_name'}
ZONE_QUALIFIERS = ('same', 'different')
# evaluate key -> regions file field (cloud-region: see AttributeRule)
ATTRIBUTES = {'complex': 'complex_name',
              'cloud_version': 'cloud_region_version',
              'cloud_type': 'cloud_type', 'cloud-region-id': 'region_id',
              'cloud-region': 'region_id'}
MAX_STEPS = 100_000


def unsupported(field: str, supported: Sequence[str],
                value: object = ...) -> exception.InvalidInput:
    """The refusal of ``field`` (of its ``value`` when given), naming
    what is supported there."""
    what = 'is' if value is ... else f'{value!r} is'
    return exception.InvalidInput(
        field=field, reason=f'{what} not supported (supported: '
                            f'{", ".join(supported)})')


@dataclasses.dataclass(frozen=True)
class AttributeRule:
    """One attribute of an ``attribute`` constraint."""

    constraint: str
    key: str
    condition: str        # any | all
    values: tuple

    def reason(self, region: Mapping) -> str | None:
        """Why ``region`` (a regions file entry) fails, or None."""
        value = region.get(ATTRIBUTES[self.key])
        matches = [value == wanted for wanted in self.values]
        if all(matches) if self.condition == 'all' else any(matches):
            return None
        return (f'attribute constraint {self.constraint}: {self.key} is '
                f'{value!r}, not {self.condition} of {list(self.values)}')


def attribute_rules(name: str, properties: Mapping,
                    field: str) -> list[AttributeRule]:
    """The rules of ``attribute`` constraint ``name``.

    :raises InvalidInput: an attribute we cannot read, naming it.
    """
    evaluate = properties.get('evaluate')
    if not isinstance(evaluate, Mapping):
        raise exception.InvalidInput(field=f'{field}.evaluate',
                                     reason='must be an object')
    rules = []
    for key, value in evaluate.items():
        if _blank(value):
            continue
        where = f'{field}.evaluate.{key}'
        if key not in ATTRIBUTES:
            raise unsupported(where, list(ATTRIBUTES))
        condition, values = _condition(key, value, where)
        if values:
            rules.append(AttributeRule(name, key, condition, values))
    return rules


def _blank(value: object) -> bool:
    """Whether an attribute's value asks nothing: null, ``""``, or only
    those inside (OSDF's policies send ``{"all": ["", ""]}``)."""
    if isinstance(value, Mapping):
        return all(_blank(item) for item in value.values())
    if isinstance(value, list):
        return all(_blank(item) for item in value)
    return value is None or value == ''


def _condition(key: str, value: object, where: str) -> tuple[str, tuple]:
    if key == 'cloud-region':
        if not isinstance(value, Mapping) or set(value) - {
                'cloud-requests', 'service-requests', 'vfmodule-requests'}:
            raise exception.InvalidInput(
                field=where, reason='must be {"cloud-requests": [ids]}')
        value = {'any': value.get('cloud-requests') or []}
    condition = 'any'
    if isinstance(value, Mapping):
        if set(value) not in ({'any'}, {'all'}):
            raise exception.InvalidInput(
                field=where, reason='must be {"any": [...]} or '
                                    '{"all": [...]}')
        (condition, value), = value.items()
    values = value if isinstance(value, list) else [value]
    return condition, tuple(str(item) for item in values)


@dataclasses.dataclass(frozen=True)
class ZoneRule:
    """A ``zone`` constraint: its demands' regions are the same, or all
    different, in ``category``."""

    name: str
    demands: tuple[str, ...]
    category: str
    qualifier: str

    @classmethod
    def parse(cls, name: str, properties: Mapping,
              demands: Sequence[str], field: str) -> 'ZoneRule':
        category = properties.get('category')
        if category not in ZONE_CATEGORIES:
            raise unsupported(f'{field}.category', list(ZONE_CATEGORIES),
                              category)
        qualifier = properties.get('qualifier')
        if qualifier not in ZONE_QUALIFIERS:
            raise exception.InvalidInput(
                field=f'{field}.qualifier',
                reason=f'must be one of {", ".join(ZONE_QUALIFIERS)}')
        return cls(name, tuple(demands), category, qualifier)

    def allows(self, chosen: Mapping[str, homing.Region]) -> bool:
        """Whether the regions chosen so far keep the rule."""
        field = ZONE_CATEGORIES[self.category]
        values = [getattr(chosen[demand], field)
                  for demand in self.demands if demand in chosen]
        if None in values:
            return False
        if self.qualifier == 'same':
            return len(set(values)) <= 1
        return len(set(values)) == len(values)


def combine(ranked: Sequence[tuple[str, Sequence[homing.Ranked]]],
            zones: Sequence[ZoneRule], limit: int
            ) -> list[dict[str, homing.Ranked]]:
    """Up to ``limit`` combinations (demand -> its ranked region) that
    every zone rule allows, found depth first in rank order."""
    found: list[dict[str, homing.Ranked]] = []
    steps = 0

    def extend(index: int, chosen: dict[str, homing.Ranked]) -> None:
        nonlocal steps
        if len(found) >= limit or steps >= MAX_STEPS:
            return
        if index == len(ranked):
            found.append(dict(chosen))
            return
        demand, entries = ranked[index]
        for entry in entries:
            steps += 1
            chosen[demand] = entry
            regions = {name: item.region for name, item in chosen.items()}
            if all(rule.allows(regions) for rule in zones):
                extend(index + 1, chosen)
            del chosen[demand]
            if len(found) >= limit or steps >= MAX_STEPS:
                return

    extend(0, {})
    return found
