"""One exception hierarchy: a message format, its kwargs and a stable code.

Every error carries ``code`` (from :mod:`placement_ext.errors`), ``title``
and ``detail``, the same three fields the operation record and the CLI
show, so a failure reads the same whether it was raised in-process,
returned over RPC or stored on an operation.
"""

from placement_ext import errors

# Longest text an error carries; longer ones keep their head and tail.
MAX_TEXT = 1000


def shorten(text: str, limit: int = MAX_TEXT) -> str:
    """``text``, or its start and end around a note of what was left out."""
    if len(text) <= limit:
        return text
    # the note counts in the limit: a shortened text is never cut again
    kept = max(limit - len(f'...[{len(text)} characters omitted]...'), 3)
    head, tail = kept * 2 // 3, kept - kept * 2 // 3
    omitted = len(text) - head - tail
    return f'{text[:head]}...[{omitted} characters omitted]...{text[-tail:]}'


def _shortened(kwargs: dict, limit: int) -> dict:
    return {key: shorten(value, limit) if isinstance(value, str) else value
            for key, value in kwargs.items()}


class PlacementExtError(Exception):
    """Base of every placement_ext error."""

    msg_fmt = 'An unknown error occurred.'
    code = errors.INTERNAL
    title = 'Internal error'

    def __init__(self, message: str | None = None, **kwargs: object) -> None:
        # a caller's value (a name, a document) can be megabytes: it must
        # not be repeated whole in logs, on stderr or in an RPC reply
        kwargs = _shortened(kwargs, MAX_TEXT)
        if message is None:
            message = self._format(kwargs)
            if len(message) > MAX_TEXT:
                # share the room between the long values, so the text is
                # cut once, inside each value, not again as a whole
                long_ones = sum(isinstance(v, str) and len(v) > 100
                                for v in kwargs.values())
                room = MAX_TEXT - (len(message) - sum(
                    len(v) for v in kwargs.values() if isinstance(v, str)
                    and len(v) > 100))
                kwargs = _shortened(kwargs,
                                    max(100, room // max(long_ones, 1)))
                message = self._format(kwargs)
        self.kwargs = kwargs
        self.detail = shorten(message)
        super().__init__(self.detail)

    def _format(self, kwargs: dict) -> str:
        try:
            return self.msg_fmt % kwargs
        except (KeyError, TypeError, ValueError):
            # a wrong kwarg must not hide the original failure
            return f'{self.msg_fmt} ({kwargs!r})'

    def to_dict(self) -> dict:
        """Problem details as persisted on an operation and shown by CLI."""
        return {'code': self.code, 'title': self.title, 'detail': self.detail}


class InvalidInput(PlacementExtError):
    """Input refused: ``field`` names what is wrong and ``reason`` why."""

    msg_fmt = 'Invalid %(field)s: %(reason)s'
    code = errors.INVALID_INPUT
    title = 'Invalid input'

    def __init__(self, message: str | None = None, *, field: str = 'input',
                 reason: str = 'invalid value', **kwargs: object) -> None:
        super().__init__(message, field=field, reason=reason, **kwargs)
        self.field = self.kwargs['field']
        self.reason = self.kwargs['reason']


class NotFound(PlacementExtError):
    msg_fmt = '%(kind)s %(id)s could not be found.'
    code = errors.NOT_FOUND
    title = 'Not found'


class Conflict(PlacementExtError):
    msg_fmt = '%(reason)s'
    code = errors.CONFLICT
    title = 'Conflict'


class NoCapacity(Conflict):
    """A reservation the reservable hosts cannot hold for its period.

    Its own code, so that a client (or Blazar's caller) can tell "try
    fewer instances or another time" from any other conflict.
    """

    code = errors.NO_CAPACITY
    title = 'Not enough capacity'


class ConcurrentUpdate(Conflict):
    msg_fmt = ('%(kind)s %(id)s was changed by another writer; reload and '
               'try again.')
    code = errors.CONCURRENT_UPDATE
    title = 'Concurrent update'


class ServiceUnavailable(PlacementExtError):
    msg_fmt = '%(service)s is unavailable: %(reason)s'
    code = errors.SERVICE_UNAVAILABLE
    title = 'Service unavailable'


class ServiceError(PlacementExtError):
    """An OpenStack service answered with an error we cannot handle."""

    msg_fmt = '%(service)s failed: %(reason)s'
    code = errors.SERVICE_ERROR
    title = 'Service error'


class Forbidden(ServiceError):
    """The service refused our account by policy (HTTP 403); callers
    that have a fallback for non-admin accounts catch it."""

    msg_fmt = '%(service)s refused the request: %(reason)s'
    code = errors.SERVICE_FORBIDDEN
    title = 'Forbidden by the service'


class GrantRefused(PlacementExtError):
    msg_fmt = 'Grant refused: %(reason)s'
    code = errors.GRANT_REFUSED
    title = 'Grant refused'


class StackFailed(PlacementExtError):
    """Heat failed a stack for a reason another zone cannot fix."""

    msg_fmt = 'Stack %(stack)s failed: %(reason)s'
    code = errors.STACK_FAILED
    title = 'Stack failed'


class ZonesExhausted(PlacementExtError):
    """Zone reselection ran out of zones, attempts or time."""

    msg_fmt = '%(reason)s'
    code = errors.ZONES_EXHAUSTED
    title = 'No availability zone left'


class HostEnded(PlacementExtError):
    """The host service (Tacker) ended the LCM operation occurrence our
    operation ran in, before ours ended."""

    msg_fmt = ('the host service ended LCM operation occurrence %(lcm)s '
               '%(state)s')
    code = errors.HOST_ENDED
    title = 'Ended by the host service'


class NoRegion(PlacementExtError):
    """Cloud selection dropped every candidate region; ``reason`` says
    why each one went."""

    msg_fmt = 'No candidate region can host the demand: %(reason)s'
    code = errors.NO_REGION
    title = 'No region'


class IntentUnrealisable(PlacementExtError):
    """A deployment intent the chosen region or template cannot
    realise."""

    msg_fmt = 'Cannot realise the deployment intent: %(reason)s'
    code = errors.INTENT_UNREALISABLE
    title = 'Intent cannot be realised'
