"""Benchmark: a lease's life on 100 hosts against the real Placement.

On a real Placement (openstack-placement over HTTP on 127.0.0.1, its own
database) with 100 compute node providers shaped like Nova's (4 VCPU,
8192 MEMORY_MB, 100 DISK_GB), the reservation manager's workflows run
end to end, with the in-memory Nova of the tests (which claims and
releases its servers in the same Placement, like Nova's scheduler):

* ``host create`` x 100: reservation providers, free pool, records;
* ``lease create``: 100 instances, affinity False (one slot on each
  host): the free pool's generations (one call), each host read once
  (the first lease: no host has a kept view yet), the decision, the rows,
  the resource class and flavor;
* ``start``: one inventory per reservation provider;
* ``end`` with 100 reserved servers running: servers deleted, 100
  inventories (one DELETE each), the class and the flavor removed;
* ``start x 2 concurrent``: two such leases started at once by two
  managers, on the same 100 providers: generation conflicts retried.

Each figure is the median (and min) over --repeat fresh rounds, for
Placement (and our database) on SQLite and on MariaDB; HTTP
calls are what our Placement client sent, by route (Nova's own Placement
calls for its servers are not ours and are not counted).

    .venv/bin/python benchmarks/bench_lease_lifecycle.py
        [--backend sqlite mysql] [--repeat N]

Writes benchmarks/results/lease_lifecycle.json and .rst.
"""

import argparse
import collections
import datetime
import json
import os
import platform
import statistics
import sys
import threading
import time

import report as report_page  # benchmarks/report.py, a sibling

from placement_ext.db import models
from placement_ext.drivers import placement as placement_driver
from placement_ext.manager import reservations
from placement_ext.objects import event as event_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import nova as fake_nova
from placement_ext.tests.fixtures import placement as placement_fixture
from placement_ext.tests.functional.placement import base as pbase

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'results')
HOSTS = 100
PROJECT = 'bench-project'
SETTINGS = reservations.Settings(server_poll_interval=0.01)
PHASES = ('host create x100', 'lease create', 'start', 'end (100 servers)',
          'start x 2 concurrent')


class Clock:
    def __init__(self):
        self.offset = datetime.timedelta()

    def __call__(self):
        return models.utcnow() + self.offset


def lease_body(name, clock):
    end = clock() + datetime.timedelta(hours=1)
    return {'name': name, 'start_date': 'now', 'end_date': end.isoformat(),
            'reservations': [{'resource_type': 'virtual:instance',
                              'amount': HOSTS, 'vcpus': 1, 'memory_mb': 1024,
                              'disk_gb': 1, 'affinity': False}]}


class Round:
    """One fresh Placement, database and manager."""

    def __init__(self, server, database):
        self.server = server
        self.database = database
        self.nova = fake_nova.FakeNova(server.client())
        self.clock = Clock()
        self.manager = self.new_manager()
        self.computes = {}

    def new_manager(self):
        driver = placement_driver.PlacementDriver(self.server.client())
        return reservations.Reservations(self.database.db, self.nova, driver,
                                         SETTINGS, self.clock)

    def load(self):
        client = self.server.client()
        for i in range(HOSTS):
            name = f'cn{i:03d}'
            self.computes[name] = pbase.create_compute_node(
                client, name, vcpus=4, memory_mb=8192, disk_gb=100)
            self.nova.add_hypervisor(name)

    def measure(self, name, func, managers=None):
        managers = managers or [self.manager]
        for manager in managers:
            manager.placement.client.calls.clear()
            manager.placement.conflicts = 0
        start = time.perf_counter()
        func()
        seconds = time.perf_counter() - start
        calls = collections.Counter()
        for manager in managers:
            calls.update(manager.placement.client.calls)
        return {'phase': name, 'seconds': seconds,
                'calls': sum(calls.values()), 'by_route': dict(calls),
                'conflicts': sum(m.placement.conflicts for m in managers)}

    def run(self):
        results = []
        hosts = self.manager.hosts
        results.append(self.measure(PHASES[0], lambda: [
            hosts.create(name) for name in sorted(self.computes)]))
        created = []
        results.append(self.measure(PHASES[1], lambda: created.append(
            self.manager.leases.create(lease_body('l1', self.clock),
                                       PROJECT, 'u'))))
        results.append(self.measure(PHASES[2], self._run_events))
        self._boot_everywhere(created[0].id)
        self.clock.offset += datetime.timedelta(hours=1)
        results.append(self.measure(PHASES[3], self._run_events))
        results.append(self._concurrent_starts())
        return results

    def _run_events(self):
        outcomes = self.manager.events.run_due()
        assert [o.result for o in outcomes] == ['done'], outcomes

    def _boot_everywhere(self, lease_id):
        lease = lease_obj.get(self.database.db, lease_id)
        res = lease.reservations[0]
        placement = self.manager.placement
        for name in res.slots_by_host:
            self.nova.boot(res.flavor_id, PROJECT, name, self.computes[name],
                           placement.reservation_provider(name).uuid)

    def _concurrent_starts(self):
        managers = [self.new_manager() for _ in range(2)]
        for i in range(2):
            managers[0].leases.create(lease_body(f'c{i}', self.clock),
                                      PROJECT, 'u')
        barrier = threading.Barrier(2)
        outcomes = []
        # each manager claims the start of a different lease
        events = sorted(
            (e for e in _due(self.database.db, self.clock)),
            key=lambda e: e.lease_id)

        def start(manager, event):
            barrier.wait()
            now = self.clock()
            claimed = event_obj.claim(self.database.db, event.id, now,
                                      now - datetime.timedelta(minutes=10))
            outcomes.append(manager.events._run(claimed, now).result)

        def both():
            threads = [threading.Thread(target=start, args=(m, e))
                       for m, e in zip(managers, events, strict=True)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()

        result = self.measure(PHASES[4], both, managers)
        assert outcomes == ['done', 'done'], outcomes
        return result


def _due(db, clock):
    now = clock()
    return event_obj.due_events(db, now, now - datetime.timedelta(hours=1))


def bench(backend, repeat):
    rounds = []
    for index in range(repeat):
        with placement_fixture.PlacementServer(backend) as server, \
                db_fixture.Database(db_fixture.SERVER_URLS.get(backend)) \
                as database:
            run = Round(server, database)
            run.load()
            results = run.run()
        for r in results:
            print(f'  round {index + 1}: {r["phase"]:<22} '
                  f'{r["seconds"]:7.2f} s  {r["calls"]:4d} calls  '
                  f'{r["conflicts"]} conflicts', flush=True)
        rounds.append(results)
    summary = []
    for i, phase in enumerate(PHASES):
        samples = [r[i] for r in rounds]
        seconds = [s['seconds'] for s in samples]
        summary.append({
            'phase': phase,
            'median_s': round(statistics.median(seconds), 2),
            'min_s': round(min(seconds), 2),
            'calls': samples[0]['calls'],
            'calls_same_every_round': len({s['calls'] for s in samples})
            == 1,
            'by_route': samples[0]['by_route'],
            'conflicts': [s['conflicts'] for s in samples]})
    return summary




def rst_table(summary):
    head = ['phase', 'median s (min)', 'Placement calls',
            'per host', 'generation conflicts retried']
    return report_page.rst_table(head, [
        [s['phase'], f'{s["median_s"]} ({s["min_s"]})', str(s['calls']),
         f'{s["calls"] / HOSTS:.2f}',
         ', '.join(str(c) for c in s['conflicts'])] for s in summary])


def routes_table(summary):
    routes = sorted({route for s in summary for route in s['by_route']})
    return report_page.rst_table(
        ['route'] + [s['phase'] for s in summary],
        [[route] + [str(s['by_route'].get(route, '')) for s in summary]
         for route in routes])


def write_report(report, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, 'lease_lifecycle.json'), 'w') as f:
        json.dump(report, f, indent=2)
        f.write('\n')
    r = report
    tables = [f"{run['backend']} (Placement's database and ours):\n\n"
              + rst_table(run['summary']) for run in r['runs']]
    routes = routes_table(r['runs'][0]['summary'])
    table = '\n\n'.join(tables)
    paragraphs = [
        f"Generated by ``benchmarks/bench_lease_lifecycle.py`` on "
        f"{r['date']}: openstack-placement {r['placement_version']} over "
        f"HTTP on 127.0.0.1 (single-threaded on SQLite, threaded on "
        f"MariaDB), Python {r['python']}, {r['cpus']} CPUs. "
        f"{report_page.load_sentence(*r.get('load', (None, None)))} "
        f"{HOSTS} compute nodes (4 VCPU, 8192 MB, 100 GB); the lease "
        f"reserves {HOSTS} one-vCPU instances with affinity False, one per "
        f"host. Nova is the tests' in-memory fake. Medians (min) over "
        f"{r['repeat']} fresh rounds; calls are what our Placement client "
        f"sent in the first round (the same in every round unless a "
        f"generation conflict was retried).",
        table,
        "Placement calls by route (the same on both databases):",
        routes,
        "Start costs two calls per host of the lease (read the "
        "provider's inventories and generation, write them back with one "
        "class changed), so another reservation's inventory on the same "
        "provider is never overwritten; end one per host (Placement's "
        "single-class DELETE checks use and generation itself); plus one "
        "call for the resource class. This lease create is the first: "
        "it lists the free pool's generations and reads each host once "
        "(inventories and usages), keeping the view; later creates read "
        "only hosts that changed (benchmarks/results/lease_create.rst). "
        "Two managers starting leases on the same providers at once "
        "collide on generations; each conflict costs one more read and "
        "write after a random backoff.",
        f"Total run: {r['total_seconds']} s.",
    ]
    title = 'Lease life cycle on 100 hosts, real Placement'
    report_page.write_rst(os.path.join(out_dir, 'lease_lifecycle.rst'),
                          title, paragraphs, verbatim=(table, routes))
    print()
    print(table)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', choices=('sqlite', 'mysql'),
                        nargs='+', default=['sqlite', 'mysql'])
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--out', default=RESULTS)
    args = parser.parse_args(argv)
    from importlib import metadata
    start = time.perf_counter()
    load_began = report_page.load_now()
    runs = []
    for backend in args.backend:
        print(f'{backend}:', flush=True)
        runs.append({'backend': backend,
                     'summary': bench(backend, args.repeat)})
    report = {
        'date': datetime.date.today().isoformat(),
        'placement_version': metadata.version('openstack-placement'),
        'python': platform.python_version(),
        'cpus': os.cpu_count(), 'repeat': args.repeat, 'hosts': HOSTS,
        'total_seconds': round(time.perf_counter() - start),
        'load': [load_began, report_page.load_now()], 'runs': runs}
    write_report(report, args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
