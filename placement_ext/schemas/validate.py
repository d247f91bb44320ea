"""Validate a document against a JSON Schema, once, at the edge.

``validate(schema, data, what)`` raises
:class:`~placement_ext.exception.InvalidInput` for the most relevant
error jsonschema finds (:func:`jsonschema.exceptions.best_match`), with
``field`` the JSON path of the offending value written as a caller
would write it (``placementConstraints[0].scope``) and ``reason`` what is
wrong with it. For a missing or unexpected property the path names the
property itself, not the object around it, because that is what the
caller has to fix. ``what`` (``'GrantRequest'``) names the document when
the document itself is at fault (not an object, for example).

Schemas are Draft 2020-12 unless they declare another ``$schema``; each
is checked and compiled on first use and the validator is kept.
"""

import re

import jsonschema
from jsonschema import exceptions as js_exceptions

from placement_ext import exception

# schema id -> (schema, validator); the schema is kept so its id stays
# unique for as long as the cache entry lives.
_VALIDATORS: dict[int, tuple[dict, jsonschema.protocols.Validator]] = {}


def validate(schema: dict, data: object, what: str) -> None:
    """Refuse ``data`` unless it conforms to ``schema``.

    :param schema: a JSON Schema (a module constant: compiled once).
    :param data: the decoded JSON document.
    :param what: name of the document, used as the field when the
        document as a whole is wrong.
    :raises InvalidInput: naming the field and the reason.
    """
    error = js_exceptions.best_match(_validator(schema).iter_errors(data))
    if error is not None:
        field, reason = describe(error)
        raise exception.InvalidInput(field=field or what, reason=reason)


def json_path(parts: object) -> str:
    """``['a', 0, 'b']`` -> ``'a[0].b'``."""
    path = ''
    for part in parts:
        if isinstance(part, int):
            path += f'[{part}]'
        else:
            path += f'.{part}' if path else str(part)
    return path


def describe(error: js_exceptions.ValidationError) -> tuple[str, str]:
    """The (field, reason) a person needs to fix ``error``."""
    parts = list(error.absolute_path)
    instance = error.instance
    if error.validator == 'required' and isinstance(instance, dict):
        missing = [name for name in error.validator_value
                   if name not in instance]
        return json_path(parts + missing[:1]), 'is required'
    if (error.validator == 'additionalProperties'
            and isinstance(instance, dict)):
        extra = _unexpected(instance, error.schema)
        if extra:
            return (json_path(parts + extra[:1]),
                    'is not allowed here')
    if error.validator == 'enum':
        allowed = ', '.join(str(value) for value in error.validator_value)
        return json_path(parts), f'{instance!r} is not one of: {allowed}'
    if error.validator == 'minItems' and isinstance(instance, list):
        return (json_path(parts),
                f'has {len(instance)} item(s), needs at least '
                f'{error.validator_value}')
    if error.validator == 'minLength' and instance == '':
        return json_path(parts), 'must not be empty'
    return json_path(parts), error.message


def _unexpected(instance: dict, schema: dict) -> list[str]:
    known = set(schema.get('properties', {}))
    patterns = list(schema.get('patternProperties', {}))
    return sorted(name for name in instance
                  if name not in known
                  and not any(re.search(p, name) for p in patterns))


def _validator(schema: dict) -> jsonschema.protocols.Validator:
    cached = _VALIDATORS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    cls = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    validator = cls(schema)
    _VALIDATORS[id(schema)] = (schema, validator)
    return validator
