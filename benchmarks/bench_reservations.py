"""Benchmark: instance reservation capacity query and host pickup.

Times :func:`placement_ext.decision.capacity.host_capacities` and
:func:`placement_ext.decision.host_pickup.pick_hosts` on generated pools
of 1,000 and 10,000 hosts holding a few thousand existing reservations,
for a request of 100 instances (2 vCPU, 4 GB, 20 GB), the request used to
measure upstream Blazar (``/work/shared/research/blazar.md``).

Only the decision is timed: reading hosts from Placement and reservations
from the DB is the manager's I/O and is not included. Each figure is the
median of several runs (``time.perf_counter``); peak memory is measured
in a separate run with ``tracemalloc``.

Usage: ``python benchmarks/bench_reservations.py [--runs N] [--quick]``.
Writes ``benchmarks/results/reservations.json`` and ``.rst``.
"""

import argparse
import datetime
import json
import os
import platform
import random
import statistics
import sys
import time
import tracemalloc

import report as report_page  # benchmarks/report.py, a sibling

from placement_ext.decision import capacity
from placement_ext.decision import host_pickup

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'results')
SIZES = [(1000, 1000), (1000, 5000), (10000, 1000), (10000, 5000)]
REQUEST = capacity.Resources(vcpus=2, memory_mb=4096, disk_gb=20)
AMOUNT = 100
# affinity=True puts every slot on one host: no host holds 100 such
# instances, so that policy is timed with a request one host can hold.
AMOUNT_ONE_HOST = 20
T0 = datetime.datetime(2030, 1, 1)
HORIZON_HOURS = 30 * 24
FLAVORS = [capacity.Resources(1, 2048, 10), capacity.Resources(2, 4096, 20),
           capacity.Resources(4, 8192, 40), capacity.Resources(8, 16384, 80)]


def make_hosts(rng, count):
    hosts = []
    for index in range(count):
        vcpus = rng.choice((16, 32, 64))
        memory = vcpus * 4096
        hosts.append(capacity.Host(
            'host-%05d' % index,
            capacity.Inventory(vcpus, allocation_ratio=4.0),
            capacity.Inventory(memory, reserved=512),
            capacity.Inventory(2000),
            # A few ordinary instances on some hosts.
            capacity.Resources(*(rng.choice((0, 0, 0, 2, 4)) * n
                                 for n in (1, 2048, 20)))))
    return hosts


def make_reservations(rng, hosts, count):
    """``count`` reservations of 1-8 slots over 1-4 hosts each, in
    periods of 1 hour to 10 days over the next 30 days."""
    entries = []
    for index in range(count):
        rid = 'res-%05d' % index
        start = T0 + datetime.timedelta(hours=rng.randrange(HORIZON_HOURS))
        end = start + datetime.timedelta(hours=rng.randint(1, 240))
        flavor = rng.choice(FLAVORS)
        for host in rng.sample(hosts, rng.randint(1, 4)):
            entries.append(capacity.ReservedSlots(
                rid, host.name, start, end, flavor, rng.randint(1, 8)))
    return entries


def operations(hosts, reservations):
    """The timed calls, as ``name -> callable``."""
    start = T0 + datetime.timedelta(days=5)
    end = start + datetime.timedelta(days=3)
    caps = capacity.slots_by_host(capacity.host_capacities(
        hosts, reservations, REQUEST, start, end))

    def query():
        return capacity.host_capacities(hosts, reservations, REQUEST, start,
                                        end)

    def pickup(affinity, amount=AMOUNT):
        return lambda: host_pickup.pick_hosts(caps, amount, affinity)

    def query_and_pickup():
        slots = capacity.slots_by_host(query())
        return host_pickup.pick_hosts(slots, AMOUNT, None)

    return caps, {
        'capacity query': query,
        'pickup affinity=None': pickup(None),
        'pickup affinity=False': pickup(False),
        'pickup affinity=True (%d)' % AMOUNT_ONE_HOST: pickup(
            True, AMOUNT_ONE_HOST),
        'query + pickup (None)': query_and_pickup,
    }


def check(caps, ops):
    """The pickups must succeed with valid answers, or the timings would
    measure the refusal path or a wrong result."""
    for name, call in ops.items():
        if not name.startswith('pickup'):
            continue
        result = call()
        amount = AMOUNT_ONE_HOST if 'True' in name else AMOUNT
        assert result.ok, (name, result.reason)
        assert sum(n for _h, n in result.allocations) == amount, name
        assert all(n <= caps[h] for h, n in result.allocations), name


def median_seconds(call, runs):
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        call()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def peak_kib(call):
    tracemalloc.start()
    tracemalloc.reset_peak()
    call()
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024


def measure(host_count, reservation_count, runs):
    rng = random.Random(host_count * 100003 + reservation_count)
    hosts = make_hosts(rng, host_count)
    reservations = make_reservations(rng, hosts, reservation_count)
    caps, ops = operations(hosts, reservations)
    check(caps, ops)
    row = {'hosts': host_count, 'reservations': reservation_count,
           'allocation_entries': len(reservations),
           'free_slots': sum(caps.values()), 'timings': {}}
    for name, call in ops.items():
        row['timings'][name] = {
            'median_ms': round(median_seconds(call, runs) * 1000, 2),
            'peak_kib': round(peak_kib(call), 1)}
    return row


def write_rst(rows, path, runs, load):
    names = list(rows[0]['timings'])
    header = ['hosts', 'reservations'] + names
    lines = [
        'Instance reservation decision, request of %d instances (2 vCPU, '
        '4 GB, 20 GB; %d for affinity=True);' % (AMOUNT, AMOUNT_ONE_HOST),
        'median of %d runs in ms, peak traced memory in KiB in brackets.'
        % runs, '',
        '.. list-table::', '   :header-rows: 1', '']
    table = [header] + [
        ['{:,}'.format(row['hosts']), '{:,}'.format(row['reservations'])]
        + ['%.1f (%d)' % (row['timings'][n]['median_ms'],
                          row['timings'][n]['peak_kib']) for n in names]
        for row in rows]
    for cells in table:
        lines.append('   * - ' + cells[0])
        lines.extend('     - ' + cell for cell in cells[1:])
    lines += ['', 'Only the decision is timed (inputs already in memory). '
              'Upstream Blazar 18.0.0 took 3.5 s to 66.9 s for the same '
              'sizes, but that includes its one SQL query per host and per '
              'reservation. ' + report_page.load_sentence(*load), '']
    with open(path, 'w') as out:
        out.write('\n'.join(lines))


def print_table(rows):
    names = list(rows[0]['timings'])
    print('%7s %7s ' % ('hosts', 'resv') + ' '.join('%22s' % n
                                                    for n in names))
    for row in rows:
        print('%7d %7d ' % (row['hosts'], row['reservations']) + ' '.join(
            '%12.1f ms %6d KiB' % (row['timings'][n]['median_ms'],
                                   row['timings'][n]['peak_kib'])
            for n in names))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=15)
    parser.add_argument('--quick', action='store_true',
                        help='1,000 hosts only, results not written')
    args = parser.parse_args(argv)
    sizes = SIZES[:2] if args.quick else SIZES
    began = time.perf_counter()
    load_began = report_page.load_now()
    rows = [measure(hosts, reservations, args.runs)
            for hosts, reservations in sizes]
    print_table(rows)
    print('total %.1f s' % (time.perf_counter() - began))
    if args.quick:
        return 0
    os.makedirs(RESULTS, exist_ok=True)
    document = {
        'benchmark': 'reservations',
        'request': {'amount': AMOUNT,
                    'amount_affinity_true': AMOUNT_ONE_HOST,
                    'vcpus': REQUEST.vcpus,
                    'memory_mb': REQUEST.memory_mb,
                    'disk_gb': REQUEST.disk_gb},
        'runs': args.runs,
        'python': sys.version.split()[0],
        'machine': '%s, %d CPUs' % (platform.machine(), os.cpu_count()),
        'results': rows,
        'load': [load_began, report_page.load_now()],
    }
    with open(os.path.join(RESULTS, 'reservations.json'), 'w') as out:
        json.dump(document, out, indent=2)
        out.write('\n')
    write_rst(rows, os.path.join(RESULTS, 'reservations.rst'), args.runs,
              document['load'])
    return 0


if __name__ == '__main__':
    sys.exit(main())
