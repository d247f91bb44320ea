"""When to stop reselecting zones: an attempt limit and a deadline.

Pure functions of counts and times the caller passes in (seconds from any
monotonic clock: ``time.monotonic()`` in the conductor), so the policy is
tested without sleeping or mocking a clock.

* ``RetryLimits(max_reselections, deadline_seconds)``: built from
  ``[v2_vnfm] placement_az_select_retry`` and
  ``placement_az_select_timeout``; 0 means "no limit" for both.
* ``should_stop(limits, reselections_done, started_at, now)``: asked
  before each reselection; a :class:`StopVerdict` with the reason to put
  in the operation's error when it says stop.
* ``attempt_timeout_minutes(...)``: Heat's ``timeout_mins`` for the next
  create/update, shortened so one attempt cannot outlive the deadline.

Running out of candidate zones is the other way the loop ends; that is
:mod:`placement_ext.decision.zone_reselection`'s ``exhausted``.
"""

import dataclasses
import math


@dataclasses.dataclass(frozen=True)
class RetryLimits:
    """Limits of one operation's reselection loop (0 = unlimited)."""

    max_reselections: int = 0
    deadline_seconds: float = 0

    def __post_init__(self) -> None:
        if self.max_reselections < 0:
            raise ValueError('max_reselections must be >= 0')
        if self.deadline_seconds < 0:
            raise ValueError('deadline_seconds must be >= 0')


@dataclasses.dataclass(frozen=True)
class StopVerdict:
    stop: bool
    reason: str | None = None


def should_stop(limits: RetryLimits, reselections_done: int,
                started_at: float, now: float) -> StopVerdict:
    """Whether the next reselection must not be made.

    :param reselections_done: reselections already made in this operation
        (0 after the first, NFVO-chosen attempt failed).
    :param started_at: when the operation's first create/update started.
    :param now: the current time on the same clock.
    """
    if limits.max_reselections and \
            reselections_done >= limits.max_reselections:
        return StopVerdict(
            True, f'reached the limit of {limits.max_reselections} zone '
                  f'reselection(s) (placement_az_select_retry)')
    remaining = remaining_seconds(limits, started_at, now)
    if remaining is not None and remaining <= 0:
        return StopVerdict(
            True, f'zone reselection deadline of {limits.deadline_seconds:g}'
                  f' s passed (placement_az_select_timeout)')
    return StopVerdict(False)


def remaining_seconds(limits: RetryLimits, started_at: float,
                      now: float) -> float | None:
    """Seconds left before the deadline; None without a deadline."""
    if not limits.deadline_seconds:
        return None
    return limits.deadline_seconds - (now - started_at)


def attempt_timeout_minutes(limits: RetryLimits, stack_timeout_minutes: int,
                            started_at: float, now: float) -> int:
    """Heat ``timeout_mins`` for the next attempt.

    The configured stack timeout, cut to the minutes left before the
    deadline (rounded up, at least 1: Heat refuses 0).
    """
    remaining = remaining_seconds(limits, started_at, now)
    if remaining is None:
        return stack_timeout_minutes
    return max(1, min(stack_timeout_minutes, math.ceil(remaining / 60)))
