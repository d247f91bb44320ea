"""Tacker's zone-retry test timed from the services' own logs.

Pure functions over the log lines one run of Tacker's
``test_update_stack_retry`` added to heat-api's log (oslo's ``Processing
request: METHOD PATH``, one per HTTP request, redirects included) and to
tacker-conductor's (Tacker's ``Stack update vnf-... failed.`` when its
wait sees the stack failed, then either Tacker's ``Stack update ... done.``
or our ``Operation ... completed`` when the retry ended).
``benchmarks/bench_tacker.py --az-retry`` runs the test and calls
:func:`measure`.
"""

import dataclasses
import datetime
import re
import statistics

_STAMP = re.compile(r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+)')
_REQUEST = re.compile(r'Processing request: (\w+) (\S+)')
_FAILED = re.compile(r'Stack update (vnf-\S+) failed\.')
_RETRY_DONE = re.compile(r'Stack update vnf-\S+ done\.|'
                         r'Operation \S+ completed with')
_STACK_CHANGE = {'POST', 'PATCH', 'PUT'}


@dataclasses.dataclass(frozen=True)
class Request:
    at: float
    method: str
    path: str

    @property
    def kind(self) -> str:
        """What the request did, in a few words."""
        tail = self.path.split('/stacks', 1)[-1]
        for part in ('events', 'resources', 'template', 'outputs'):
            if f'/{part}' in tail:
                return f'{self.method} {part}'
        return f'{self.method} stack'

    @property
    def changes_stack(self) -> bool:
        """A stack create or update: a Heat attempt."""
        return self.method in _STACK_CHANGE and '/stacks' in self.path \
            and '/resources/' not in self.path


def stamp(line: str) -> float | None:
    """Seconds since the epoch of an oslo.log line, or None."""
    match = _STAMP.match(line)
    if match is None:
        return None
    return datetime.datetime.strptime(
        match.group(1), '%Y-%m-%d %H:%M:%S.%f').replace(
            tzinfo=datetime.timezone.utc).timestamp()


def requests(heat_api_log: str) -> list[Request]:
    found = []
    for line in heat_api_log.splitlines():
        match, at = _REQUEST.search(line), stamp(line)
        if match and at is not None:
            found.append(Request(at, match.group(1), match.group(2)))
    return found


def _first(pattern: re.Pattern, log: str, after: float = 0.0
           ) -> float | None:
    for line in log.splitlines():
        at = stamp(line)
        if at is not None and at >= after and pattern.search(line):
            return at
    return None


def measure(heat_api_log: str, conductor_log: str) -> dict:
    """The run's figures: Heat attempts (stack creates and updates) and
    requests overall, and in the retry window (from Tacker seeing the
    failed stack to the retry's end) the delay to the next Heat call,
    the requests by kind and the retry's length. The window's figures
    are None when no update failed."""
    reqs = requests(heat_api_log)
    figures = {'heat_attempts': sum(r.changes_stack for r in reqs),
               'heat_requests': len(reqs), 'failed_at': None,
               'to_next_heat_call_s': None, 'to_retry_update_s': None,
               'retry_s': None, 'window_requests': None,
               'window_attempts': None, 'window_kinds': None}
    failed = _first(_FAILED, conductor_log)
    if failed is None:
        return figures
    done = _first(_RETRY_DONE, conductor_log, after=failed)
    window = [r for r in reqs
              if r.at >= failed and (done is None or r.at <= done)]
    update = next((r for r in window if r.changes_stack), None)
    kinds: dict[str, int] = {}
    for r in window:
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    figures.update(
        failed_at=failed,
        to_next_heat_call_s=_round(window[0].at - failed if window
                                   else None),
        to_retry_update_s=_round(update.at - failed if update else None),
        retry_s=_round(done - failed if done else None),
        window_requests=len(window),
        window_attempts=sum(r.changes_stack for r in window),
        window_kinds=dict(sorted(kinds.items())))
    return figures


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def per_attempt(record: dict) -> float | None:
    """Heat requests of the retry window per Heat attempt in it."""
    attempts = record.get('window_attempts')
    if not attempts:
        return None
    return round(record['window_requests'] / attempts, 1)


def summary_rows(records: list[dict], modes: tuple[str, ...]
                 ) -> list[list[str]]:
    """One row per mode: runs passed, wall time, Heat attempts and
    requests, the failed stack to the retry update, the retry's length
    and its requests per attempt (means, min-max where it matters)."""
    rows = []
    for mode in modes:
        runs = [r for r in records if r['mode'] == mode]
        if not runs:
            continue
        rows.append([
            mode, f'{sum(r["passed"] for r in runs)}/{len(runs)}',
            _span([r['seconds'] for r in runs], 0),
            _span([r['heat_attempts'] for r in runs], 1),
            _span([r['heat_requests'] for r in runs], 0),
            _span([r['to_retry_update_s'] for r in runs], 2),
            _span([r['retry_s'] for r in runs], 1),
            _span([per_attempt(r) for r in runs], 1),
            _span([r['load1'] for r in runs], 1)])
    return rows


def _span(values: list, digits: int) -> str:
    known = [v for v in values if v is not None]
    if not known:
        return '-'
    mean = f'{statistics.mean(known):.{digits}f}'
    if len(known) == 1 or min(known) == max(known):
        return mean
    return f'{mean} ({min(known):.{digits}f}-{max(known):.{digits}f})'


def pair_ratios(records: list[dict], ours: str = 'ours',
                theirs: str = 'tacker') -> list[dict]:
    """ours / Tacker's in each pair (runs ``pair`` n of both modes):
    wall time, failed stack to retry update, requests per attempt."""
    ratios = []
    pairs = sorted({r['pair'] for r in records if r.get('pair') is not None})
    for pair in pairs:
        both = {r['mode']: r for r in records if r.get('pair') == pair}
        if ours not in both or theirs not in both:
            continue
        a, b = both[ours], both[theirs]
        ratios.append({
            'pair': pair,
            'wall': _ratio(a['seconds'], b['seconds']),
            'to_retry_update': _ratio(a['to_retry_update_s'],
                                      b['to_retry_update_s']),
            'requests_per_attempt': _ratio(per_attempt(a),
                                           per_attempt(b))})
    return ratios


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or not b:
        return None
    return round(a / b, 2)
