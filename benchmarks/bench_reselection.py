"""Benchmark: attempts until a VNF deploys, zone reselection strategies.

Issue 4: attempts per successful deployment and time to success for the
``random`` and ``capacity`` strategies of
:mod:`placement_ext.decision.zone_reselection`, over generated clouds of
5 to 50 zones, 20 % to 80 % full, against the physical limit: one attempt
whenever some placement fits. Issue 15: each strategy also with the
capacity pre-check (``[v2_vnfm] placement_az_precheck``,
:mod:`placement_ext.decision.zone_precheck`), the variants named
``<strategy>+precheck``; the plain names are the loop with it off.

Model (simulated, no cloud):

* Hosts of 8 units (16 vCPU, 32 GB, no overcommit); flavors of 1 unit
  (2 vCPU, 4 GB) or 2 units. Each zone has 2-6 hosts; its fill is drawn
  around the cell's target, each host's around its zone's, so some zones
  are full and some have room.
* A request: 2-8 VNFCs over 1-3 VDUs (one flavor per VDU), some VDUs
  affine or anti-affine (scope ZONE), some anti-affinity across VDUs,
  every constraint ``fallbackBestEffort`` (reselection runs only then).
* The grant picks zones uniformly (an NFVO that does not know capacity),
  keeping its constraints: one zone per affinity group, peers apart.
* One attempt (stack create, then updates): VNFCs already built keep
  their room, the others take theirs in name order; the first that does
  not fit fails with Nova's "No valid host" text, read back through
  :func:`heat_failure.classify` with the default pattern, as the
  conductor does. The rest of the loop is the conductor's
  (``placement_ext/conductor/lifecycle.py``): record the failed zone,
  ask ``retry_policy.should_stop``, ``reselect``, until success,
  ``exhausted`` or a limit.
* ``capacity`` gets, for the failed VNFC's flavor, how many more fit in
  each zone given the deployment's built VNFCs (what Placement shows;
  the stack is not rolled back between attempts, the
  ``enable_rollback_stack`` default). ``capacity-stale``
  gets the same map with +-1 instance of error per zone.
* With the pre-check, the same map for every target's flavor (for
  ``random`` too: the pre-check reads Placement whatever the strategy)
  before the first attempt and after each failure (then judging only the
  zone that failed); the Grant lists every zone (``grant_zones``), and
  every constraint is best effort, so every target may move.
* Time is modelled, not measured: 4 s for the create and 5 s per update
  (Heat with ``action_retry_limit=0`` on the mini cloud,
  ``/work/shared/research/minicloud.md`` section 3); a failed attempt
  takes 86.6 s with Heat's default ``action_retry_limit=5``.

A deployment is feasible when its VNFCs fit the free hosts of all zones
taken together (constraints may bend). Only feasible deployments count
against the one-attempt limit; the others are reported apart.

Run records, one per deployment and strategy (:func:`run_deployment`
plus the facts :func:`run_cell` adds), are all :func:`summarize` reads,
so measured runs summarize the same way (``bench_reselection_cloud.py``).
Required: ``source`` (``simulated`` or ``real-cloud``), ``strategy``,
``feasible``, ``outcome`` (``success``, ``exhausted`` or ``limit``),
``attempts``, ``time_s``, ``time_basis`` (``modelled`` or ``measured``),
``broken_constraints``. Optional (the simulator's): ``grant_bound``,
``decide_us``, ``moves_to_known_full``, ``attempts_without`` (a
``+precheck`` run: the attempts of the same scenario without it).

Usage: ``python benchmarks/bench_reselection.py [--per-cell N] [--quick]
[--max-reselections N] [--deadline S]``. Writes
``benchmarks/results/reselection.json`` and ``.rst``.
"""

import argparse
import dataclasses
import json
import math
import os
import platform
import random
import re
import statistics
import string
import sys
import textwrap
import time
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence

import report as report_page  # benchmarks/report.py, a sibling

from placement_ext.conf import v2_vnfm
from placement_ext.decision import heat_failure
from placement_ext.decision import retry_policy
from placement_ext.decision import zone_constraints as zc
from placement_ext.decision import zone_precheck as zp
from placement_ext.decision import zone_reselection as zr
from placement_ext.sol import placement_constraint as pc
from placement_ext.vocabulary import sol_enums

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'results')
ZONE_COUNTS = (5, 10, 20, 50)
FILLS = (0.2, 0.4, 0.6, 0.8)
PER_CELL = 1000
HOST_UNITS = 8
HOSTS_PER_ZONE = (2, 6)
ZONE_FILL_SPREAD = 0.25
HOST_FILL_SPREAD = 0.15
CREATE_S = 4.0
UPDATE_S = 5.0
FAILED_ATTEMPT_RETRY5_S = 86.6
STRATEGIES = ('random', 'capacity', 'capacity-stale', 'capacity-unknown')
# the same with [v2_vnfm] placement_az_precheck on (the plain names are
# the loop with it off); with Placement unreadable it moves nothing, so
# capacity-unknown has no such variant
PRECHECK = '+precheck'
VARIANTS = STRATEGIES + tuple(f'{s}{PRECHECK}' for s in STRATEGIES[:3])
STALE_ERROR = 1  # instances, either way, per zone
CAPACITY_ERROR = re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR)
HEAT_REASON = ('Resource {action} failed: ResourceInError: resources.{name}'
               ': Went to status ERROR due to "Message: No valid host was '
               'found. , Code: 500"')


@dataclasses.dataclass(frozen=True)
class Scenario:
    """One cloud and one request.

    :ivar free: zone -> free units of each of its hosts.
    :ivar size: VNFC -> units of its flavor (1 or 2).
    :ivar granted: VNFC -> zone of the NFVO's grant (the first attempt).
    """

    seed: str
    zones: tuple[str, ...]
    free: Mapping[str, tuple[int, ...]]
    size: Mapping[str, int]
    constraints: tuple[pc.PlacementConstraint, ...]
    granted: Mapping[str, str]

    def to_dict(self) -> dict:
        return {'seed': self.seed, 'zones': list(self.zones),
                'free': {z: list(h) for z, h in self.free.items()},
                'size': dict(self.size),
                'constraints': [c.to_dict() for c in self.constraints],
                'granted': dict(self.granted)}

    @classmethod
    def from_dict(cls, data: Mapping) -> 'Scenario':
        return cls(seed=data['seed'], zones=tuple(data['zones']),
                   free={z: tuple(h) for z, h in data['free'].items()},
                   size=dict(data['size']),
                   constraints=tuple(pc.PlacementConstraint.from_dict(c)
                                     for c in data['constraints']),
                   granted=dict(data['granted']))


# Capacity. Items of 1 and 2 units on hosts of integer room: they fit
# exactly when the 2s fit in the hosts' pairs of units and the total fits
# (the 1s take any unit left), so no packing search is needed.

def fits(free: Sequence[int], sizes: Iterable[int]) -> bool:
    """Whether instances of these sizes fit on hosts with ``free`` room."""
    return more_fit(free, sizes, 0) >= 0


def more_fit(free: Sequence[int], sizes: Iterable[int], unit: int) -> int:
    """Instances of ``unit`` units that still fit next to ``sizes``
    (-1: ``sizes`` alone do not fit; ``unit`` 0 only checks that)."""
    sizes = list(sizes)
    twos = sizes.count(2)
    room_twos = sum(f // 2 for f in free) - twos
    room = sum(free) - sum(sizes)
    if room_twos < 0 or room < 0:
        return -1
    return {0: 0, 1: room, 2: min(room_twos, room // 2)}[unit]


def feasible(scenario: Scenario) -> bool:
    """Some placement fits, every zone's hosts taken together."""
    hosts = [f for zone in scenario.zones for f in scenario.free[zone]]
    return fits(hosts, scenario.size.values())


def grant_bound(scenario: Scenario) -> int:
    """About the fewest attempts of a loop that moves only the group Heat
    names: the grant, plus one per affinity group it leaves without room
    (a co-moving group that frees room can beat it, rarely)."""
    _, built = deploy(scenario, scenario.granted, {})
    names = sorted(scenario.granted)
    relations = zc.Relations(scenario.constraints)
    return 1 + len({relations.affinity_group(name, names)
                    for name in names if name not in built})


# Scenario generator.

def make_scenario(seed: str, zone_count: int, fill: float) -> Scenario:
    """The same scenario for the same arguments (string seeds do not
    depend on the process's hash seed)."""
    rng = random.Random(seed)
    zones = tuple(f'AZ-{i + 1}' for i in range(zone_count))
    free = {zone: _zone_hosts(rng, fill) for zone in zones}
    size, constraints = _request(rng)
    granted = _grant(rng, zones, size, constraints)
    return Scenario(seed, zones, free, size, constraints, granted)


def _zone_hosts(rng: random.Random, fill: float) -> tuple[int, ...]:
    zone_fill = rng.gauss(fill, ZONE_FILL_SPREAD)
    hosts = []
    for _ in range(rng.randint(*HOSTS_PER_ZONE)):
        used = round(HOST_UNITS * rng.gauss(zone_fill, HOST_FILL_SPREAD))
        hosts.append(HOST_UNITS - min(HOST_UNITS, max(0, used)))
    return tuple(hosts)


def _request(rng: random.Random) -> tuple[dict, tuple]:
    count = rng.randint(2, 8)
    vdu_count = rng.randint(1, min(3, count))
    cuts = sorted(rng.sample(range(1, count), vdu_count - 1))
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [count], strict=True)]
    size: dict[str, int] = {}
    constraints = []
    firsts = []
    for vdu, vnfc_count in enumerate(sizes, 1):
        names = [f'VDU{vdu}-{i}' for i in range(vnfc_count)]
        size.update(dict.fromkeys(names, rng.choice((1, 2))))
        firsts.append(names[0])
        draw = rng.random()
        if len(names) > 1 and draw < 0.3:
            constraints.append(_constraint(sol_enums.AFFINITY, names))
        elif len(names) > 1 and draw < 0.6:
            constraints.append(_constraint(sol_enums.ANTI_AFFINITY, names))
    if len(firsts) > 1 and rng.random() < 0.5:
        constraints.append(_constraint(sol_enums.ANTI_AFFINITY, firsts))
    return size, tuple(constraints)


def _constraint(kind: str, names: Sequence[str]) -> pc.PlacementConstraint:
    return pc.PlacementConstraint(
        affinity_or_anti_affinity=kind, scope=sol_enums.ZONE,
        resource=tuple(pc.ConstraintResourceRef.grant(n) for n in names),
        fallback_best_effort=True)


def _grant(rng: random.Random, zones: Sequence[str], size: Mapping,
           constraints: Sequence) -> dict[str, str]:
    """Uniform zones, one per affinity group, away from anti-peers."""
    names = sorted(size)
    # '' = not placed yet
    relations = zc.Relations(constraints, dict.fromkeys(names, ''))
    for name in names:
        if relations.placement[name]:
            continue
        group = relations.affinity_group(name, names)
        clear = [zone for zone in zones if not relations.effect_of_move(
            group, zone).anti_peers]
        relations.move(group, rng.choice(clear or zones))
    return relations.placement


# The deploy/reselect loop.

def deploy(scenario: Scenario, placement: Mapping[str, str],
           built: Mapping[str, str]) -> tuple[str | None, dict[str, str]]:
    """One stack create/update: (first VNFC that failed or None, the
    VNFCs built after it). Built VNFCs that stay keep their room."""
    kept = [n for n in sorted(built) if built[n] == placement[n]]
    order = kept + [n for n in sorted(placement) if n not in kept]
    taken: dict[str, list[int]] = {}
    now_built: dict[str, str] = {}
    failed = None
    for name in order:
        zone, need = placement[name], scenario.size[name]
        sizes = taken.setdefault(zone, [])
        if fits(scenario.free[zone], sizes + [need]):
            sizes.append(need)
            now_built[name] = zone
        elif failed is None:
            failed = name
    return failed, now_built


def placement_capacity(scenario: Scenario, built: Mapping[str, str],
                       vnfc: str) -> dict[str, int]:
    """Zone -> instances of ``vnfc``'s flavor that still fit."""
    return {zone: max(0, more_fit(
                scenario.free[zone],
                [scenario.size[n] for n, z in built.items() if z == zone],
                scenario.size[vnfc]))
            for zone in scenario.zones}


@dataclasses.dataclass
class _Loop:
    scenario: Scenario
    strategy: str       # a VARIANT
    placement: dict
    built: dict = dataclasses.field(default_factory=dict)
    failed: dict = dataclasses.field(default_factory=dict)
    attempts: int = 0
    elapsed: float = 0.0
    decide_s: float = 0.0
    known_full: int = 0  # moves to a zone the map said was too small

    @property
    def base(self) -> str:
        """The strategy without the pre-check suffix."""
        return self.strategy.removesuffix(PRECHECK)

    @property
    def precheck(self) -> bool:
        return self.strategy.endswith(PRECHECK)


def run_deployment(scenario: Scenario, strategy: str,
                   limits: retry_policy.RetryLimits | None = None) -> dict:
    """Deploy until success, ``exhausted`` or a limit; one run record."""
    limits = limits or retry_policy.RetryLimits()
    loop = _Loop(scenario, strategy, dict(scenario.granted))
    if loop.precheck:
        _precheck(loop, None)
    while True:
        loop.attempts += 1
        loop.elapsed += CREATE_S if loop.attempts == 1 else UPDATE_S
        culprit, loop.built = deploy(scenario, loop.placement, loop.built)
        if culprit is None:
            return _record(loop, 'success')
        _record_failure(loop, culprit)
        verdict = retry_policy.should_stop(limits, loop.attempts - 1, 0.0,
                                           loop.elapsed)
        if verdict.stop:
            return _record(loop, 'limit')
        if not _reselect(loop, culprit):
            return _record(loop, 'exhausted')
        if loop.precheck:
            _precheck(loop, [loop.failed[culprit][-1]])


def _record_failure(loop: _Loop, culprit: str) -> None:
    action = 'CREATE' if loop.attempts == 1 else 'UPDATE'
    failure = heat_failure.classify(
        HEAT_REASON.format(action=action, name=culprit), CAPACITY_ERROR,
        loop.placement)
    assert failure.reselectable and failure.vdu_id == culprit, failure
    loop.failed.setdefault(culprit, []).append(loop.placement[culprit])


def _reselect(loop: _Loop, culprit: str) -> bool:
    """Move the failed VNFC's group; False when no zone is left."""
    scenario = loop.scenario
    capacity = _capacity_map(loop, culprit, for_strategy=True)
    began = time.perf_counter()
    result = zr.reselect(
        zr.ReselectionRequest(
            zones=scenario.zones, placement=loop.placement,
            targets=sorted(loop.placement), constraints=scenario.constraints,
            failed=loop.failed, capacity=capacity),
        strategy=_strategy(loop),
        rng=random.Random(f'{scenario.seed}:{loop.attempts}'))
    loop.decide_s += time.perf_counter() - began
    if result.exhausted or not result.moved:
        return False
    zone = result.placement[culprit]
    need = sum(to == zone for _, to in result.moved.values())
    if capacity is not None and capacity[zone] < need:
        loop.known_full += 1
    loop.placement = dict(result.placement)
    return True


def _strategy(loop: _Loop) -> str:
    return zr.STRATEGY_RANDOM if loop.base == 'random' \
        else zr.STRATEGY_CAPACITY


def _precheck(loop: _Loop, judged: Sequence[str] | None) -> None:
    """The conductor's pre-check (before the first attempt, ``judged``
    None) or its known-full step after a failure. The NFVO's Grant lists
    every zone (``grant_zones``)."""
    scenario = loop.scenario
    targets = sorted(loop.placement)
    zones, _ = zp.allowed_zones(scenario.zones, scenario.zones,
                                scenario.granted, targets)
    fits = _room(loop)
    began = time.perf_counter()
    result = zp.precheck(
        zp.PrecheckRequest(
            zones=zones, placement=loop.placement, targets=targets,
            fits=fits, constraints=scenario.constraints, failed=loop.failed,
            judged=judged),
        strategy=_strategy(loop),
        rng=random.Random(f'{scenario.seed}:{loop.attempts}:precheck'))
    loop.decide_s += time.perf_counter() - began
    loop.placement = dict(result.placement)


def _room(loop: _Loop) -> dict[str, dict[str, int]]:
    """What the pre-check reads: each target's room, one Placement read
    per flavor (``capacity-stale``: each off by up to one instance)."""
    by_size = {size: _capacity_map(loop, name)
               for name, size in sorted(loop.scenario.size.items())}
    return {name: by_size[size]
            for name, size in loop.scenario.size.items()
            if by_size[size] is not None}


def _capacity_map(loop: _Loop, culprit: str,
                  for_strategy: bool = False) -> dict[str, int] | None:
    """What the conductor would read for ``culprit``'s flavor: nothing
    when Placement cannot be read (``capacity-unknown``), and nothing
    passed to ``random`` (``for_strategy``)."""
    if loop.base == 'capacity-unknown' or (
            for_strategy and loop.base == 'random'):
        return None
    capacity = placement_capacity(loop.scenario, loop.built, culprit)
    if loop.base == 'capacity-stale':
        size = loop.scenario.size[culprit]
        noise = random.Random(
            f'{loop.scenario.seed}:noise:{loop.attempts}'
            + (f':{size}' if not for_strategy else ''))
        capacity = {zone: max(0, fits + noise.randint(-STALE_ERROR,
                                                      STALE_ERROR))
                    for zone, fits in capacity.items()}
    return capacity


def _record(loop: _Loop, outcome: str) -> dict:
    broken = sum(not zc.kept(c, loop.placement)
                 for c in loop.scenario.constraints)
    return {'source': 'simulated', 'scenario': loop.scenario.seed,
            'strategy': loop.strategy, 'outcome': outcome,
            'attempts': loop.attempts, 'time_s': loop.elapsed,
            'time_basis': 'modelled', 'broken_constraints': broken,
            'decide_us': round(loop.decide_s * 1e6, 1),
            'moves_to_known_full': loop.known_full}


# Statistics.

def percentile(values: Sequence[float], share: float) -> float | None:
    """Nearest-rank percentile (``share`` 0.9 for p90); None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def summarize(runs: Iterable[Mapping]) -> dict:
    """Figures of one group of run records (each with ``feasible``)."""
    runs = list(runs)
    ok = [r for r in runs if r['feasible']]
    wins = [r for r in ok if r['outcome'] == 'success']
    attempts = [r['attempts'] for r in wins]
    times = [r['time_s'] for r in wins]
    retry5 = [(r['attempts'] - 1) * FAILED_ATTEMPT_RETRY5_S
              + (CREATE_S if r['attempts'] == 1 else UPDATE_S) for r in wins]
    gave_up = [r['attempts'] for r in runs if not r['feasible']]
    over = [r for r in _having(wins, 'grant_bound')
            if r['attempts'] > r['grant_bound']]
    return {
        'deployments': len(runs), 'feasible': len(ok),
        'success_rate': _share(len(wins), len(ok)),
        'attempts_median': percentile(attempts, 0.5),
        'attempts_p90': percentile(attempts, 0.9),
        'attempts_max': max(attempts, default=None),
        'attempts_mean': _mean(attempts),
        'after_failed_grant_mean': _mean([a for a in attempts if a > 1]),
        'one_attempt_rate': _share(attempts.count(1), len(ok)),
        'grant_bound_mean': _mean(
            [r['grant_bound'] for r in _having(ok, 'grant_bound')]),
        'at_bound_rate': _share(
            sum(r['attempts'] <= r['grant_bound']
                for r in _having(wins, 'grant_bound')),
            len(_having(wins, 'grant_bound'))),
        'time_median_s': percentile(times, 0.5),
        'time_p90_s': percentile(times, 0.9),
        'time_retry5_median_s': percentile(retry5, 0.5),
        'time_retry5_p90_s': percentile(retry5, 0.9),
        'broken_rate': _share(sum(r['broken_constraints'] > 0
                                  for r in wins), len(wins)),
        'failed_feasible': {o: sum(r['outcome'] == o for r in ok)
                            for o in ('exhausted', 'limit')},
        'infeasible': len(gave_up),
        'infeasible_attempts_mean': _mean(gave_up),
        'over_bound_known_full_rate': _share(
            sum(r.get('moves_to_known_full', 0) > 0 for r in over),
            len(_having(over, 'moves_to_known_full'))),
        'known_full_rate': _share(
            sum(r['moves_to_known_full'] > 0
                for r in _having(ok, 'moves_to_known_full')),
            len(_having(ok, 'moves_to_known_full'))),
        'decide_us_per_attempt': _mean(
            [r['decide_us'] / r['attempts']
             for r in _having(runs, 'decide_us')]),
        # the same scenario without the pre-check (every deployment)
        'more_than_without': _count(_having(runs, 'attempts_without'),
                                    lambda r: r['attempts']
                                    > r['attempts_without']),
        'fewer_than_without': _count(_having(runs, 'attempts_without'),
                                     lambda r: r['attempts']
                                     < r['attempts_without']),
    }


def _count(runs: Sequence[Mapping], test: Callable[[Mapping], bool]
           ) -> int | None:
    """How many of ``runs`` pass ``test``; None without any."""
    return sum(map(test, runs)) if runs else None


def _having(runs: Sequence[Mapping], key: str) -> list[Mapping]:
    """The records that carry an optional field."""
    return [r for r in runs if key in r]


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def run_cell(zone_count: int, fill: float, per_cell: int,
             limits: retry_policy.RetryLimits) -> list[dict]:
    """Every strategy on the same ``per_cell`` scenarios of one cell."""
    runs = []
    for index in range(per_cell):
        scenario = make_scenario(f'{zone_count}-{fill}-{index}', zone_count,
                                 fill)
        facts = {'zones': zone_count, 'fill': fill,
                 'feasible': feasible(scenario),
                 'grant_bound': grant_bound(scenario)}
        by = {}
        for strategy in VARIANTS:
            run = run_deployment(scenario, strategy, limits)
            run.update(facts)
            by[strategy] = run
        for strategy, run in by.items():
            if strategy.endswith(PRECHECK):
                run['attempts_without'] = by[
                    strategy.removesuffix(PRECHECK)]['attempts']
        runs.extend(by.values())
    return runs


def group(runs: Sequence[Mapping], *keys: str) -> dict[tuple, list]:
    groups: dict[tuple, list] = {}
    for run in runs:
        groups.setdefault(tuple(run[k] for k in keys), []).append(run)
    return groups


# Output.

# (summary key, header, format); '%' formats a share as a percentage.
COLUMNS = (('feasible', 'feasible', '{}'), ('success_rate', 'ok %', '%'),
           ('attempts_median', 'median', '{}'), ('attempts_p90', 'p90', '{}'),
           ('attempts_max', 'max', '{}'), ('attempts_mean', 'mean', '{:.2f}'),
           ('one_attempt_rate', '1 try %', '%'),
           ('at_bound_rate', '<=bound %', '%'),
           ('time_median_s', 't med s', '{:.0f}'),
           ('time_p90_s', 't p90 s', '{:.0f}'),
           ('time_retry5_p90_s', 't p90 r5', '{:.0f}'),
           ('broken_rate', 'broken %', '%'),
           ('more_than_without', '> off', '{}'),
           ('fewer_than_without', '< off', '{}'))
CELL_COLUMNS = (('feasible', 'feasible', '{}'),
                ('one_attempt_rate', 'grant ok %', '%'),
                ('grant_bound_mean', 'bound', '{:.2f}'))
# short names: the page's format keys, and (with ``+pc``) its headers
SHORT = {'random': 'rnd', 'capacity': 'cap', 'capacity-stale': 'stale',
         'capacity-unknown': 'unknown', f'random{PRECHECK}': 'rndpc',
         f'capacity{PRECHECK}': 'cappc',
         f'capacity-stale{PRECHECK}': 'stalepc'}


def _header(variant: str) -> str:
    short = SHORT[variant]
    return short[:-2] + '+pc' if variant.endswith(PRECHECK) else short


def _fmt(value: object, fmt: str) -> str:
    if value is None:
        return '-'
    if fmt == '%':
        return f'{100 * value:.1f}'
    return fmt.format(value)


def table_rows(summaries: Sequence[Mapping], keys: Sequence[str],
               columns: Sequence[tuple[str, str, str]]) -> list[list[str]]:
    """A header, then one row per summary: its ``keys`` as they are,
    then ``columns`` (as in :data:`COLUMNS`) formatted."""
    rows = [list(keys) + [c[1] for c in columns]]
    for s in summaries:
        rows.append([str(s[key]) for key in keys]
                    + [_fmt(s[key], fmt) for key, _, fmt in columns])
    return rows


def strategy_rows(summaries: Sequence[Mapping]) -> list[list[str]]:
    """One row per (cell, strategy), every column."""
    return table_rows(summaries, ('zones', 'fill', 'strategy'), COLUMNS)


def cell_rows(summaries: Sequence[Mapping]) -> list[list[str]]:
    """One row per cell: mean (p90, max) attempts of each strategy."""
    header = ['zones', 'fill'] + [c[1] for c in CELL_COLUMNS] + [
        f'{_header(s)} mean (p90, max)' for s in VARIANTS] + [
        f'{_header(s)} ok %' for s in VARIANTS]
    rows = [header]
    for (zones, fill), by in group(summaries, 'zones', 'fill').items():
        by = {s['strategy']: s for s in by}
        first = by[STRATEGIES[0]]
        rows.append(
            [str(zones), fill]
            + [_fmt(first[key], fmt) for key, _, fmt in CELL_COLUMNS]
            + [_fmt(by[s]['attempts_mean'], '{:.2f}')
               + f' ({by[s]["attempts_p90"]}, {by[s]["attempts_max"]})'
               for s in VARIANTS]
            + [_fmt(by[s]['success_rate'], '%') for s in VARIANTS])
    return rows


def print_rows(rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print(' '.join(cell.rjust(width)
                       for cell, width in zip(row, widths, strict=True)))


def rst_table(rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ['.. list-table::', '   :header-rows: 1', '']
    for cells in rows:
        lines.append('   * - ' + cells[0])
        lines.extend('     - ' + cell for cell in cells[1:])
    return lines + ['']


def build_document(runs: Sequence[Mapping], args: argparse.Namespace,
                   seconds: float) -> dict:
    cells = [dict(zones=z, fill=f'{round(100 * fill)}%', strategy=s,
                  **summarize(rs))
             for (z, fill, s), rs in group(runs, 'zones', 'fill',
                                           'strategy').items()]
    overall = [dict(zones='all', fill='all', strategy=s, **summarize(rs))
               for (s,), rs in group(runs, 'strategy').items()]
    return {
        'benchmark': 'reselection', 'source': 'simulated',
        'time_basis': 'modelled', 'per_cell': args.per_cell,
        'limits': {'max_reselections': args.max_reselections,
                   'deadline_s': args.deadline},
        'model': {'host_units': HOST_UNITS, 'hosts_per_zone': HOSTS_PER_ZONE,
                  'zone_fill_spread': ZONE_FILL_SPREAD,
                  'host_fill_spread': HOST_FILL_SPREAD,
                  'stale_error': STALE_ERROR, 'create_s': CREATE_S,
                  'update_s': UPDATE_S,
                  'failed_attempt_retry5_s': FAILED_ATTEMPT_RETRY5_S},
        'python': sys.version.split()[0],
        'machine': f'{platform.machine()}, {os.cpu_count()} CPUs',
        'run_seconds': round(seconds, 1),
        'overall': overall, 'cells': cells,
    }


def write_rst(document: Mapping, path: str) -> None:
    by = {s['strategy']: s for s in document['overall']}
    cells = {(s['zones'], s['fill'], s['strategy']): s
             for s in document['cells']}
    values = {f'{SHORT[name]}_{key}': value
              for name, summary in by.items()
              for key, value in summary.items()}
    for zones in (ZONE_COUNTS[0], ZONE_COUNTS[-1]):
        for name in ('random', 'capacity', f'capacity{PRECHECK}'):
            values[f'{SHORT[name]}{zones}'] = cells[
                (zones, f'{round(100 * FILLS[-1])}%', name)]['attempts_mean']
    text = DashFormatter().format(RST, per_cell=document['per_cell'],
                                  seconds=document['run_seconds'], **values)
    lines = [_reflow(text + ' ' + report_page.load_sentence(
        *document.get('load', (None, None))))]
    lines += rst_table([row[2:] for row in strategy_rows(
        document['overall'])])
    lines += ['Per cell: the same scenarios for every strategy; mean '
              'attempts per successful deployment (p90, max).', '']
    lines += rst_table(cell_rows(document['cells']))
    with open(path, 'w') as out:
        out.write('\n'.join(lines))


class DashFormatter(string.Formatter):
    """``-`` for a figure with no data (a cell without failures)."""

    def format_field(self, value: object, format_spec: str) -> str:
        if value is None:
            return '-'
        return super().format_field(value, format_spec)


def _reflow(text: str) -> str:
    """Wrap the filled-in paragraphs again (the title stays)."""
    title, *paragraphs = text.strip().split('\n\n')
    return '\n\n'.join([title] + [textwrap.fill(
        ' '.join(p.split()), 72, break_on_hyphens=False,
        break_long_words=False)
                                  for p in paragraphs]) + '\n'


RST = """\
Zone reselection: attempts until a VNF deploys
==============================================

Simulated by ``benchmarks/bench_reselection.py`` ({seconds:.0f} s): {per_cell}
generated deployments in each of 16 cells (5, 10, 20 or 50 zones; 20, 40,
60 or 80% full), each run through the conductor's loop with
``zone_reselection.reselect`` as ``random``, ``capacity`` (exact capacity
map), ``capacity-stale`` (map off by up to one instance per zone) and
``capacity-unknown`` (the ``capacity`` strategy when Placement cannot be
read), each but the last also with the capacity pre-check
(``+precheck``, ``[v2_vnfm] placement_az_precheck``, the default; the
plain names are the loop with it off, the specification's behaviour).
{cap_feasible} deployments have a placement that fits (the physical
limit: one attempt); {cap_infeasible} have none and are left out below
(finding that out takes {cap_infeasible_attempts_mean:.1f} attempts with
``capacity``, {rnd_infeasible_attempts_mean:.1f} with ``random``). The grant
is not capacity-aware, so without the pre-check the first attempt is the
same for every strategy. Times are modelled (4 s create, 5 s per update:
Heat with ``action_retry_limit=0`` on the mini cloud), not measured.

**With the pre-check.** Before the first attempt the conductor reads
each target's room from Placement and moves the targets that cannot fit
to a zone the Grant allows (here every zone) where they fit; after a
failure it also moves the other targets of the zone Heat found full.
``capacity`` then needs {cappc_attempts_mean:.3f} attempts per successful
deployment (p90 {cappc_attempts_p90}, max {cappc_attempts_max};
{cappc_one_attempt_rate:.1%} of feasible deployments done at the first
attempt), ``random`` {rndpc_attempts_mean:.3f} (max {rndpc_attempts_max}),
against {cap_attempts_mean:.2f} and {rnd_attempts_mean:.2f} without it; in
the 80% cells {cappc5:.3f} with 5 zones and {cappc50:.3f} with 50. Its
moves break a best-effort constraint in {cappc_broken_rate:.1%} of
successes ({cap_broken_rate:.1%} without). Scenario by
scenario, ``capacity+precheck`` needs more attempts than ``capacity`` in
{cappc_more_than_without} of {cappc_deployments} deployments (fewer in
{cappc_fewer_than_without}), ``random+precheck`` more than ``random`` in
{rndpc_more_than_without}. A deployment still needs more than one attempt
when some group fits no zone the Grant allows (mostly an affinity group
larger than any zone's room): the pre-check leaves it where it is and the
loop finds that out as before. With a map off by one instance
(``capacity-stale+precheck``) the mean is {stalepc_attempts_mean:.2f}
(max {stalepc_attempts_max}), but {stalepc_more_than_without} deployments
need more attempts than without the pre-check: it moved a VNFC into a
zone the map wrongly said had room, and the next (also wrong) map sent it
back to the zone it had left.

**How close ``capacity`` gets to one attempt without the pre-check.**
{cap_attempts_mean:.2f}
attempts per successful deployment on average (p90 {cap_attempts_p90}, max
{cap_attempts_max}), against {rnd_attempts_mean:.2f} for ``random`` (p90
{rnd_attempts_p90}, max {rnd_attempts_max}); ``capacity-stale``
{stale_attempts_mean:.2f}, ``capacity-unknown`` {unknown_attempts_mean:.2f}.
In the 80% cells: {cap5:.2f} against {rnd5:.2f} with 5 zones, {cap50:.2f}
against {rnd50:.2f} with 50. When the grant did not fit, ``capacity`` needs
{cap_after_failed_grant_mean:.2f} attempts in all and ``random``
{rnd_after_failed_grant_mean:.2f} (2 at best). The rest of the gap to 1 is
the grant's: {cap_one_attempt_rate:.1%} of deployments fit where the NFVO put
them, and a loop that moves only the group Heat names needs about one more
attempt per group the grant left without room ("bound", mean
{cap_grant_bound_mean:.2f}). ``capacity`` stays within that bound for
{cap_at_bound_rate:.1%} of successes, ``random`` for {rnd_at_bound_rate:.1%}.

``capacity`` skips zones the map says are too small for the moving group
unless every zone is, so it moves into a known-full zone only when nothing
better is left: {cap_known_full_rate:.1%} of feasible deployments had such a
move ({cap_over_bound_known_full_rate:.0%} of the successes beyond the bound;
worst case {cap_attempts_max} attempts).
A feasible deployment still fails ({cap_success_rate:.1%} succeed, the
same with every strategy) when an affinity group fits in no single zone:
the group moves as a whole.

Modelled time to success with ``capacity``: median {cap_time_median_s:.0f} s,
p90 {cap_time_p90_s:.0f} s (``random``: p90 {rnd_time_p90_s:.0f} s). With
Heat's default ``action_retry_limit=5`` a failed attempt takes 86.6 s: p90
{cap_time_retry5_p90_s:.0f} s against {rnd_time_retry5_p90_s:.0f} s. The
decision itself takes {cap_decide_us_per_attempt:.0f} us per attempt
(measured).

Real-cloud runs (the conductor's loop on real Heat, Nova and Placement,
measured) are on their own page, ``reselection_cloud.rst``, written by
``benchmarks/bench_reselection_cloud.py`` from run records in the same
format (``source: real-cloud``, ``time_basis: measured``).

Columns: deployments with a fitting placement; success rate among them;
attempts per successful deployment (median, p90, max, mean); share done at
the first attempt; share within the bound; modelled time to success
(``r5``: with ``action_retry_limit=5``); share of successes that break a
best-effort constraint; for a ``+precheck`` variant, deployments needing
more (``> off``) and fewer (``< off``) attempts than without it.

"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--per-cell', type=int, default=PER_CELL,
                        help='scenarios per (zones, fill) cell')
    parser.add_argument('--max-reselections', type=int, default=0,
                        help='placement_az_select_retry (0: unlimited)')
    parser.add_argument('--deadline', type=float, default=0,
                        help='placement_az_select_timeout on the modelled '
                             'clock, s (0: none)')
    parser.add_argument('--quick', action='store_true',
                        help='20 per cell, results not written')
    args = parser.parse_args(argv)
    if args.quick:
        args.per_cell = 20
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    limits = retry_policy.RetryLimits(args.max_reselections, args.deadline)
    began = time.perf_counter()
    load_began = report_page.load_now()
    runs = [run for zones in ZONE_COUNTS for fill in FILLS
            for run in run_cell(zones, fill, args.per_cell, limits)]
    document = build_document(runs, args, time.perf_counter() - began)
    document['load'] = [load_began, report_page.load_now()]
    print_rows(strategy_rows(document['cells'] + document['overall']))
    print_rows(cell_rows(document['cells']))
    print(f'total {document["run_seconds"]} s')
    if args.quick:
        return 0
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, 'reselection.json'), 'w') as out:
        json.dump(document, out, indent=2)
        out.write('\n')
    write_rst(document, os.path.join(RESULTS, 'reselection.rst'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
