"""Reading the values of a HAS template. Pure.

``{"get_param": NAME}`` replaced by the parameter's value, objects,
numbers and sized quantities read so that whatever is wrong is refused
naming the template field (``template.demands.vgmux[0].region``), for
every module that reads a part of the template (:mod:`has_plan`,
:mod:`has_terms`).
"""

import math
from collections.abc import Mapping

from placement_ext import exception


class Resolver:
    """Replaces ``{"get_param": NAME}`` by the parameter's value."""

    def __init__(self, params: Mapping) -> None:
        self._params = params

    def __call__(self, value: object, path: str = 'template') -> object:
        if isinstance(value, Mapping):
            if set(value) == {'get_param'}:
                name = value['get_param']
                if not isinstance(name, str) or name not in self._params:
                    raise exception.InvalidInput(
                        field=path, reason=f'get_param {name!r} is not a '
                                           f'parameter of the template')
                return self._params[name]
            return {key: self(item, f'{path}.{key}')
                    for key, item in value.items()}
        if isinstance(value, list):
            return [self(item, f'{path}[{index}]')
                    for index, item in enumerate(value)]
        return value


def mapping(value: object, field: str) -> Mapping:
    """``value``, refused unless it is an object."""
    if not isinstance(value, Mapping):
        raise exception.InvalidInput(field=field, reason='must be an object')
    return value


def number(value: object, field: str) -> float:
    """``value`` (a number or its text) as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise exception.InvalidInput(field=field, reason='must be a number')
    try:
        return float(value)
    except ValueError:
        raise exception.InvalidInput(
            field=field, reason=f'{value!r} is not a number')


def quantity(value: object, units: Mapping[str, int], field: str) -> int:
    """``{"quantity": 4, "unit": "GB"}``, or a bare number of GB (HAS
    drops the unit too), in the unit whose factor is 1."""
    unit = 'GB'
    if isinstance(value, Mapping):
        unit = str(value.get('unit', 'GB')).upper()
        value = value.get('quantity')
    if unit not in units:
        raise exception.InvalidInput(
            field=f'{field}.unit',
            reason=f'{unit!r} is not one of {", ".join(units)}')
    return math.ceil(number(value, field) * units[unit])
