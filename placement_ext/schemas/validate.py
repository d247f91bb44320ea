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

jsonschema is the reference, and names the field of any error. A schema
that uses only keywords meaning the same in Draft 7 is also compiled to
Python code by fastjsonschema, which checks a valid document 20-30 times
faster (10,000 candidate regions: 18 ms instead of 450 ms); a document it
refuses goes to jsonschema, whose verdict and message stand.
"""

import re

import fastjsonschema
import jsonschema
from jsonschema import exceptions as js_exceptions

from placement_ext import exception

# Deepest nesting of objects and arrays a document may have. Every
# document we keep is stored as JSON, and MariaDB's JSON_VALID CHECK
# refuses more than 32 levels; a request 20 deep leaves room for the
# record around it (and no Heat template or SOL document comes close).
MAX_DEPTH = 20

# schema id -> (schema, validator); the schema is kept so its id stays
# unique for as long as the cache entry lives.
_VALIDATORS: dict[int, tuple[dict, jsonschema.protocols.Validator]] = {}


def validate(schema: dict, data: object, what: str,
             check: bool = True) -> None:
    """Refuse ``data`` unless it conforms to ``schema``.

    :param schema: a JSON Schema (a module constant: compiled once).
    :param data: the decoded JSON document.
    :param what: name of the document, used as the field when the
        document as a whole is wrong.
    :param check: apply :func:`check_document` first (False when the
        caller already did, as :func:`check_arguments` does).
    :raises InvalidInput: naming the field and the reason.
    """
    if check:
        check_document(data, what)
    fast = _fast_validator(schema)
    if fast is not None:
        try:
            fast(data)
            return
        except fastjsonschema.JsonSchemaException:
            pass  # jsonschema decides, and names the field
    error = js_exceptions.best_match(_validator(schema).iter_errors(data))
    if error is not None:
        field, reason = describe(error)
        if field.startswith('['):  # an item of a top-level array
            field = what + field
        raise exception.InvalidInput(field=field or what, reason=reason)


def check_document(data: object, what: str,
                   limit: int = MAX_DEPTH) -> None:
    """Refuse a document nested deeper than ``limit`` levels, or holding
    text that is not valid Unicode (a lone surrogate such as ``\\ud800``,
    which JSON escapes and undecodable command-line bytes produce: no
    database, log or output format can encode it) or a NUL character
    (``\\u0000``, which PostgreSQL refuses in text and JSON).

    Iterative, so any depth is measured without recursion (json.dumps,
    jsonschema and the databases all recurse or limit depth).

    :raises InvalidInput: naming the top-level field at fault.
    """
    stack = [(data, 0, what)]
    while stack:
        value, depth, field = stack.pop()
        if isinstance(value, str):
            _check_text(value, field)
            continue
        if isinstance(value, dict):
            for key in value:
                if isinstance(key, str):
                    _check_text(key, field)
            children = value.items()
        elif isinstance(value, list):
            children = enumerate(value)
        else:
            continue
        if depth >= limit:
            raise exception.InvalidInput(
                field=field,
                reason=f'is nested deeper than {limit} levels of objects '
                       f'and arrays')
        for key, child in children:
            # the field named is the document's own property at the top
            if depth == 0 and isinstance(value, dict):
                field = json_path([key])
            stack.append((child, depth + 1, field))


def check_arguments(kwargs: dict) -> None:
    """:func:`check_document` for each keyword argument of a call, named
    after it: each may be a whole document (an RPC request)."""
    for name, value in kwargs.items():
        check_document(value, name)


_UNSTORABLE = re.compile('[\ud800-\udfff\x00]')


def _check_text(text: str, field: str) -> None:
    found = _UNSTORABLE.search(text)
    if found is None:
        return
    what = ('a NUL character, which databases cannot store'
            if found.group() == '\x00' else
            'a lone surrogate, which is not valid Unicode text')
    raise exception.InvalidInput(
        field=field,
        reason=f'holds {found.group()!a} at position {found.start()}, '
               f'{what}')


def check_text(text: str, field: str,
               max_length: int | None = None) -> None:
    """Refuse text no database stores as sent: not valid Unicode, a NUL
    character, or longer than ``max_length`` characters.

    :raises InvalidInput: naming ``field``.
    """
    if max_length is not None and len(text) > max_length:
        raise exception.InvalidInput(
            field=field, reason=_LIMITS['maxLength'].format(
                n=len(text), limit=max_length))
    _check_text(text, field)


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
    limit = _LIMITS.get(error.validator)
    if limit is not None and isinstance(instance, (str, list, dict)):
        return json_path(parts), limit.format(
            n=len(instance), limit=error.validator_value)
    return json_path(parts), _short_instance(error.message, instance)


# size limits: what was sent and what is allowed (jsonschema's message
# repeats the value, megabytes perhaps, and not the limit)
_LIMITS = {
    'maxLength': 'is too long: {n} characters, at most {limit} allowed',
    'minLength': 'is too short: {n} characters, at least {limit} needed',
    'maxItems': 'is too long: {n} items, at most {limit} allowed',
    'maxProperties': 'has {n} properties, at most {limit} allowed',
    'minProperties': 'has {n} properties, at least {limit} needed',
}
# longest value repeated in a reason
_SHOWN = 80


def _short_instance(message: str, instance: object) -> str:
    """jsonschema's ``message``, with the value it starts with cut short."""
    shown = repr(instance)
    if len(shown) <= _SHOWN or not message.startswith(shown):
        return message
    rest = message[len(shown):]
    return f'{shown[:_SHOWN]}... ({len(shown)} characters){rest}'


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


# Keywords whose meaning is the same in Draft 7 (fastjsonschema) and
# Draft 2020-12 (jsonschema). "items" only as one schema (2020-12 calls
# the list form prefixItems); "enum" only of strings (Draft 7 code
# compares with ==, so 1 would match true).
_FAST_KEYWORDS = frozenset({
    'type', 'properties', 'required', 'additionalProperties',
    'patternProperties', 'items', 'minItems', 'maxItems', 'uniqueItems',
    'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum',
    'exclusiveMaximum', 'pattern', 'propertyNames', 'minProperties',
    'maxProperties', 'enum', 'anyOf', 'allOf', 'oneOf', 'not',
    'description', 'title'})
_FAST: dict[int, tuple[dict, object]] = {}


def _fast_validator(schema: dict) -> object | None:
    cached = _FAST.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    fast = None
    if _same_in_draft7(schema):
        fast = fastjsonschema.compile(
            dict(schema, **{'$schema':
                            'http://json-schema.org/draft-07/schema#'}),
            use_default=False)
    _FAST[id(schema)] = (schema, fast)
    return fast


def _same_in_draft7(schema: object) -> bool:
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or not set(schema) <= _FAST_KEYWORDS:
        return False
    if 'enum' in schema and not all(isinstance(value, str)
                                    for value in schema['enum']):
        return False
    subschemas = [*schema.get('properties', {}).values(),
                  *schema.get('patternProperties', {}).values(),
                  *schema.get('anyOf', []), *schema.get('allOf', []),
                  *schema.get('oneOf', [])]
    for key in ('items', 'additionalProperties', 'propertyNames', 'not'):
        if key in schema:
            subschemas.append(schema[key])
    return all(_same_in_draft7(sub) for sub in subschemas)
