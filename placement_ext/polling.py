"""One way to wait for something: poll with tenacity until it is there.

The drivers and the RPC client wait for a server to go, a Grant to be
ready, a broker to listen or a service to answer; they all call
:func:`until` rather than each writing its own deadline loop.
"""

import time
from collections.abc import Callable
from typing import TypeVar

import tenacity

T = TypeVar('T')


def until(attempt: Callable[[], T | None], *, timeout: float,
          interval: float = 0.0,
          retry_on: tuple[type[Exception], ...] = (),
          sleep: Callable[[float], None] = time.sleep) -> T | None:
    """Call ``attempt`` until it returns something other than None.

    It is called at least once, then every ``interval`` seconds until
    ``timeout`` seconds have passed since the first call. An exception of
    ``retry_on`` counts as "not yet"; any other is raised at once.

    :returns: the first value other than None, or None when time ran out
        (after a last attempt that returned None).
    :raises: the last exception of ``retry_on`` when time ran out on one.
    """
    return tenacity.Retrying(
        retry=(tenacity.retry_if_result(_is_none)
               | tenacity.retry_if_exception_type(retry_on)),
        stop=tenacity.stop_after_delay(timeout),
        wait=tenacity.wait_fixed(interval),
        sleep=sleep,
        retry_error_callback=_last_outcome)(attempt)


def _is_none(value: object) -> bool:
    return value is None


def _last_outcome(state: tenacity.RetryCallState) -> object:
    # the last attempt's value (None), or its exception raised again
    return state.outcome.result()
