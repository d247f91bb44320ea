"""Blazar's ``resource_properties``: which hosts a reservation may use.

The language of Blazar's instance plugin (``blazar.utils.plugins.
convert_requirements`` read by ``host_get_all_by_queries``): a JSON
text, empty (``""`` or ``[]``: every host), one condition
``[op, "$key", "value"]`` or ``["and", condition, ...]``; ``op`` is one
of ``== = != < <= > >=`` and the value a non-empty string. ``$key`` is a
host field (``$vcpus``, ``$availability_zone``, ``$hypervisor_hostname``
...), compared as the database compares the column (numbers as
numbers, ``"null"`` meaning no value), or else an extra capability
(``host create/set --extra``), compared as text, that a host without it
never matches; a key no host has at all is an error (Blazar: not
found). Pure: the caller gives each host's fields and capabilities.
"""

import dataclasses
import json
import operator
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping

FIELD = 'resource_properties'
_OPERATORS: dict[str, Callable[[object, object], bool]] = {
    '==': operator.eq, '=': operator.eq, '!=': operator.ne,
    '<': operator.lt, '<=': operator.le, '>': operator.gt, '>=': operator.ge}


class Malformed(ValueError):
    """A text that is not Blazar's filter language; says what is wrong."""


@dataclasses.dataclass(frozen=True)
class Condition:
    """``key op value``, ``key`` without its ``$``."""

    op: str
    key: str
    value: str


@dataclasses.dataclass(frozen=True)
class HostRecord:
    """What a condition reads of one host: its fields (Blazar's
    ``computehosts`` columns) and its extra capabilities."""

    name: str
    fields: Mapping[str, object]
    capabilities: Mapping[str, str]


def parse(text: str | list | None) -> tuple[Condition, ...]:
    """The conditions of ``text`` (all must hold).

    :raises Malformed: not the language above.
    """
    if text is None or (isinstance(text, str) and not text.strip()):
        return ()
    if isinstance(text, str):
        try:
            text = json.loads(text)
        except ValueError as exc:
            raise Malformed(f'not JSON ({exc})') from None
    if not isinstance(text, list):
        raise Malformed(f'{text!r} is not a list')
    if not text:
        return ()
    if text[0] == 'and' and len(text) > 1:
        return tuple(_condition(item) for item in text[1:])
    return (_condition(text),)


def _condition(item: object) -> Condition:
    if not (isinstance(item, list) and len(item) == 3
            and all(isinstance(part, str) for part in item)):
        raise Malformed(f'{item!r} is not [operator, "$key", "value"] '
                        f'of strings')
    op, key, value = item
    if op not in _OPERATORS:
        raise Malformed(f'{op!r} is not one of {", ".join(_OPERATORS)}')
    if len(key) < 2 or not key.startswith('$'):
        raise Malformed(f'{key!r} is not a "$key"')
    if not value:
        raise Malformed(f'{item!r} compares with an empty value')
    return Condition('==' if op == '=' else op, key[1:], value)


def matching(conditions: Iterable[Condition],
             hosts: Iterable[HostRecord]) -> frozenset[str]:
    """The names of the hosts that meet every condition.

    :raises Malformed: a key that is neither a host field nor any
        host's extra capability, or a number field compared with text.
    """
    hosts = list(hosts)
    names = {h.name for h in hosts}
    for cond in conditions:
        if any(cond.key in h.fields for h in hosts):
            names &= {h.name for h in hosts if _field_holds(cond, h)}
        elif any(cond.key in h.capabilities for h in hosts):
            names &= {h.name for h in hosts if cond.key in h.capabilities
                      and _OPERATORS[cond.op](h.capabilities[cond.key],
                                              cond.value)}
        else:
            raise Malformed(f'no host has a field or extra capability '
                            f'{cond.key!r}')
    return frozenset(names)


def _field_holds(cond: Condition, host: HostRecord) -> bool:
    """As SQL compares the column: NULL matches nothing but ``== null``
    (and ``!= null`` the rest); numbers compare as numbers."""
    actual = host.fields.get(cond.key)
    if cond.value == 'null' and cond.op in ('==', '!='):
        return (actual is None) == (cond.op != '!=')
    if actual is None:
        return False
    value: object = cond.value
    if isinstance(actual, bool):
        actual = int(actual)
    if isinstance(actual, int | float):
        try:
            value = float(cond.value)
        except ValueError:
            raise Malformed(f'${cond.key} is a number, {cond.value!r} is '
                            f'not') from None
    else:
        actual = str(actual)
    return _OPERATORS[cond.op](actual, value)
