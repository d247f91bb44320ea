"""Targeted (in_tree) against unfiltered allocation candidates, real Placement.

For 1,000 and 5,000 compute trees, loaded into a real Placement
(openstack-placement, HTTP on 127.0.0.1, its own database), time through
our driver:

* the unfiltered query ``resources=VCPU:1,DISK_GB:10``, with no limit,
  ``limit=1000`` and ``limit=10`` (what a caller without ``in_tree`` must
  send to find one host's candidates);
* the same query with ``in_tree`` on a compute node, and on a NUMA child;
* spec-E style: ``in_tree1`` on the host and ``in_tree2`` on a sharing
  provider with ``group_policy=isolate``;
* ``capacity_on_host`` and a ``member_of`` zone query over a quarter of
  the trees.

The dataset is the one of the research notes (shared/research/
placement.md, section 3.1): compute node ``cnI`` (DISK_GB 1000, MEMORY_MB
65536) with two NUMA children (VCPU 16 each); S sharing providers (DISK_GB
100000, MISC_SHARES_VIA_AGGREGATE), ``ssK`` sharing aggregate K with the
nodes where I % S == K. Rows are bulk-inserted into Placement's own tables
(35,000 REST writes at 5,000 trees would take minutes) and checked through
the REST API before timing; only the queries are timed.

Each cell is the median (and min) of --repeat runs after one warm-up, in
ms, end to end in the client: HTTP, JSON decoding and typed parsing. The
parse share is measured apart on the same body. Results go to
benchmarks/results/in_tree.json and .rst.

    .venv/bin/python benchmarks/bench_in_tree.py [--backend sqlite|mysql]
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
import uuid

import report as report_page  # benchmarks/report.py, a sibling
import sqlalchemy as sa

from placement_ext.drivers.placement import candidates as ac
from placement_ext.drivers.placement import driver as pdriver
from placement_ext.tests.fixtures import placement as placement_fixture

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'results')
SIZES = {1000: 4, 5000: 20}          # trees -> sharing providers
FLAVOR = {'VCPU': 1, 'DISK_GB': 10}
RG = ac.RequestGroup
REQ = ac.AllocationCandidatesRequest


# -- loading -----------------------------------------------------------------

def load_trees(connection, trees, sharing):
    """Bulk-insert the dataset; returns name -> provider UUID for probes."""
    engine = sa.create_engine(connection)
    meta = sa.MetaData()
    meta.reflect(engine, only=[
        'resource_providers', 'inventories', 'placement_aggregates',
        'resource_provider_aggregates', 'resource_provider_traits',
        'resource_classes', 'traits'])
    t = meta.tables
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    with engine.begin() as conn:
        rc = dict(conn.execute(sa.select(t['resource_classes'].c.name,
                                         t['resource_classes'].c.id)).all())
        trait_id = conn.execute(
            sa.select(t['traits'].c.id).where(
                t['traits'].c.name == ac.SHARING_TRAIT)).scalar_one()
        rps, inventories, members, uuids = [], [], [], {}

        def provider(name, root=None, parent=None):
            rp_id = len(rps) + 1
            uuids[name] = str(uuid.uuid4())
            rps.append({'id': rp_id, 'uuid': uuids[name], 'name': name,
                        'generation': 1, 'root_provider_id': root or rp_id,
                        'parent_provider_id': parent, 'created_at': now})
            return rp_id

        def inventory(rp_id, rc_name, total):
            inventories.append({
                'resource_provider_id': rp_id,
                'resource_class_id': rc[rc_name], 'total': total,
                'reserved': 0, 'min_unit': 1, 'max_unit': total,
                'step_size': 1, 'allocation_ratio': 1.0, 'created_at': now})

        sharing_ids = []
        for k in range(sharing):
            ss = provider(f'ss{k}')
            inventory(ss, 'DISK_GB', 100000)
            sharing_ids.append(ss)
            members.append({'resource_provider_id': ss,
                            'aggregate_id': k + 1, 'created_at': now})
        for i in range(trees):
            cn = provider(f'cn{i}')
            inventory(cn, 'DISK_GB', 1000)
            inventory(cn, 'MEMORY_MB', 65536)
            members.append({'resource_provider_id': cn,
                            'aggregate_id': i % sharing + 1,
                            'created_at': now})
            for n in (1, 2):
                inventory(provider(f'numa{i}_{n}', root=cn, parent=cn),
                          'VCPU', 16)
        aggregates = [{'id': k + 1, 'uuid': str(uuid.uuid4()),
                       'created_at': now} for k in range(sharing)]
        conn.execute(t['resource_providers'].insert(), rps)
        conn.execute(t['inventories'].insert(), inventories)
        conn.execute(t['placement_aggregates'].insert(), aggregates)
        conn.execute(t['resource_provider_aggregates'].insert(), members)
        conn.execute(t['resource_provider_traits'].insert(), [
            {'resource_provider_id': ss, 'trait_id': trait_id,
             'created_at': now} for ss in sharing_ids])
    engine.dispose()
    uuids['agg0'] = aggregates[0]['uuid']
    return uuids


def check_loaded(driver, uuids, trees, sharing):
    """The REST API sees the trees as Nova would have made them."""
    probe = f'cn{trees // 2}'
    tree = driver.client.request(
        'GET', '/resource_providers', what='check', microversion=(1, 14),
        params={'in_tree': uuids[probe]}).json()['resource_providers']
    assert sorted(p['name'] for p in tree) == sorted(
        [probe, f'numa{trees // 2}_1', f'numa{trees // 2}_2']), tree
    assert all(p['root_provider_uuid'] == uuids[probe] for p in tree)
    result = driver.candidates_on_host(uuids[probe], FLAVOR)
    assert len(result) == 2, len(result)     # 2 NUMA x own disk
    zone = driver.zone_capacity(uuids['agg0'], FLAVOR)
    assert len(zone.per_tree) == trees // sharing, len(zone.per_tree)


# -- timing ------------------------------------------------------------------

def queries(uuids, trees, sharing):
    middle = trees // 2
    cn, numa, ss = f'cn{middle}', f'numa{middle}_1', f'ss{middle % sharing}'
    unfiltered = RG(FLAVOR)
    return [
        ('unfiltered', 'request', REQ(group=unfiltered)),
        ('unfiltered, limit=1000', 'request', REQ(group=unfiltered,
                                                  limit=1000)),
        ('unfiltered, limit=10', 'request', REQ(group=unfiltered, limit=10)),
        ('in_tree=<compute node>', 'request',
         REQ(group=RG(FLAVOR, in_tree=uuids[cn]))),
        ('in_tree=<NUMA child>', 'request',
         REQ(group=RG(FLAVOR, in_tree=uuids[numa]))),
        ('E-style: in_tree1=<node>, in_tree2=<ss>, isolate', 'request',
         REQ(numbered={1: RG({'VCPU': 1}, in_tree=uuids[cn]),
                       2: RG({'DISK_GB': 10}, in_tree=uuids[ss])},
             group_policy='isolate')),
        ('capacity_on_host(<compute node>)', 'capacity', uuids[cn]),
        ('zone_capacity(<one aggregate: trees/S hosts>)', 'zone',
         uuids['agg0']),
    ]


def run_query(driver, kind, arg):
    if kind == 'request':
        return len(driver.allocation_candidates(arg))
    if kind == 'capacity':
        return driver.capacity_on_host(arg, FLAVOR)
    return driver.zone_capacity(arg, FLAVOR).total


def time_queries(driver, probes, repeat):
    """Median and min ms per query, timed in interleaved rounds.

    Every round runs each query once, so a burst of load from other work
    on the shared machine hits all queries alike.
    """
    values = {name: run_query(driver, kind, arg)       # warm-up
              for name, kind, arg in probes}
    samples = {name: [] for name in values}
    calls = {}
    for _ in range(repeat):
        for name, kind, arg in probes:
            before = sum(driver.client.calls.values())
            start = time.perf_counter()
            run_query(driver, kind, arg)
            samples[name].append((time.perf_counter() - start) * 1000)
            calls[name] = sum(driver.client.calls.values()) - before
    cells = {}
    for name, kind, arg in probes:
        cells[name] = {
            'value': values[name],
            'median_ms': round(statistics.median(samples[name]), 1),
            'min_ms': round(min(samples[name]), 1),
            'samples': len(samples[name]), 'http_calls': calls[name]}
        if kind == 'request':
            cells[name]['parse_ms'] = round(parse_time(driver, arg), 1)
    return cells


def parse_time(driver, request):
    """Median ms to turn the response body into typed candidates."""
    body = driver.client.request(
        'GET', pdriver.ROUTE, what='parse probe',
        microversion=driver.client.max_version,
        params=request.to_params()).json()
    samples = []
    for _ in range(3):
        start = time.perf_counter()
        ac.AllocationCandidates.from_json(body, '1.39')
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def bench_size(trees, sharing, backend, repeat):
    with placement_fixture.PlacementServer(backend) as server:
        start = time.perf_counter()
        uuids = load_trees(server.connection, trees, sharing)
        load_s = time.perf_counter() - start
        driver = pdriver.PlacementDriver(server.client())
        check_loaded(driver, uuids, trees, sharing)
        cells = time_queries(driver, queries(uuids, trees, sharing),
                             repeat)
        for name, cell in cells.items():
            print(f'  {trees:>5} trees  {name:<50} '
                  f'{cell["median_ms"]:>8} ms  ({cell["value"]})',
                  flush=True)
        return {'trees': trees, 'sharing_providers': sharing,
                'microversion': '%d.%d' % driver.client.max_version,
                'providers': trees * 3 + sharing,
                'load_seconds': round(load_s, 1), 'queries': cells}


# -- report ------------------------------------------------------------------

def rst_table(runs):
    names = list(runs[0]['queries'])
    head = ['query'] + [f'{r["trees"]} trees: results / median ms (min) '
                        f'[parse ms]' for r in runs]
    rows = []
    for name in names:
        row = [name]
        for run in runs:
            c = run['queries'][name]
            parse = f' [{c["parse_ms"]}]' if 'parse_ms' in c else ''
            row.append(f'{c["value"]} / {c["median_ms"]} ({c["min_ms"]})'
                       f'{parse}')
        rows.append(row)
    rows.append(['speed-up, unfiltered / in_tree'] + [
        f'x{_speedup(run):.0f}' for run in runs])
    widths = [max(len(x) for x in col) for col in
              zip(head, *rows, strict=True)]
    line = '  '.join('=' * w for w in widths)
    fmt = '  '.join('{:<%d}' % w for w in widths)
    return '\n'.join(x.rstrip() for x in [line, fmt.format(*head), line]
                     + [fmt.format(*r) for r in rows] + [line])


def _speedup(run):
    cells = run['queries']
    return (cells['unfiltered']['median_ms']
            / cells['in_tree=<compute node>']['median_ms'])


def write_report(report, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, 'in_tree.json'), 'w') as f:
        json.dump(report, f, indent=2)
        f.write('\n')
    table = rst_table(report['runs'])
    r = report
    loads = ', '.join(f"{run['trees']} trees in {run['load_seconds']} s"
                      for run in r['runs'])
    paragraphs = [
        f"Generated by ``benchmarks/bench_in_tree.py`` on {r['date']}: "
        f"openstack-placement {r['placement_version']} at microversion "
        f"{r['microversion']}, {r['backend']} database, HTTP server on "
        f"127.0.0.1, Python {r['python']}, {r['cpus']} CPUs. "
        f"{report_page.load_sentence(*r.get('load', (None, None)))}",
        f"Each cell: candidates returned (instances, for the two capacity "
        f"rows) / median ms (min ms) over {r['repeat']} interleaved rounds "
        f"after a warm-up, end to end in our driver (HTTP, JSON, typed "
        f"parsing); [parse ms] is the part spent building typed "
        f"candidates. Every row is one HTTP call.",
        table,
        f"Loading (bulk SQL into Placement's tables, checked through the "
        f"API): {loads}. Total run: {r['total_seconds']} s.",
        "``limit`` does not make Placement cheaper: candidates are "
        "generated first and trimmed after. ``in_tree`` restricts the "
        "search to one tree and stays flat as the cloud grows.",
    ]
    title = 'in_tree against unfiltered allocation candidates'
    report_page.write_rst(os.path.join(out_dir, 'in_tree.rst'), title,
                          paragraphs, verbatim=(table,))
    print()
    print(table)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', choices=('sqlite', 'mysql'),
                        default='sqlite')
    parser.add_argument('--trees', type=int, nargs='+',
                        default=sorted(SIZES))
    parser.add_argument('--repeat', type=int, default=7)
    parser.add_argument('--out', default=RESULTS)
    args = parser.parse_args(argv)
    from importlib import metadata
    start = time.perf_counter()
    load_began = report_page.load_now()
    runs = [bench_size(n, SIZES.get(n, max(1, n // 250)), args.backend,
                       args.repeat) for n in args.trees]
    report = {
        'date': datetime.date.today().isoformat(),
        'placement_version': metadata.version('openstack-placement'),
        'microversion': runs[0]['microversion'], 'backend': args.backend,
        'python': platform.python_version(), 'cpus': os.cpu_count(),
        'repeat': args.repeat,
        'total_seconds': round(time.perf_counter() - start),
        'load': [load_began, report_page.load_now()], 'runs': runs}
    write_report(report, args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
