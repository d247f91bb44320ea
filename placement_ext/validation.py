"""JSON Schema validation of RPC arguments, as a decorator on endpoints.

oslo.messaging calls an endpoint method as ``method(context, **args)``
with whatever keyword arguments the caller sent. Validating them at the
edge, once, keeps endpoint bodies free of checks and turns a bad call
(wrong type, missing field, unknown argument) into
:class:`~placement_ext.exception.InvalidInput` naming the field, which
the caller receives as the same class, instead of a ``TypeError`` deep
in the server. Errors are described by
:func:`placement_ext.schemas.validate.validate`, as for every other
document we validate. The caller's context is checked too
(:func:`check_context`): its ids are stored and logged.
"""

import functools
import inspect
from collections.abc import Callable

import jsonschema

from placement_ext import exception
from placement_ext.schemas import validate as schema_validate

# Context fields a service stores (operations.request_id, a lease's
# project_id and user_id) or logs, and their column size.
CONTEXT_FIELDS = ('request_id', 'global_request_id', 'user_id',
                  'project_id')
MAX_CONTEXT_TEXT = 255


def schema(args_schema: dict) -> Callable:
    """Validate an endpoint method's keyword arguments against a schema.

    ``args_schema`` describes the arguments as one JSON object: a property
    per argument, ``required`` for those without a default, and
    ``additionalProperties: False`` so an unknown argument is refused
    here rather than by Python. The schema is checked, and compared with
    the method's signature, when the module is imported, so the two
    cannot drift apart unnoticed.

    :raises: InvalidInput (at call time) naming the first bad field.
    """
    _check_schema(args_schema)

    def decorator(func: Callable) -> Callable:
        _check_signature(func, args_schema)

        @functools.wraps(func)
        def wrapper(self: object, context: object, **kwargs: object) -> object:
            check_context(context)
            schema_validate.check_arguments(kwargs)
            schema_validate.validate(args_schema, kwargs, 'arguments',
                                     check=False)
            return func(self, context, **kwargs)

        wrapper.rpc_arguments_schema = args_schema
        return wrapper

    return decorator


def check_context(context: object) -> None:
    """Refuse a context whose ids no database column holds: longer than
    255 characters, not text, or holding a NUL or a lone surrogate.

    :raises InvalidInput: naming the field (``context.request_id``).
    """
    for name in CONTEXT_FIELDS:
        value = getattr(context, name, None)
        if value is None:
            continue
        field = f'context.{name}'
        if not isinstance(value, str):
            raise exception.InvalidInput(field=field,
                                         reason='must be a string')
        schema_validate.check_text(value, field, MAX_CONTEXT_TEXT)


def is_rpc_method(attribute: object) -> bool:
    """True for an endpoint method that declares its argument schema.

    That declaration is what makes a method part of a service's RPC API
    (see :class:`placement_ext.rpc_server.SchemaAccessPolicy`): attributes,
    helpers and periodic tasks have none, so they cannot be called over
    the bus.
    """
    return callable(attribute) and \
        getattr(attribute, 'rpc_arguments_schema', None) is not None


def _check_schema(args_schema: dict) -> None:
    if args_schema.get('type') != 'object' or \
            args_schema.get('additionalProperties') is not False:
        raise TypeError('an RPC argument schema must be an object schema '
                        'with additionalProperties: False')
    jsonschema.validators.validator_for(
        args_schema, default=jsonschema.Draft202012Validator,
    ).check_schema(args_schema)


def _check_signature(func: Callable, args_schema: dict) -> None:
    """The schema's properties must be exactly the method's arguments."""
    params = list(inspect.signature(func).parameters)[2:]  # self, context
    properties = set(args_schema.get('properties', {}))
    if properties != set(params):
        raise TypeError(
            f'schema of {func.__qualname__} describes {sorted(properties)} '
            f'but the method takes {sorted(params)}')
