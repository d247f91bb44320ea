"""Benchmark: the manager's whole lease create, and upstream Blazar's.

For 1,000 and 10,000 hosts holding 5,000 existing reservations, on
MariaDB (ours) and a real Placement (openstack-placement over HTTP on
127.0.0.1, threaded, its own MariaDB database) holding those compute
nodes, their ``blazar_<host>`` children and the free pool aggregate,
:meth:`placement_ext.manager.leases.Leases.create` runs end to end: the
database reads, the Placement reads, the decision, the writes, the
resource class and the (fake, in-memory) Nova flavor. The request is
100 instances of 2 vCPU / 4 GB / 20 GB, affinity None (and False), the
one used to measure Blazar. Counted per lease: wall time, Placement
calls (our client's), SQL statements (our engine's).

* cold: no host has a kept view yet (the first lease after the upgrade):
  the pool is read with one bulk call;
* warm: every view kept and current, the steady state: the decision is
  made on the kept views and only the hosts it chose are checked;
* 100 / 1,000 changed: that many providers' generations moved since
  the last lease (1,000 at 10,000 hosts only); their usages did not, so
  the chosen hosts' check finds them unchanged.

Every phase records the machine's load average (``os.getloadavg()``)
before its first run.

Rows are bulk-inserted (Placement's tables and ours), as in
bench_in_tree.py; only lease creates are timed. The same hosts and
reservations are loaded into upstream Blazar 18.0.0's own schema and its
instance plugin's ``pickup_hosts`` is timed in the same run
(benchmarks/blazar_pickup.py, in the virtualenv --blazar-venv, made
here with ``pip install blazar==18.0.0 pymysql`` when missing).

    .venv/bin/python benchmarks/bench_lease_create.py [--sizes 1000 10000]
        [--repeat 5] [--blazar-db mysql|sqlite] [--no-blazar]

Writes benchmarks/results/lease_create.json and .rst.
"""

import argparse
import datetime
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import types
import uuid

import report as report_page  # benchmarks/report.py, a sibling
import sqlalchemy as sa

from placement_ext.db import models
from placement_ext.drivers import placement as placement_driver
from placement_ext.manager import reservations
from placement_ext.tests import backends
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import nova as fake_nova
from placement_ext.tests.fixtures import placement as placement_fixture
from placement_ext.vocabulary import states

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, 'results')
ROOT = os.path.dirname(HERE)
RESERVATIONS = 5000
AMOUNT = 100
FLAVOR = (2, 4096, 20)
CHANGED = (100, 1000)
FLAVORS = [(1, 2048, 10), (2, 4096, 20), (4, 8192, 40), (8, 16384, 80)]
HORIZON_HOURS = 30 * 24
SETTINGS = reservations.Settings()
PROJECT = 'bench-project'


# -- dataset -----------------------------------------------------------------

def dataset(hosts: int, t0: datetime.datetime) -> dict:
    """Hosts and reservations as bench_reservations.py makes them: 16-64
    vCPUs (ratio 4), 4 GB per vCPU, 2 TB; each reservation 1-8 slots on
    1-4 hosts, 1 hour to 10 days within 30 days."""
    rng = random.Random(hosts * 100003 + RESERVATIONS)
    host_rows = []
    for i in range(hosts):
        vcpus = rng.choice((16, 32, 64))
        host_rows.append((f'cn{i:05d}', vcpus, vcpus * 4096, 2000))
    res_rows = []
    for _ in range(RESERVATIONS):
        start = t0 + datetime.timedelta(hours=rng.randrange(HORIZON_HOURS))
        end = start + datetime.timedelta(hours=rng.randint(1, 240))
        slots = {str(h): rng.randint(1, 8)
                 for h in rng.sample(range(hosts), rng.randint(1, 4))}
        res_rows.append((start.isoformat(), end.isoformat(),
                         *rng.choice(FLAVORS), slots))
    start = t0 + datetime.timedelta(days=5)
    request = {'amount': AMOUNT, 'vcpus': FLAVOR[0],
               'memory_mb': FLAVOR[1], 'disk_gb': FLAVOR[2],
               'affinity': None, 'start_date': start.isoformat(),
               'end_date': (start + datetime.timedelta(days=3)).isoformat()}
    return {'hosts': host_rows, 'reservations': res_rows,
            'request': request}


def _reflect(engine: sa.Engine, names: list[str]) -> dict:
    meta = sa.MetaData()
    meta.reflect(engine, only=names)
    return meta.tables


def load_placement(connection: str, hosts: list, aggregate: str) -> dict:
    """Compute nodes with children and pool membership, bulk-inserted.
    Returns hostname -> (compute node UUID, child UUID)."""
    engine = sa.create_engine(connection)
    t = _reflect(engine, ['resource_providers', 'inventories',
                          'placement_aggregates',
                          'resource_provider_aggregates', 'resource_classes'])
    now = models.utcnow()
    uuids, rps, inventories, members = {}, [], [], []
    with engine.begin() as conn:
        rc = dict(conn.execute(sa.select(t['resource_classes'].c.name,
                                         t['resource_classes'].c.id)).all())
        for name, vcpus, memory, disk in hosts:
            cn_id, cn, child = len(rps) + 1, str(uuid.uuid4()), \
                str(uuid.uuid4())
            uuids[name] = (cn, child)
            rps.append(dict(id=cn_id, uuid=cn, name=name, generation=1,
                            root_provider_id=cn_id, parent_provider_id=None,
                            created_at=now))
            rps.append(dict(id=cn_id + 1, uuid=child, name=f'blazar_{name}',
                            generation=0, root_provider_id=cn_id,
                            parent_provider_id=cn_id, created_at=now))
            for rc_name, total, reserved, ratio in (
                    ('VCPU', vcpus, 0, 4.0), ('MEMORY_MB', memory, 512, 1.0),
                    ('DISK_GB', disk, 0, 1.0)):
                inventories.append(dict(
                    resource_provider_id=cn_id, resource_class_id=rc[rc_name],
                    total=total, reserved=reserved, min_unit=1,
                    max_unit=total, step_size=1, allocation_ratio=ratio,
                    created_at=now))
            members.append(dict(resource_provider_id=cn_id, aggregate_id=1,
                                created_at=now))
        conn.execute(t['resource_providers'].insert(), rps)
        conn.execute(t['inventories'].insert(), inventories)
        conn.execute(t['placement_aggregates'].insert(),
                     [dict(id=1, uuid=aggregate, created_at=now)])
        conn.execute(t['resource_provider_aggregates'].insert(), members)
    engine.dispose()
    return uuids


def load_ours(db: object, data: dict, uuids: dict) -> None:
    """Hosts and the existing reservations in our tables."""
    now = models.utcnow()
    hosts = [dict(id=i + 1, hypervisor_hostname=name, service_name=name,
                  availability_zone='nova', vcpus=v, memory_mb=m,
                  local_gb=d, compute_provider_uuid=uuids[name][0],
                  reservation_provider_uuid=uuids[name][1], reservable=True,
                  generation=0, created_at=now)
             for i, (name, v, m, d) in enumerate(data['hosts'])]
    leases, res, inst, alloc, events = [], [], [], [], []
    for i, (start, end, vcpus, memory, disk, slots) in enumerate(
            data['reservations']):
        lease_id, res_id = str(uuid.uuid4()), str(uuid.uuid4())
        start = datetime.datetime.fromisoformat(start)
        end = datetime.datetime.fromisoformat(end)
        leases.append(dict(id=lease_id, name=f'old-{i}', user_id='u',
                           project_id=PROJECT, start_date=start,
                           end_date=end, status=states.LEASE_PENDING,
                           generation=0, created_at=now))
        res.append(dict(id=res_id, lease_id=lease_id, resource_id=None,
                        resource_type=states.RESOURCE_TYPE_INSTANCE,
                        status=states.RESERVATION_PENDING, created_at=now))
        rc = 'CUSTOM_RESERVATION_' + res_id.upper().replace('-', '_')
        inst.append(dict(reservation_id=res_id, vcpus=vcpus,
                         memory_mb=memory, disk_gb=disk,
                         amount=sum(slots.values()), affinity=None,
                         resource_class=rc, flavor_id=res_id,
                         created_at=now))
        alloc.extend(dict(reservation_id=res_id, compute_host_id=int(h) + 1,
                          created_at=now)
                     for h, n in slots.items() for _ in range(n))
        events.extend(dict(lease_id=lease_id, event_type=kind, time=when,
                           status=states.EVENT_UNDONE, created_at=now)
                      for kind, when in ((states.EVENT_START_LEASE, start),
                                         (states.EVENT_END_LEASE, end)))
    with db.writer() as session:
        for model, rows in ((models.ComputeHost, hosts),
                            (models.Lease, leases), (models.Reservation, res),
                            (models.InstanceReservation, inst),
                            (models.ComputeHostAllocation, alloc),
                            (models.Event, events)):
            session.execute(sa.insert(model.__table__), rows)


# -- our lease create ------------------------------------------------------

class Counter:
    def __init__(self, engine: sa.Engine) -> None:
        self.statements = 0
        sa.event.listen(engine, 'before_cursor_execute', self._count)

    def _count(self, *_args: object) -> None:
        self.statements += 1


def lease_body(name: str, request: dict, affinity: object) -> dict:
    return {'name': name, 'start_date': request['start_date'][:16],
            'end_date': request['end_date'][:16],
            'reservations': [{'resource_type': 'virtual:instance',
                              'amount': request['amount'],
                              'vcpus': request['vcpus'],
                              'memory_mb': request['memory_mb'],
                              'disk_gb': request['disk_gb'],
                              'affinity': affinity}]}


def create_once(manager, counter, name, request, affinity=None) -> dict:
    client = manager.placement.client
    client.calls.clear()
    counter.statements = 0
    load = os.getloadavg()[0]
    began = time.perf_counter()
    lease = manager.leases.create(lease_body(name, request, affinity),
                                  PROJECT, 'u')
    seconds = time.perf_counter() - began
    (res,) = lease.reservations
    assert sum(res.slots_by_host.values()) == AMOUNT, res.slots_by_host
    return {'seconds': seconds, 'calls': sum(client.calls.values()),
            'by_route': dict(client.calls), 'statements': counter.statements,
            'hosts_used': len(res.slots_by_host), 'load1': load}


def bump_generations(connection: str, count: int, hosts: int) -> None:
    """``count`` compute nodes changed in Placement since last read."""
    rng = random.Random(count)
    ids = [2 * i + 1 for i in rng.sample(range(hosts), count)]
    engine = sa.create_engine(connection)
    t = _reflect(engine, ['resource_providers'])['resource_providers']
    with engine.begin() as conn:
        conn.execute(t.update().where(t.c.id.in_(ids))
                     .values(generation=t.c.generation + 1))
    engine.dispose()


def summarise(samples: list[dict]) -> dict:
    seconds = [s['seconds'] for s in samples]
    return {'median_s': round(statistics.median(seconds), 3),
            'min_s': round(min(seconds), 3), 'runs': len(samples),
            'calls': samples[0]['calls'],
            'statements': samples[0]['statements'],
            'hosts_used': samples[0]['hosts_used'],
            'load1': round(samples[0]['load1'], 2),
            'by_route': samples[0]['by_route']}


def ours(hosts: int, data: dict, repeat: int) -> dict:
    aggregate = str(uuid.uuid4())
    with placement_fixture.PlacementServer('mysql') as server, \
            db_fixture.Database(backends.MYSQL_URL) as database:
        server.client().request('GET', '/', what='warm-up')
        uuids = load_placement(server.connection, data['hosts'], aggregate)
        load_ours(database.db, data, uuids)
        nova = fake_nova.FakeNova()
        nova.aggregates[SETTINGS.freepool] = types.SimpleNamespace(
            name=SETTINGS.freepool, hosts=[], metadata={}, uuid=aggregate)
        manager = reservations.Reservations(
            database.db, nova,
            placement_driver.PlacementDriver(server.client()), SETTINGS)
        counter = Counter(database.db.engine)
        request = data['request']
        phases = {'cold': summarise([create_once(manager, counter, 'cold',
                                                 request)])}
        phases['warm'] = summarise([
            create_once(manager, counter, f'warm-{i}', request)
            for i in range(repeat)])
        phases['warm, affinity False'] = summarise([
            create_once(manager, counter, f'anti-{i}', request, False)
            for i in range(repeat)])
        for count in CHANGED:
            if count >= hosts:
                continue
            changed = []
            for i in range(max(1, repeat // 2)):
                bump_generations(server.connection, count, hosts)
                changed.append(create_once(manager, counter,
                                           f'changed-{count}-{i}', request))
            phases[f'{count:,} changed'] = summarise(changed)
    return phases


# -- upstream Blazar -------------------------------------------------------

def blazar_python(venv: str) -> str:
    python = os.path.join(venv, 'bin', 'python')
    if not os.path.exists(python):
        subprocess.run([sys.executable, '-m', 'venv', venv], check=True)
        subprocess.run([python, '-m', 'pip', 'install', '-q',
                        'blazar==18.0.0', 'pymysql'], check=True)
    return python


def blazar(data: dict, venv: str, backend: str, repeat: int) -> dict:
    python = blazar_python(venv)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'dataset.json')
        with open(path, 'w') as f:
            json.dump(data, f)
        if backend == 'sqlite':
            with _nothing() as url:
                url = f'sqlite:///{tmp}/blazar.sqlite'
                return _run_blazar(python, path, url, repeat)
        with db_fixture.ServerDatabase(backends.MYSQL_URL) as database:
            return _run_blazar(python, path, database.url, repeat)


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _run_blazar(python: str, path: str, url: str, repeat: int) -> dict:
    load = os.getloadavg()[0]
    out = subprocess.run(
        [python, os.path.join(HERE, 'blazar_pickup.py'), path, url,
         str(repeat)], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"blazar_pickup.py failed:\n{out.stderr[-3000:]}")
    return {**json.loads(out.stdout.strip().splitlines()[-1]),
            'load1': round(load, 2)}


# -- report -----------------------------------------------------------------



def table(report: dict) -> str:
    rows = []
    for run in report['runs']:
        size = f"{run['hosts']:,}"
        for phase, s in run['ours'].items():
            rows.append([size, f'placement_ext, {phase}',
                         f"{s['median_s']} ({s['min_s']})", str(s['calls']),
                         str(s['statements']), str(s['hosts_used']),
                         str(s['load1'])])
        b = run.get('blazar')
        if b:
            rows.append([size, f"Blazar {b['blazar_version']} pickup_hosts "
                         f"({report['blazar_db']})",
                         f"{b['median_s']} ({b['min_s']})", '0',
                         str(b['statements']), str(b['hosts_used']),
                         str(b.get('load1', ''))])
    return report_page.rst_table(
        ['hosts', 'lease create', 'seconds median (min)', 'Placement calls',
         'SQL statements', 'hosts used', 'load 1 min'], rows)


def routes(report: dict) -> str:
    rows = []
    for run in report['runs']:
        for phase, s in run['ours'].items():
            for route, n in sorted(s['by_route'].items()):
                rows.append([f"{run['hosts']:,}", phase, route, str(n)])
    return report_page.rst_table(
        ['hosts', 'phase', 'Placement route', 'calls'], rows)


def write_report(report: dict, out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, 'lease_create.json'), 'w') as f:
        json.dump(report, f, indent=2)
        f.write('\n')
    main_table, route_table = table(report), routes(report)
    paragraphs = [
        f"Generated by ``benchmarks/bench_lease_create.py`` on "
        f"{report['date']}: openstack-placement "
        f"{report['placement_version']} over HTTP on 127.0.0.1 (threaded, "
        f"MariaDB), our database on the same MariaDB, Python "
        f"{report['python']}, {report['cpus']} CPUs. "
        f"{RESERVATIONS:,} existing reservations (1-8 slots on 1-4 hosts "
        f"each, within 30 days); each lease asks {AMOUNT} instances of "
        f"2 vCPU / 4 GB / 20 GB for 3 days starting in 5 days. Our figure "
        f"is the manager's whole ``Leases.create`` (database reads, "
        f"Placement reads, decision, writes, resource class, flavor in an "
        f"in-memory Nova); Blazar's is only its ``pickup_hosts`` (the "
        f"decision with its database reads, no writes; its lease create "
        f"runs it twice) on its own schema with the same hosts and "
        f"reservations, foreign keys indexed. Median (min) over the runs; "
        f"calls and statements of the first run.",
        main_table,
        "cold: no kept view of any host (the first lease after the "
        "upgrade): the free pool's generations are listed and the pool "
        "read with one bulk call, and every live reservation's slots are "
        "read (then kept by the manager while their one-row fingerprint "
        "holds). warm: every kept view current; the decision is made on "
        "the kept views and only the hosts it chose are checked in "
        "Placement (one GET /allocation_candidates?in_tree each, up to 16, "
        "4 at a time; more, as with affinity False: one listing of the "
        "pool's generations, then those that moved); before, every lease "
        "listed every provider's generation (GET /resource_providers?"
        "member_of, about 1 s at 10,000 hosts). N changed: N compute "
        "nodes' generations moved since the last lease (their usages did "
        "not): not read, since only the chosen hosts are checked, by "
        "content; a chosen host whose usage did change is read again and "
        "the decision made again (tested in placement_ext/tests/"
        "functional/reservation/test_leases.py). Only the hosts a "
        "lease chose are locked, and their slots read again under the "
        "locks (before: every reservable host was locked first, 0.1-0.3 s "
        "at 10,000 hosts); each host's capacities are worked out once per "
        "kept view, and the slots' one-row fingerprint scans each table "
        "once. 'load 1 min' is os.getloadavg() before the phase (Blazar: "
        "before its runs); compare figures of one run.",
        route_table,
        f"Total run: {report['total_seconds']} s.",
    ]
    report_page.write_rst(
        os.path.join(out_dir, 'lease_create.rst'),
        'Lease create end to end, real Placement, with upstream Blazar',
        paragraphs, verbatim=(main_table, route_table))
    print(main_table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', type=int, nargs='+', default=[1000, 10000])
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--blazar-repeat', type=int, default=2)
    parser.add_argument('--blazar-db', choices=('mysql', 'sqlite'),
                        default='mysql')
    parser.add_argument('--blazar-venv',
                        default=os.path.join(ROOT, '.blazar-venv'))
    parser.add_argument('--no-blazar', action='store_true')
    parser.add_argument('--out', default=RESULTS)
    args = parser.parse_args(argv)
    from importlib import metadata
    began = time.perf_counter()
    t0 = datetime.datetime.combine(
        datetime.date.today() + datetime.timedelta(days=1),
        datetime.time())
    runs = []
    for hosts in args.sizes:
        data = dataset(hosts, t0)
        run = {'hosts': hosts, 'reservations': RESERVATIONS,
               'ours': ours(hosts, data, args.repeat)}
        print(hosts, json.dumps({k: {x: v[x] for x in ('median_s', 'calls',
                                                       'statements')}
                                 for k, v in run['ours'].items()}),
              flush=True)
        if not args.no_blazar:
            run['blazar'] = blazar(data, args.blazar_venv, args.blazar_db,
                                   args.blazar_repeat)
            print(hosts, 'blazar', run['blazar'], flush=True)
        runs.append(run)
    report = {
        'date': datetime.date.today().isoformat(),
        'placement_version': metadata.version('openstack-placement'),
        'python': platform.python_version(), 'cpus': os.cpu_count(),
        'blazar_db': args.blazar_db,
        'total_seconds': round(time.perf_counter() - began), 'runs': runs}
    write_report(report, args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
