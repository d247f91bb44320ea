"""Mapping between SOL wire documents (camelCase) and frozen dataclasses.

A SOL type is a frozen dataclass deriving from :class:`SolType` whose
fields are declared with :func:`attr`, which records the attribute's name
on the wire and, for a nested SOL type, its class. ``from_dict`` trusts
its input (validate first, see each module's ``parse``); ``to_dict`` omits
absent (``None``) attributes, as SOL documents do.
"""

import copy
import dataclasses
from collections.abc import Mapping
from typing import Any
from typing import TypeVar

T = TypeVar('T', bound='SolType')


def attr(wire: str, *, kind: type | None = None, many: bool = False,
         required: bool = False) -> Any:
    """Declare a field named ``wire`` on the wire.

    :param kind: the SolType of the value (or of each item with ``many``);
        None for plain JSON values, which are kept as they are.
    :param many: the value is a list (held as a tuple).
    :param required: no default; otherwise the default is None (absent).
    """
    metadata = {'wire': wire, 'kind': kind, 'many': many}
    if required:
        return dataclasses.field(metadata=metadata)
    return dataclasses.field(default=None, metadata=metadata)


class SolType:
    """Base of every SOL data type: dict conversion by field metadata."""

    @classmethod
    def from_dict(cls: type[T], data: Mapping) -> T:
        kwargs = {}
        for field in dataclasses.fields(cls):
            wire = field.metadata.get('wire', field.name)
            if wire in data:
                kwargs[field.name] = _load(field.metadata, data[wire])
        return cls(**kwargs)

    def to_dict(self) -> dict:
        out = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is not None:
                out[field.metadata.get('wire', field.name)] = _dump(value)
        return out


def _load(metadata: Mapping, value: Any) -> Any:
    kind = metadata.get('kind')
    if metadata.get('many'):
        return tuple(kind.from_dict(item) if kind else item
                     for item in value)
    return kind.from_dict(value) if kind else value


def _dump(value: Any) -> Any:
    if isinstance(value, SolType):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_dump(item) for item in value]
    return copy.deepcopy(value)  # the document must not alias the object
