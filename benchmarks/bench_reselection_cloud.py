"""Benchmark: attempts until a VNF deploys, on the real (embedded) cloud.

The real-cloud rows of issue 4: ``random`` against ``capacity`` for a few
hand-made scenarios on ``tools/minicloud`` (Keystone, Nova with fake
hypervisors, Placement, Heat), each deployment run by the conductor's
own loop in-process: :class:`placement_ext.conductor.lifecycle.LifecycleRunner`
from :func:`placement_ext.conductor.wiring.build_runner` (real Heat, Nova
and Placement drivers, a SQLite database), fed through the conductor's RPC
endpoint methods (``create_operation``, ``drive``), as the
functional tests do (``placement_ext/tests/functional/conductor``).

Scenarios (:data:`SCENARIOS`; the default topology, AZ-1..AZ-3 of two
2-vCPU hosts): a VNFC granted into a full zone; two anti-affine VNFCs
granted into a full zone while a second zone is full too; a 2-vCPU VNFC
granted into a full zone while a second zone has one vCPU free on each
host (room by the zone's total, none on any host: only Placement's
per-host view tells). Before each run the zones' room for the scenario's
flavor, read from Placement, must be what the scenario says.

Every (scenario, strategy) runs ``--repeat`` times, the strategies
alternating; each strategy runs with ``[v2_vnfm] placement_az_precheck``
off (the plain name, the specification's loop) and on (``+precheck``,
as :mod:`bench_reselection` names them), the Grant listing every zone
(``grant_zones``); ``random`` draws with the conductor's seed
``<operation id>:<attempt>``, logged in each record. Between runs the
stack is deleted and waited for; the filled zones are emptied between
scenarios. The cloud's capacity is shared with the functional tests, so
the run holds their lock (``MiniCloud``, ``tests.lock``) throughout.

Records are :mod:`bench_reselection`'s run records (``source:
real-cloud``, ``time_basis: measured``: wall time of ``drive``)
and are summarized by its :func:`bench_reselection.summarize`. Heat's
``action_retry_limit`` is the cloud's, as it runs; it is recorded.

Usage (the cloud up: ``tools/minicloud/minicloud up``)::

    .venv/bin/python benchmarks/bench_reselection_cloud.py [--repeat N]

Writes ``benchmarks/results/reselection_cloud.json`` and ``.rst``.
"""

import argparse
import dataclasses
import datetime
import json
import os
import platform
import sys
import textwrap
import time
from collections.abc import Mapping
from collections.abc import Sequence

import bench_reselection
import fixtures
import report

from placement_ext import context as pe_context
from placement_ext import errors
from placement_ext.conductor import manager as conductor_manager
from placement_ext.conductor import stack_request
from placement_ext.conductor import wiring
from placement_ext.decision import zone_constraints as zc
from placement_ext.objects import operation as op_obj
from placement_ext.testing import vnf_template
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.conductor import (
    fixture as conductor_fixture,
)
from placement_ext.vocabulary import states

RESULTS = bench_reselection.RESULTS
PRECHECK = bench_reselection.PRECHECK
STRATEGIES = ('random', 'capacity', f'random{PRECHECK}',
              f'capacity{PRECHECK}')
REPEAT = 3
FULL = 'full'
ONE_PER_HOST = 'one vdu.small per host'
SMALL = cloud_fixture.FLAVOR
LARGE = 'vdu.large'
# 2 vCPU: a whole default host; a host with one vdu.small cannot take it
FLAVORS = {SMALL: vnf_template.VDU_SMALL,
           LARGE: {'vcpus': 2, 'memory_mb': 4096, 'disk_gb': 1}}
ROOM_TIMEOUT = 120  # s for Placement to show a deleted stack's room again
STACK_DELETE_TIMEOUT = 600


@dataclasses.dataclass(frozen=True)
class CloudScenario:
    """One deployment on the cloud, and how to prepare the cloud for it.

    :ivar granted: VNFC -> zone of the grant (the first attempt).
    :ivar fill: zone -> :data:`FULL` or :data:`ONE_PER_HOST`.
    :ivar room: zone -> instances of ``flavor`` that fit once filled
        (checked against Placement before every run).
    :ivar grant_bound: a loop that moves only what Heat names needs at
        least this many attempts (the grant, plus one per VNFC it left
        without room); 1 is the limit with capacity known up front.
    """

    name: str
    summary: str
    flavor: str
    granted: Mapping[str, str]
    fill: Mapping[str, str]
    room: Mapping[str, int]
    grant_bound: int
    constraints: tuple[dict, ...] = ()

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _anti_affinity(*vnfcs: str) -> dict:
    return {'affinityOrAntiAffinity': 'ANTI_AFFINITY', 'scope': 'ZONE',
            'fallbackBestEffort': True,
            'resource': [{'idType': 'GRANT', 'resourceId': v}
                         for v in vnfcs]}


SCENARIOS = (
    CloudScenario(
        name='full-grant',
        summary='one vdu.small VNFC granted into AZ-1, which is full',
        flavor=SMALL, granted={'VDU1-0': 'AZ-1'}, fill={'AZ-1': FULL},
        room={'AZ-1': 0, 'AZ-2': 4, 'AZ-3': 4}, grant_bound=2),
    CloudScenario(
        name='anti-affine-two-full',
        summary='two anti-affine (best effort) vdu.small VNFCs granted into '
                'AZ-1; AZ-1 and AZ-2 full, so only AZ-3 has room and the '
                'constraint must bend',
        flavor=SMALL, granted={'VDU2-0': 'AZ-1', 'VDU2-1': 'AZ-1'},
        fill={'AZ-1': FULL, 'AZ-2': FULL},
        room={'AZ-1': 0, 'AZ-2': 0, 'AZ-3': 4}, grant_bound=3,
        constraints=(_anti_affinity('VDU2-0', 'VDU2-1'),)),
    CloudScenario(
        name='large-flavor-partial',
        summary='one 2-vCPU VNFC granted into AZ-1, which is full; AZ-2 has '
                'one vCPU free on each host (2 in all, yet no host fits)',
        flavor=LARGE, granted={'VDU1-0': 'AZ-1'},
        fill={'AZ-1': FULL, 'AZ-2': ONE_PER_HOST},
        room={'AZ-1': 0, 'AZ-2': 0, 'AZ-3': 2}, grant_bound=2),
)


# Pure parts: the request, the record, the document and the page.

def request_body(scenario: CloudScenario, stack_name: str) -> dict:
    """The INSTANTIATE request, as the functional tests make it."""
    vnfcs = sorted(scenario.granted)
    vdus = {vnfc.rsplit('-', 1)[0] for vnfc in vnfcs}
    extra = {'constraints': [dict(c) for c in scenario.constraints]} \
        if scenario.constraints else {}
    return conductor_fixture.operation_request(
        stack_name, 'INSTANTIATE', dict(scenario.granted), vnfcs,
        flavors={vdu: FLAVORS[scenario.flavor] for vdu in vdus},
        files=vnf_template.files(scenario.flavor),
        grant_zones=sorted(scenario.room), **extra)


def outcome(op: op_obj.Operation) -> str:
    """The run record's ``outcome`` of a finished operation (``error``:
    a failure other than capacity, which ``summarize`` counts as a
    failed deployment too)."""
    if op.state == states.STATE_COMPLETED:
        return 'success'
    error = op.error or {}
    if error.get('code') == errors.ZONES_EXHAUSTED:
        if 'no availability zone is left' in error.get('detail', ''):
            return 'exhausted'
        return 'limit'
    return 'error'


def run_record(scenario: CloudScenario, strategy: str, repeat: int,
               op: op_obj.Operation, seconds: float) -> dict:
    """One run record in :mod:`bench_reselection`'s format, plus
    ``path``: per attempt, the VNFC Heat named (a failure) or the first
    one moved (a success), its zone, and how long Heat took."""
    constraints = stack_request.constraints(op.params)
    return {
        'source': 'real-cloud', 'scenario': scenario.name,
        'strategy': strategy, 'repeat': repeat, 'feasible': True,
        'grant_bound': scenario.grant_bound, 'outcome': outcome(op),
        'attempts': len(op.attempts), 'time_s': round(seconds, 2),
        'time_basis': 'measured',
        'broken_constraints': sum(not zc.kept(c, op.placement)
                                  for c in constraints),
        'operation_id': op.id,
        'seeds': [a.decision['seed'] for a in op.attempts
                  if 'seed' in a.decision],
        'path': [{'vnfc': a.vdu_id, 'zone': a.zone, 'outcome': a.outcome,
                  'heat_s': None if a.duration_s is None
                  else round(a.duration_s, 2)}
                 for a in op.attempts],
        'placement': dict(op.placement)}


def describe(record: Mapping) -> str:
    """One progress line's end: where each attempt went."""
    path = ', '.join(
        f'{a["vnfc"]}@{a["zone"]} '
        f'{"ok" if a["outcome"] == "success" else a["outcome"]}'
        for a in record['path'])
    return (f'{record["outcome"]} in {record["attempts"]} attempts, '
            f'{record["time_s"]:.1f} s, broken {record["broken_constraints"]}'
            f': {path}')


def build_document(runs: Sequence[Mapping], cloud: Mapping, repeat: int,
                   seconds: float) -> dict:
    summaries = [dict(scenario=name, strategy=strategy,
                      **bench_reselection.summarize(rs))
                 for (name, strategy), rs in bench_reselection.group(
                     runs, 'scenario', 'strategy').items()]
    overall = [dict(scenario='all', strategy=strategy,
                    **bench_reselection.summarize(rs))
               for (strategy,), rs in bench_reselection.group(
                   runs, 'strategy').items()]
    return {
        'benchmark': 'reselection-cloud', 'source': 'real-cloud',
        'time_basis': 'measured',
        'date': datetime.date.today().isoformat(), 'repeat': repeat,
        'cloud': dict(cloud), 'python': platform.python_version(),
        'machine': f'{platform.machine()}, {os.cpu_count()} CPUs',
        'run_seconds': round(seconds, 1),
        'heat_attempt_s_median': bench_reselection.percentile(
            [a['heat_s'] for r in runs for a in r['path']
             if a['heat_s'] is not None], 0.5),
        'scenarios': [s.to_dict() for s in SCENARIOS],
        'summaries': summaries, 'overall': overall, 'runs': list(runs)}


# (summary key, header, format), as bench_reselection.COLUMNS
COLUMNS = (('deployments', 'runs', '{}'), ('success_rate', 'ok %', '%'),
           ('attempts_median', 'median', '{}'),
           ('attempts_max', 'max', '{}'),
           ('attempts_mean', 'mean', '{:.2f}'),
           ('grant_bound_mean', 'bound', '{:.2f}'),
           ('at_bound_rate', '<=bound %', '%'),
           ('time_median_s', 't med s', '{:.1f}'),
           ('time_p90_s', 't p90 s', '{:.1f}'),
           ('broken_rate', 'broken %', '%'))


def page(document: Mapping) -> tuple[str, list[str], tuple[str, ...]]:
    """Title, paragraphs and verbatim tables of the results page."""
    d = document
    by = {s['strategy']: s for s in d['overall']}
    cap, rnd = by['capacity'], by['random']
    cloud = d['cloud']
    table = '\n'.join(bench_reselection.rst_table(
        bench_reselection.table_rows(d['summaries'] + d['overall'],
                                     ('scenario', 'strategy'),
                                     COLUMNS))).rstrip()
    scenarios = '\n'.join(textwrap.fill(
        f'* ``{s["name"]}``: {s["summary"]}; bound {s["grant_bound"]}.',
        78, subsequent_indent='  ', break_on_hyphens=False)
        for s in d['scenarios'])
    fmt = bench_reselection.DashFormatter().format
    paragraphs = [
        f"Measured by ``benchmarks/bench_reselection_cloud.py`` on "
        f"{d['date']} ({d['run_seconds']:.0f} s; "
        f"{report.load_sentence(*d.get('load', (None, None)))}) on the "
        f"embedded cloud "
        f"(``tools/minicloud``: Keystone, Nova with fake hypervisors, "
        f"Placement, Heat; {cloud['topology']}; Heat "
        f"``action_retry_limit={cloud['heat_action_retry_limit']}``, as "
        f"the cloud runs). Each deployment is an INSTANTIATE run by the "
        f"conductor's loop in-process (``LifecycleRunner`` from "
        f"``build_runner``: real Heat, Nova and Placement drivers, a SQLite "
        f"database), {d['repeat']} runs per scenario and strategy, the "
        f"strategies alternating; Python {d['python']}, {d['machine']} "
        f"shared with other work.",
        "Scenarios (every one feasible; \"bound\": the grant plus one "
        "attempt per VNFC it left without room, the fewest a loop that "
        "moves only what Heat names can need):",
        scenarios,
        fmt("**How close ``capacity`` gets to one attempt.** "
            "{cm:.2f} attempts per successful deployment (max {cx}) "
            "against {rm:.2f} for ``random`` (max {rx}); the physical limit "
            "with capacity known up front is 1, and the grant alone "
            "accounts for a mean bound of {cb:.2f}: ``capacity`` stays "
            "within it for {ca:.0%} of successes, ``random`` for {ra:.0%}. "
            "Measured time to success: median {ct:.1f} s with "
            "``capacity``, {rt:.1f} s with ``random`` (p90 {cp:.1f} s "
            "against {rp:.1f} s); Heat took {ha:.1f} s per attempt "
            "(median; the simulation models 4 s for a create, 5 s for an "
            "update).",
            cm=cap['attempts_mean'], cx=cap['attempts_max'],
            rm=rnd['attempts_mean'], rx=rnd['attempts_max'],
            cb=cap['grant_bound_mean'], ca=cap['at_bound_rate'],
            ra=rnd['at_bound_rate'], ct=cap['time_median_s'],
            rt=rnd['time_median_s'], cp=cap['time_p90_s'],
            rp=rnd['time_p90_s'], ha=d['heat_attempt_s_median']),
        *precheck_paragraph(by),
        "Columns: runs; success rate; attempts per successful deployment "
        "(median, max, mean); the scenario's bound and the share of "
        "successes within it; measured time to success, wall clock of "
        "``run_operation`` (median, p90); share of successes that break a "
        "best-effort constraint.",
        table,
        "Every run's record, with where each attempt went, how long Heat "
        "took and the seeds ``random`` drew with "
        "(``<operation id>:<attempt>``), is in ``reselection_cloud.json``. "
        "Simulated runs over generated clouds: ``reselection.rst``.",
    ]
    title = 'Zone reselection on the real cloud: attempts until a VNF deploys'
    return title, paragraphs, (scenarios, table)


def precheck_paragraph(by: Mapping[str, Mapping]) -> list[str]:
    """The figures of the ``+precheck`` runs, if any were made."""
    cap, rnd = by.get(f'capacity{PRECHECK}'), by.get(f'random{PRECHECK}')
    if cap is None or rnd is None:
        return []
    return [bench_reselection.DashFormatter().format(
        "**With the capacity pre-check** (``+precheck``: ``[v2_vnfm] "
        "placement_az_precheck``, the Grant listing every zone): "
        "{cm:.2f} attempts per successful deployment with ``capacity`` "
        "(max {cx}) and {rm:.2f} with ``random`` (max {rx}); measured "
        "time to success median {ct:.1f} s and {rt:.1f} s. The runs above "
        "without it are the specification's loop.",
        cm=cap['attempts_mean'], cx=cap['attempts_max'],
        rm=rnd['attempts_mean'], rx=rnd['attempts_max'],
        ct=cap['time_median_s'], rt=rnd['time_median_s'])]


def write_results(document: Mapping, out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, 'reselection_cloud.json'), 'w') as out:
        json.dump(document, out, indent=2)
        out.write('\n')
    title, paragraphs, verbatim = page(document)
    report.write_rst(os.path.join(out_dir, 'reselection_cloud.rst'), title,
                     paragraphs, verbatim)


def topology(zones: Mapping[str, Sequence[Mapping]]) -> str:
    """``AZ-1..AZ-3, 2 hosts each (2 vCPU, 8192 MB)`` or each zone apart."""
    shapes = {(len(hosts), h['vcpus'], h['memory_mb'])
              for hosts in zones.values() for h in hosts}
    names = sorted(zones)
    if len(shapes) == 1:
        count, vcpus, memory = shapes.pop()
        return (f'{names[0]}..{names[-1]}, {count} hosts each ({vcpus} '
                f'vCPU, {memory} MB)')
    return '; '.join(f'{z}: ' + ', '.join(
        f'{h["vcpus"]} vCPU/{h["memory_mb"]} MB' for h in zones[z])
        for z in names)


# The cloud.

class CloudBench(fixtures.Fixture):
    """The cloud (locked, clean), our configuration, database, runners."""

    def _setUp(self) -> None:
        self.cloud = self.useFixture(cloud_fixture.MiniCloud())
        config = self.useFixture(
            conductor_fixture.ConductorConfig(self.cloud))
        self.conf, self.db = config.conf, config.db
        self._flavor(LARGE)
        self.endpoints = {s: self._endpoint(s) for s in STRATEGIES}
        drivers = wiring.build_drivers(self.conf)
        self.heat = drivers.heat
        self.zones = drivers.zone_source()

    def _flavor(self, name: str) -> None:
        compute = self.cloud.admin.compute
        if compute.find_flavor(name) is None:
            spec = FLAVORS[name]
            flavor = compute.create_flavor(
                name=name, vcpus=spec['vcpus'], ram=spec['memory_mb'],
                disk=spec['disk_gb'], is_public=True)
            self.addCleanup(compute.delete_flavor, flavor)

    def _endpoint(self, variant: str
                  ) -> conductor_manager.ConductorManager:
        """The conductor's endpoint with its runner, as ``build_runner``
        makes it, for one ``placement_az_select_strategy`` and
        ``placement_az_precheck`` (a :data:`STRATEGIES` name)."""
        options = {'placement_az_select_strategy':
                   variant.removesuffix(PRECHECK),
                   'placement_az_precheck': variant.endswith(PRECHECK)}
        for name, value in options.items():
            self.conf.set_override(name, value, group='v2_vnfm')
        try:
            runner = wiring.build_runner(self.conf, self.db)
        finally:
            for name in options:
                self.conf.clear_override(name, group='v2_vnfm')
        return conductor_manager.ConductorManager(self.conf, 'bench',
                                                  self.db, runner=runner)

    def prepare(self, scenario: CloudScenario) -> None:
        """Empty the cloud, then fill the scenario's zones."""
        self.cloud.free_capacity()
        for zone, how in sorted(scenario.fill.items()):
            if how == FULL:
                self.cloud.fill_zone(zone)
                continue
            for host in self.cloud.zones[zone]:
                server = self.cloud.boot_server(f'{zone}:{host["host"]}')
                if server.status != 'ACTIVE':
                    raise RuntimeError(f'could not boot on {host["host"]}')

    def wait_room(self, scenario: CloudScenario) -> None:
        """Wait until Placement shows the scenario's room per zone."""
        request = request_body(scenario, 'probe')
        vnfc = request['targets'][0]
        deadline = time.monotonic() + ROOM_TIMEOUT
        while True:
            room = self.zones.capacity(sorted(scenario.room), request, vnfc)
            if room == dict(scenario.room):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f'{scenario.name}: Placement shows room {room}, the '
                    f'scenario needs {dict(scenario.room)} (this benchmark '
                    f'needs the default minicloud topology)')
            time.sleep(1)

    def run(self, scenario: CloudScenario, strategy: str,
            repeat: int) -> dict:
        """One deployment by the conductor; its stack deleted after."""
        stack_name = cloud_fixture.unique_name(f'bench-{scenario.name}')
        endpoint = self.endpoints[strategy]
        context = pe_context.get_admin_context(self.conf)
        created = endpoint.create_operation(
            context, request=request_body(scenario, stack_name))
        began = time.perf_counter()
        endpoint.drive(created['id'])  # to the end, on this thread
        seconds = time.perf_counter() - began
        op = op_obj.get(self.db, created['id'])
        self._delete_stack(stack_name)
        return run_record(scenario, strategy, repeat, op, seconds)

    def _delete_stack(self, name: str) -> None:
        # the product never deletes a stack (Tacker does): the benchmark
        # deletes through the cloud's admin connection, waits as we do
        stack = self.heat.find_stack(name)
        if stack is None:
            return
        self.cloud.admin.orchestration.delete_stack(stack['id'])
        done = self.heat.wait(stack['id'], 'DELETE', STACK_DELETE_TIMEOUT)
        if done.status != 'DELETE_COMPLETE':
            raise RuntimeError(f'stack {name}: {done.status} {done.reason}')


def cloud_facts() -> dict:
    """The running cloud's shape; exits when it is not up (a benchmark
    does not bring services up)."""
    status = cloud_fixture.run_minicloud('status', '--json')
    try:
        facts = json.loads(status.stdout)
    except ValueError:
        facts = {'healthy': False}
    if not facts.get('healthy'):
        sys.exit('the embedded cloud is not up: tools/minicloud/minicloud '
                 'up, then run this again')
    return {'topology': topology(facts['zones']), 'zones': facts['zones'],
            'allocation_ratio': facts.get('allocation_ratio', 1.0),
            'heat_action_retry_limit': facts.get('heat_action_retry_limit')}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--repeat', type=int, default=REPEAT,
                        help='runs per scenario and strategy')
    parser.add_argument('--out', default=RESULTS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cloud = cloud_facts()
    began = time.perf_counter()
    load_began = report.load_now()
    runs = []
    print(f'cloud: {cloud["topology"]}, Heat action_retry_limit '
          f'{cloud["heat_action_retry_limit"]}; waiting for the tests lock',
          flush=True)
    with CloudBench() as bench:
        print(f'[{time.perf_counter() - began:5.0f} s] cloud locked and '
              f'clean', flush=True)
        for scenario in SCENARIOS:
            bench.prepare(scenario)
            print(f'[{time.perf_counter() - began:5.0f} s] {scenario.name}: '
                  f'{dict(scenario.fill)}', flush=True)
            for repeat in range(args.repeat):
                # alternate which strategy goes first against drift
                order = STRATEGIES if repeat % 2 == 0 else STRATEGIES[::-1]
                for strategy in order:
                    bench.wait_room(scenario)
                    record = bench.run(scenario, strategy, repeat)
                    runs.append(record)
                    print(f'[{time.perf_counter() - began:5.0f} s] '
                          f'{scenario.name} {strategy} #{repeat + 1}: '
                          f'{describe(record)}; seeds {record["seeds"]}',
                          flush=True)
    document = build_document(runs, cloud, args.repeat,
                              time.perf_counter() - began)
    document['load'] = [load_began, report.load_now()]
    bench_reselection.print_rows(bench_reselection.table_rows(
        document['summaries'] + document['overall'],
        ('scenario', 'strategy'), COLUMNS))
    write_results(document, args.out)
    print(f'total {document["run_seconds"]} s; wrote {args.out}/'
          f'reselection_cloud.json and .rst')
    return 0


if __name__ == '__main__':
    sys.exit(main())
