"""Instance reservation requests: JSON Schemas, normalisation, CLI string.

Bodies follow Blazar's lease API (``POST /leases``) so blazarclient
requests are accepted as they are: dates as ``YYYY-MM-DD HH:MM`` (any ISO
8601 date is accepted, ``now`` for the start), ``affinity`` as a JSON
boolean or null, or the strings ``True``/``False``/``None`` that the CLI
sends. Validated bodies are normalised: dates become naive UTC datetimes
and ``affinity`` becomes True, False or None.
"""

import datetime
import re

from placement_ext import exception
from placement_ext.schemas import validate as schema_validate
from placement_ext.vocabulary import states

# Integer columns of the reservation tables (blazar bug #1807101).
MAX_INT = 2 ** 31 - 1
# Blazar's `affinity` column is nullable: None = no policy.
AFFINITY = {True: True, False: False, None: None,
            'True': True, 'False': False, 'None': None,
            'true': True, 'false': False, 'none': None}
# ISO 8601 date, optional time and offset; [0-9] as \d matches any
# Unicode digit.
DATE_PATTERN = ('^[0-9]{4}-[0-9]{2}-[0-9]{2}'
                '([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,6})?)?)?'
                '(Z|[+-][0-9]{2}:[0-9]{2})?$')
NOW = 'now'

_DATE = {'type': 'string', 'pattern': DATE_PATTERN}


def _count(minimum: int) -> dict:
    return {'type': 'integer', 'minimum': minimum, 'maximum': MAX_INT}


# One ``virtual:instance`` reservation of a lease, version 1.0.
RESERVATION_V1_0 = {
    'type': 'object',
    'properties': {
        'resource_type': {'type': 'string',
                          'const': states.RESOURCE_TYPE_INSTANCE},
        'amount': _count(1),
        'vcpus': _count(1),
        'memory_mb': _count(1),
        'disk_gb': _count(0),
        'affinity': {'enum': list(AFFINITY)},
        # Blazar's host filter expression, a JSON string; '' = any host.
        'resource_properties': {'type': 'string', 'maxLength': 65535},
    },
    'required': ['resource_type', 'amount', 'vcpus', 'memory_mb', 'disk_gb'],
    'additionalProperties': False,
}

# ``POST /leases`` body, version 1.0.
LEASE_V1_0 = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 80},
        'start_date': {'anyOf': [{'const': NOW}, _DATE]},
        'end_date': _DATE,
        # blazarclient sends null; a date is refused by validate_lease
        'before_end_date': {'anyOf': [{'type': 'null'}, _DATE]},
        'reservations': {'type': 'array', 'minItems': 1,
                         'items': RESERVATION_V1_0},
        # blazarclient always sends the (empty) list of custom events;
        # we have no custom events.
        'events': {'type': 'array', 'maxItems': 0},
    },
    'required': ['name', 'start_date', 'end_date', 'reservations'],
    'additionalProperties': False,
}

def validate_lease(body: object, now: datetime.datetime) -> dict:
    """Validate and normalise a lease creation body.

    :param now: the current time (naive UTC), used for ``now``.
    :returns: the body with datetimes and normalised reservations.
    :raises InvalidInput: naming the first bad field.
    """
    schema_validate.validate(LEASE_V1_0, body, 'lease')
    if body.get('before_end_date') is not None:
        # Blazar's before_end event only notifies (its instance plugin
        # takes no action); the manager sends no notification, so a date
        # would be accepted and never honoured
        raise exception.InvalidInput(
            field='before_end_date',
            reason='not supported: the manager takes no action and sends '
                   'no notification before the end of a lease; leave it '
                   'out or null')
    lease = dict(body)
    lease.pop('events', None)
    _normalise_dates(lease, now)
    lease['reservations'] = [normalise_reservation(res)
                             for res in body['reservations']]
    return lease


def validate_reservation(body: object) -> dict:
    """Validate and normalise one reservation (e.g. from the CLI)."""
    schema_validate.validate(RESERVATION_V1_0, body, 'reservation')
    return normalise_reservation(body)


def normalise_reservation(res: dict) -> dict:
    """A validated reservation with ``affinity`` as True/False/None and
    the optional fields filled in."""
    out = dict(res)
    out.setdefault('affinity', None)
    out.setdefault('resource_properties', '')
    out['affinity'] = AFFINITY[out['affinity']]
    for field in ('amount', 'vcpus', 'memory_mb', 'disk_gb'):
        if field in out:
            out[field] = int(out[field])  # JSON Schema accepts 2.0
    return out


def parse_date(value: str, field: str,
               now: datetime.datetime) -> datetime.datetime:
    """``now`` or an ISO 8601 date as a naive UTC datetime (an offset is
    converted; a date without one is taken as UTC, as in Blazar)."""
    if value == NOW:
        parsed = now
    else:
        try:
            parsed = datetime.datetime.fromisoformat(
                value.replace('Z', '+00:00'))
        except (AttributeError, ValueError):
            raise exception.InvalidInput(
                field=field, reason='%r is not a date like 2030-01-31 12:00'
                                    % (value,))
    if parsed.tzinfo is not None:
        try:
            parsed = parsed.astimezone(datetime.timezone.utc)
        except OverflowError:
            raise exception.InvalidInput(
                field=field, reason=f'{value!r} is out of range in UTC')
    return parsed.replace(tzinfo=None)


def _normalise_dates(lease: dict, now: datetime.datetime) -> None:
    for field in ('start_date', 'end_date'):
        if lease.get(field) is not None:
            lease[field] = parse_date(lease[field], field, now)
    start, end = lease.get('start_date'), lease.get('end_date')
    if start is not None and end is not None and not start < end:
        raise exception.InvalidInput(
            field='end_date', reason='%s is not later than start_date %s'
                                     % (end, start))


# Keys of the CLI's ``--reservation key=value,...`` for an instance.
CLI_KEYS = ('id', 'resource_type', 'amount', 'vcpus', 'memory_mb',
            'disk_gb', 'affinity', 'resource_properties')
_PAIR = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$', re.S)
_INT = re.compile(r'^[+-]?\d+$')


def parse_reservation_string(text: str) -> dict:
    """Parse ``resource_type=virtual:instance,amount=6,...,affinity=None``.

    Like blazarclient, integer-looking values become ints and the rest
    stay strings (validate the result with :func:`validate_reservation`).
    ``resource_properties`` is a JSON expression that may itself contain
    commas, so it runs until the next known ``key=``.

    :raises InvalidInput: on a piece that is not ``key=value``, an unknown
        or a repeated key.
    """
    if not isinstance(text, str) or not text.strip():
        raise exception.InvalidInput(field='reservation',
                                     reason='expected key=value,...')
    pairs: dict[str, str] = {}
    key = None
    for piece in text.split(','):
        match = _PAIR.match(piece)
        if key == 'resource_properties' and (
                not match or match.group(1) not in CLI_KEYS):
            pairs[key] += ',' + piece
            continue
        if not match:
            raise exception.InvalidInput(
                field='reservation', reason='%r is not key=value' % piece)
        key = match.group(1)
        if key not in CLI_KEYS:
            raise exception.InvalidInput(
                field=key, reason='unknown key; expected one of %s'
                                  % ', '.join(CLI_KEYS))
        if key in pairs:
            raise exception.InvalidInput(field=key,
                                         reason='given more than once')
        pairs[key] = match.group(2)
    return {key: _cli_value(key, value) for key, value in pairs.items()}


def _cli_value(key: str, value: str) -> object:
    value = value.strip()
    if key not in ('id', 'resource_properties') and _INT.match(value):
        return int(value)
    return value
