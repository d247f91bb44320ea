"""One way to wait for something: poll with tenacity until it is there.

The drivers, the conductor, the adapters, the CLI and the RPC client wait
for a stack action to end, a server to go, a Node to register, a Grant to
be ready, a broker to listen or a service to answer; they all call
:func:`until` rather than each writing its own deadline loop.
"""

import itertools
import time
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from typing import TypeVar

import tenacity

T = TypeVar('T')


def until(attempt: Callable[[], T | None], *, timeout: float,
          interval: float | Iterable[float] = 0.0,
          first_after: bool = False,
          retry_on: tuple[type[Exception], ...] = (),
          sleep: Callable[[float], None] = time.sleep,
          clock: Callable[[], float] = time.monotonic) -> T | None:
    """Call ``attempt`` until it returns something other than None.

    It is called at least once, then again after each ``interval``
    seconds (a number, or the successive sleeps: a schedule such as
    Heat's) until ``timeout`` seconds have passed since the call of
    :func:`until`. No sleep runs past that deadline: the last attempt is
    made at it. An exception of ``retry_on`` counts as "not yet"; any
    other is raised at once.

    :param first_after: the first attempt comes after the first interval
        (the thing waited for was just started), not at once.
    :param clock: the clock ``timeout`` is measured on (tests pass the
        fake one their ``sleep`` advances).
    :returns: the first value other than None, or None when time ran out
        (after a last attempt that returned None).
    :raises: the last exception of ``retry_on`` when time ran out on one.
    """
    deadline = clock() + timeout
    intervals = iter(itertools.repeat(interval)
                     if isinstance(interval, (int, float)) else interval)

    left = [timeout]

    def pause(state: object = None) -> float:
        # one clock read per round, shared with stop(), which tenacity
        # asks after this; no sleep past the deadline: the last look is
        # at it
        left[0] = deadline - clock()
        return max(0.0, min(next(intervals), left[0]))

    def stop(state: object) -> bool:
        return left[0] <= 0

    if first_after:
        sleep(pause())
    return tenacity.Retrying(
        retry=(tenacity.retry_if_result(_is_none)
               | tenacity.retry_if_exception_type(retry_on)),
        stop=stop, wait=pause, sleep=sleep,
        retry_error_callback=_last_outcome)(attempt)


def backoff(first: float, most: float) -> Iterator[float]:
    """Sleeps doubling from ``first`` up to ``most`` (an ``interval``)."""
    return itertools.accumulate(itertools.repeat(None),
                                lambda last, _: min(most, last * 2),
                                initial=first)


def _is_none(value: object) -> bool:
    return value is None


def _last_outcome(state: tenacity.RetryCallState) -> object:
    # the last attempt's value (None), or its exception raised again
    return state.outcome.result()
