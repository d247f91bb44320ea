"""HAS's ``hpa`` constraint: each VNFC of a demand gets the flavor of the
candidate region that has its hardware platform features. Pure.

As HAS's HPA matching (``hpa_utils`` of onap/optf-has), written anew:

- a constraint's ``properties.evaluate`` lists VNFCs (``id``, ``type``,
  ``directives`` naming the flavor label in a ``flavor_directives``
  entry, ``flavorProperties``: the features);
- a feature (``hpa-feature``, ``architecture``, ``hpa-version``,
  ``mandatory``, ``score``, ``hpa-feature-attributes``) is had by a
  flavor when one of the flavor's capabilities of that feature has every
  attribute asked, compared by the attribute's ``operator`` (``=``,
  ``<``, ``>``, ``<=``, ``>=`` on numbers after their ``unit``, KB, MB
  or GB; ``=`` on text; ``ALL``: the flavor's list holds every value);
- a flavor qualifies when it has every mandatory feature (the
  capability with the same feature, architecture and version, and its
  attributes); its score is the sum of the scores of the optional
  features it has; the best flavor of a region is the one of the highest
  score, the first of the region's list on a tie;
- a region without a qualifying flavor for a VNFC is dropped, naming it;
  a region's HPA score (``hpa_score`` in the objective) is the sum over
  the VNFCs.

The regions' flavors are A&AI's (``flavor-name``, ``flavor-id``,
``hpa-capabilities: {"hpa-capability": [...]}`` whose attribute values
are A&AI's text ``{value: 4, unit: "GB"}`` or that mapping), from the
regions file. An operator HAS does not know is refused by name (HAS
would match nothing).
"""

import copy
import dataclasses
import operator
from collections.abc import Mapping
from collections.abc import Sequence

import yaml

from placement_ext import exception
from placement_ext.decision import has_fields
from placement_ext.schemas import files

OPERATORS = {'=': operator.eq, '<': operator.lt, '>': operator.gt,
             '<=': operator.le, '>=': operator.ge, 'ALL': None}
_UNITS = {'KB': 1024, 'MB': 1024 ** 2, 'GB': 1024 ** 3}
_KEYS = ('hpa-feature', 'architecture', 'hpa-version')
FLAVOR_DIRECTIVES = 'flavor_directives'


@dataclasses.dataclass(frozen=True)
class Attribute:
    key: str
    value: object
    operator: str
    unit: str | None = None


@dataclasses.dataclass(frozen=True)
class Feature:
    """One entry of a VNFC's ``flavorProperties``."""

    feature: str
    architecture: str | None
    version: str | None
    mandatory: bool
    score: int
    attributes: tuple[Attribute, ...]
    directives: tuple = ()

    @property
    def keys(self) -> tuple:
        return (self.feature, self.architecture, self.version)


@dataclasses.dataclass(frozen=True)
class Vnfc:
    """One VNFC of an ``hpa`` constraint."""

    id: str
    type: str
    label: str
    directives: tuple
    features: tuple[Feature, ...]


@dataclasses.dataclass(frozen=True)
class FlavorMatch:
    vnfc: Vnfc
    flavor_name: str
    flavor_id: str | None
    score: int

    def directives(self) -> dict:
        """HAS's directives of the VNFC with the flavor filled in: the
        label's value is the flavor name, ``flavorId`` its id; the
        features' own directives follow."""
        directives = copy.deepcopy(list(self.vnfc.directives))
        for directive in directives:
            if FLAVOR_DIRECTIVES not in str(directive.get('type', '')):
                continue
            attributes = directive.setdefault('attributes', [])
            if not any(a.get('attribute_name') == 'flavorId'
                       for a in attributes):
                attributes.append({'attribute_name': 'flavorId',
                                   'attribute_value': ''})
            values = {self.vnfc.label: self.flavor_name,
                      'flavorId': self.flavor_id or ''}
            for attribute in attributes:
                attribute['attribute_value'] = values.get(
                    attribute.get('attribute_name'), '')
        for feature in self.vnfc.features:
            for directive in feature.directives:
                if directive.get('type') and directive not in directives:
                    directives.append(copy.deepcopy(directive))
        return {'id': self.vnfc.id, 'type': self.vnfc.type,
                'directives': directives}


@dataclasses.dataclass(frozen=True)
class RegionMatch:
    """The flavors of one region for every VNFC of a demand."""

    matches: tuple[FlavorMatch, ...]

    @property
    def score(self) -> int:
        return sum(match.score for match in self.matches)

    @property
    def flavor_map(self) -> dict[str, str]:
        """Label -> flavor name (HAS's ``flavor_map``)."""
        return {m.vnfc.label: m.flavor_name for m in self.matches}

    @property
    def flavors(self) -> tuple[str, ...]:
        """The flavor names, each once, in VNFC order."""
        return tuple(dict.fromkeys(m.flavor_name for m in self.matches))

    def directives(self) -> dict:
        """HAS's ``attributes.directives`` of a recommendation."""
        return {'directives': [m.directives() for m in self.matches]}


def parse(properties: Mapping, field: str) -> tuple[Vnfc, ...]:
    """The VNFCs of an ``hpa`` constraint's ``properties``.

    :raises InvalidInput: naming the field and the reason.
    """
    evaluate = properties.get('evaluate')
    if not isinstance(evaluate, list) or not evaluate:
        raise exception.InvalidInput(field=f'{field}.evaluate',
                                     reason='must list the VNFCs')
    return tuple(_vnfc(has_fields.mapping(item, f'{field}.evaluate[{i}]'),
                       f'{field}.evaluate[{i}]')
                 for i, item in enumerate(evaluate))


def _vnfc(item: Mapping, field: str) -> Vnfc:
    directives = item.get('directives')
    if not isinstance(directives, list):
        raise exception.InvalidInput(field=f'{field}.directives',
                                     reason='must be a list')
    label = None
    for directive in directives:
        directive = has_fields.mapping(directive, f'{field}.directives[]')
        attributes = directive.get('attributes') or []
        if FLAVOR_DIRECTIVES in str(directive.get('type', '')) and \
                attributes and isinstance(attributes[0], Mapping):
            label = attributes[0].get('attribute_name')
            break
    if not isinstance(label, str) or not label:
        raise exception.InvalidInput(
            field=f'{field}.directives',
            reason=f'must hold a {FLAVOR_DIRECTIVES} entry whose first '
                   f'attribute names the flavor label')
    features = item.get('flavorProperties')
    if not isinstance(features, list) or not features:
        raise exception.InvalidInput(field=f'{field}.flavorProperties',
                                     reason='must list the HPA features')
    for key in ('id', 'type'):
        if not isinstance(item.get(key), str):
            raise exception.InvalidInput(field=f'{field}.{key}',
                                         reason='must be a string')
    return Vnfc(item['id'], item['type'], label, tuple(directives), tuple(
        _feature(has_fields.mapping(f, f'{field}.flavorProperties[{i}]'),
                 f'{field}.flavorProperties[{i}]')
        for i, f in enumerate(features)))


def _feature(item: Mapping, field: str) -> Feature:
    if not isinstance(item.get('hpa-feature'), str):
        raise exception.InvalidInput(field=f'{field}.hpa-feature',
                                     reason='must be a string')
    mandatory = str(item.get('mandatory', '')).lower()
    if mandatory not in ('true', 'false'):
        raise exception.InvalidInput(field=f'{field}.mandatory',
                                     reason='must be "True" or "False"')
    score = int(has_fields.number(item.get('score', 0), f'{field}.score'))
    attributes = item.get('hpa-feature-attributes') or []
    if not isinstance(attributes, list):
        raise exception.InvalidInput(
            field=f'{field}.hpa-feature-attributes', reason='must be a list')
    return Feature(item['hpa-feature'], item.get('architecture'),
                   item.get('hpa-version'), mandatory == 'true', score,
                   tuple(_attribute(has_fields.mapping(
                       a, f'{field}.hpa-feature-attributes[{i}]'),
                       f'{field}.hpa-feature-attributes[{i}]')
                       for i, a in enumerate(attributes)),
                   tuple(d for d in item.get('directives') or ()
                         if isinstance(d, Mapping)))


def _attribute(item: Mapping, field: str) -> Attribute:
    op = item.get('operator')
    if op not in OPERATORS:
        raise exception.InvalidInput(
            field=f'{field}.operator',
            reason=f'{op!r} is not one of {", ".join(OPERATORS)}')
    unit = item.get('unit') or None  # OSDF's policies send "" for none
    if unit is not None and str(unit).upper() not in _UNITS:
        raise exception.InvalidInput(
            field=f'{field}.unit',
            reason=f'{unit!r} is not one of {", ".join(_UNITS)}')
    if not isinstance(item.get('hpa-attribute-key'), str):
        raise exception.InvalidInput(field=f'{field}.hpa-attribute-key',
                                     reason='must be a string')
    return Attribute(item['hpa-attribute-key'],
                     item.get('hpa-attribute-value'), op,
                     str(unit).upper() if unit else None)


def match_region(vnfcs: Sequence[Vnfc], flavors: object
                 ) -> RegionMatch | str:
    """The region's flavor for each VNFC, or why the region fails.

    :param flavors: the region's A&AI flavors (``flavors`` of its entry
        in the regions file), None when it lists none.
    """
    if not flavors:
        return 'hpa: the region lists no flavors (regions file: flavors)'
    matches = []
    for vnfc in vnfcs:
        best = None
        for flavor in flavors:
            score = _flavor_score(vnfc, flavor)
            if score is not None and (best is None or score > best.score):
                best = FlavorMatch(vnfc, str(flavor.get('flavor-name')),
                                   flavor.get('flavor-id'), score)
        if best is None:
            mandatory = ', '.join(f.feature for f in vnfc.features
                                  if f.mandatory) or 'none'
            return (f'hpa: no flavor of the region has the mandatory '
                    f'features of VNFC {vnfc.id} ({mandatory})')
        matches.append(best)
    return RegionMatch(tuple(matches))


def _capabilities(flavor: Mapping) -> list[Mapping]:
    capabilities = flavor.get('hpa-capabilities')
    if isinstance(capabilities, Mapping):
        capabilities = capabilities.get('hpa-capability')
    return [c for c in capabilities or () if isinstance(c, Mapping)]


def _flavor_score(vnfc: Vnfc, flavor: Mapping) -> int | None:
    """The flavor's score for the VNFC, None when it lacks a mandatory
    feature."""
    capabilities = _capabilities(flavor)
    have = [tuple(c.get(key) for key in _KEYS) for c in capabilities]
    for keys in dict.fromkeys(f.keys for f in vnfc.features
                              if f.mandatory):
        if keys not in have:
            return None
        have.remove(keys)
    score = 0
    for feature in vnfc.features:
        found = any(_has_attributes(feature, c) for c in capabilities
                    if c.get('hpa-feature') == feature.feature)
        if feature.mandatory and not found:
            return None
        if found and not feature.mandatory:
            score += feature.score
    return score


def _has_attributes(feature: Feature, capability: Mapping) -> bool:
    offered = {a.get('hpa-attribute-key'): a.get('hpa-attribute-value')
               for a in capability.get('hpa-feature-attributes') or ()
               if isinstance(a, Mapping)}
    return all(attribute.key in offered and
               _compare(attribute, offered[attribute.key])
               for attribute in feature.attributes)


def _normalised(value: object, unit: object) -> object:
    text = str(value)
    if isinstance(value, (list, dict)) or not text.isdigit():
        return value if isinstance(value, (list, dict)) else text
    return int(text) * _UNITS.get(str(unit).upper(), 1) if unit else \
        int(text)


def _flavor_value(raw: object) -> object:
    """A flavor's attribute value: A&AI's ``{value: 4, unit: "GB"}``
    text or that mapping; None when unreadable."""
    if isinstance(raw, str):
        try:
            raw = files.parse_yaml(raw)
        except yaml.YAMLError:
            return None
    if not isinstance(raw, Mapping) or 'value' not in raw:
        return None
    return _normalised(raw['value'], raw.get('unit'))


def _compare(attribute: Attribute, raw: object) -> bool:
    offered = _flavor_value(raw)
    wanted = _normalised(attribute.value, attribute.unit)
    if offered is None or wanted is None:
        return False
    if attribute.operator == 'ALL':
        return isinstance(offered, list) and isinstance(wanted, list) and \
            bool(wanted) and set(map(str, wanted)) <= set(map(str, offered))
    numbers = isinstance(offered, int) and isinstance(wanted, int)
    if attribute.operator == '=' and not numbers:
        return str(offered) == str(wanted)
    return numbers and OPERATORS[attribute.operator](offered, wanted)
