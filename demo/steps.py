"""The showcase as a list of steps: each one runs, is cleaned up, and
ends in one line of outcome; a failure never ends in a traceback.

A step's clean-up runs whether the step worked or failed (so a failed
step leaves nothing behind for the next one), except a ``keep`` step
that worked under ``./run demo --keep``. A ``required`` step's failure
stops the showcase: the steps after it need what it built. The
tracebacks go to a log file, the terminal gets the cause.
"""

import dataclasses
import json
import pathlib
import time
import traceback
from collections.abc import Callable

OK, FAILED, NOT_RUN = 'ok', 'FAILED', 'not run'
CAUSE_MAX = 400     # characters of a cause shown on the terminal


class StepFailed(Exception):
    """A step ends in failure for a reason it states itself."""


@dataclasses.dataclass
class Step:
    title: str
    run: Callable[[], None]
    # each is tried, in order, whether the step worked or not
    clean_up: tuple[Callable[[], None], ...] = ()
    # the steps after this one need what it built
    required: bool = False
    # under --keep, left as it is when it worked
    keep: bool = False


@dataclasses.dataclass
class Outcome:
    title: str
    result: str = NOT_RUN
    cause: str = ''
    seconds: float = 0.0    # the step and its clean-up


def say(text: str) -> None:
    print(f'\n=== {text}', flush=True)


def describe(exc: BaseException) -> str:
    """One line saying why ``exc`` ended a step: what failed and the
    service's own words (a Problem Details ``detail`` when the body of
    an HTTP error is one)."""
    if isinstance(exc, StepFailed):
        text = str(exc)
    else:
        body = getattr(exc, 'body', None)
        detail = _problem_detail(body) if isinstance(body, str) else None
        status = getattr(exc, 'status', None)
        text = (f'{type(exc).__name__}: HTTP {status}: {detail}'
                if detail else f'{type(exc).__name__}: {exc}')
    line = ' '.join(text.split())
    return line if len(line) <= CAUSE_MAX else line[:CAUSE_MAX - 3] + '...'


def _problem_detail(body: str) -> str | None:
    try:
        found = json.loads(body)
    except ValueError:
        return None
    return found.get('detail') if isinstance(found, dict) else None


def run_all(steps: list[Step], keep: bool,
            log: pathlib.Path) -> list[Outcome]:
    """Run ``steps`` in order; the outcome of each (``not run`` after a
    required step failed)."""
    outcomes = [Outcome(step.title) for step in steps]
    for step, outcome in zip(steps, outcomes, strict=True):
        say(step.title)
        started = time.monotonic()
        _attempt(step.run, outcome, log, 'FAILED')
        worked = outcome.result == OK
        if not (keep and step.keep and worked):
            for action in step.clean_up:
                _attempt(action, outcome, log, 'clean-up FAILED')
        if worked and outcome.result != OK:
            outcome.cause = 'clean-up: ' + outcome.cause
        outcome.seconds = time.monotonic() - started
        if step.required and outcome.result != OK:
            print('  the steps after this one need it: stopping here')
            break
    return outcomes


def _attempt(action: Callable[[], None], outcome: Outcome,
             log: pathlib.Path, label: str) -> None:
    """Run ``action``; on failure, mark ``outcome`` (keeping the first
    cause), print one line and log the traceback."""
    try:
        action()
    except Exception as exc:  # any failure ends the step, no traceback
        cause = describe(exc)
        print(f'  {label}: {cause}', flush=True)
        with log.open('a') as stream:
            stream.write(f'{outcome.title}: {label}\n'
                         f'{traceback.format_exc()}\n')
        if outcome.result != FAILED:
            outcome.result, outcome.cause = FAILED, cause
        return
    if outcome.result == NOT_RUN:
        outcome.result = OK


def summary(outcomes: list[Outcome]) -> list[str]:
    """One line per step, then the verdict."""
    lines = [f'  {o.result:<7} {o.seconds:4.0f} s  {o.title}' +
             (f': {o.cause}' if o.cause else '') for o in outcomes]
    failed = sum(o.result == FAILED for o in outcomes)
    not_run = sum(o.result == NOT_RUN for o in outcomes)
    if not failed and not not_run:
        lines.append(f'  every step worked ({len(outcomes)})')
    else:
        lines.append(f'  {failed} of {len(outcomes)} steps failed' +
                     (f', {not_run} not run' if not_run else ''))
    return lines


def exit_code(outcomes: list[Outcome]) -> int:
    return 0 if all(o.result == OK for o in outcomes) else 1
