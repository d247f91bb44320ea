"""Benchmark: the HA topology (``minicloud ha``) against one MariaDB.

Needs the embedded cloud and its HA topology running
(``tools/minicloud/minicloud up`` then ``tools/minicloud/minicloud ha up``,
with the same ``PLACEMENT_EXT_MINICLOUD_*`` environment), and the
machine's MariaDB (``PLACEMENT_EXT_TEST_MYSQL_URL``).

* Lease creates per second, p50 and p95: the same hosts and 5,000
  existing reservations (bench_lease_create.py's data set) loaded into a
  database on the machine's single MariaDB and into one on the Galera
  cluster, with a real Placement (openstack-placement over HTTP, its own
  MariaDB database) holding the hosts (the first create fills the kept
  views, reading the pool in one call). One
  manager on the single MariaDB node, with THREADS client threads,
  against two managers on two Galera nodes with THREADS / 2 threads
  each, in the same run; every lease asks 2 instances of 2 vCPU for 3
  days. Slots taken twice are counted (must be 0).
* Adoption: an operation claimed by controller 1's conductor (fresh
  heartbeat), that conductor SIGKILLed; seconds until controller 2's
  conductor owns it (the HA services' ``[conductor]
  operation_takeover_timeout`` is 30 s), and until it ended; then the
  operations still running in the HA database (stuck, must be 0).
* Recovery: the RabbitMQ node holding the leader of the managers' queue
  SIGKILLed, seconds until an RPC call to the managers is answered again;
  controller 1's Galera node SIGKILLed, seconds until a write through
  controller 1's database address (HAProxy) commits again; then seconds
  until each killed node is back in its cluster.

    .venv/bin/python benchmarks/bench_ha.py [--sizes 1000 10000]
        [--creates 40] [--threads 8] [--no-faults]

Writes benchmarks/results/ha.json and ha.rst.
"""

import argparse
import concurrent.futures
import datetime
import json
import logging
import os
import platform
import signal
import statistics
import sys
import time
import types
import uuid

import bench_lease_create as lc  # benchmarks/, a sibling
import report as report_page
import sqlalchemy as sa

from placement_ext import configuration
from placement_ext import context as pe_context
from placement_ext import rpc
from placement_ext.db import models
from placement_ext.drivers import placement as placement_driver
from placement_ext.manager import reservations
from placement_ext.manager import rpcapi as manager_rpcapi
from placement_ext.objects import lease as lease_obj
from placement_ext.objects import operation as op_obj
from placement_ext.tests import backends
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import nova as fake_nova
from placement_ext.tests.fixtures import placement as placement_fixture
from placement_ext.tests.functional.ha import fixture as ha_fixture

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, 'results')
REQUEST = {'amount': 2, 'vcpus': 2, 'memory_mb': 4096, 'disk_gb': 20}
# a fault's effect is waited for at most this long
FAULT_WAIT = 300


# -- lease creates ------------------------------------------------------------

def _request(data: dict) -> dict:
    return {**data['request'], **REQUEST}


def _manager(db, server, aggregate: str) -> reservations.Reservations:
    nova = fake_nova.FakeNova()
    nova.aggregates[lc.SETTINGS.freepool] = types.SimpleNamespace(
        name=lc.SETTINGS.freepool, hosts=[], metadata={}, uuid=aggregate)
    return reservations.Reservations(
        db, nova, placement_driver.PlacementDriver(server.client()),
        lc.SETTINGS)


class _Retries(logging.Handler):
    """Counts the retried transactions (db.api warns once for each)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 'transaction failed' in record.getMessage()


def _run_creates(managers: list, threads: int, creates: int,
                 request: dict, prefix: str) -> dict:
    """``creates`` lease creates spread over the managers, ``threads``
    client threads in all; latencies, rate, refusals."""
    def one(n: int) -> tuple[float, str | None]:
        manager = managers[n % len(managers)]
        began = time.perf_counter()
        try:
            manager.leases.create(lc.lease_body(f'{prefix}-{n}', request,
                                                None), lc.PROJECT, 'u')
            error = None
        except Exception as exc:   # noqa: BLE001 - counted and reported
            error = repr(exc)[:200]
        return time.perf_counter() - began, error

    retried = _Retries()
    logging.getLogger('placement_ext.db.api').addHandler(retried)
    began = time.perf_counter()
    try:
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            results = list(pool.map(one, range(creates)))
    finally:
        logging.getLogger('placement_ext.db.api').removeHandler(retried)
    wall = time.perf_counter() - began
    latencies = sorted(seconds for seconds, _error in results)
    errors = [error for _s, error in results if error]
    return {'creates': creates, 'failed': len(errors),
            'transactions_retried': retried.count,
            'errors': errors[:5], 'threads': threads,
            'managers': len(managers), 'wall_s': round(wall, 2),
            'per_second': round(creates / wall, 2),
            'p50_s': round(statistics.median(latencies), 3),
            'p95_s': round(latencies[int(0.95 * (len(latencies) - 1))], 3)}


def _overbooked(db, data: dict, period: tuple) -> int:
    """(host, instant) pairs within the new leases' period, on hosts where
    the benchmark's leases took slots, where the live reservations (old
    and new) need more VCPU, MEMORY_MB or DISK_GB than the host's
    Placement inventory gives (what ``lc.load_placement`` loaded): 0, or
    slots were overbooked. (The data set's own rows are random, not
    decided: hosts they alone overfill are not ours to count.)"""
    sizes = {i + 1: (vcpus * 4, memory - 512, disk)
             for i, (_n, vcpus, memory, disk) in enumerate(data['hosts'])}
    held = lease_obj.holdings(db, None, period)
    with db.reader() as session:
        new = set(session.scalars(
            sa.select(models.Reservation.id)
            .join(models.Lease)
            .where(models.Lease.name.not_like('old-%'))))
    by_host: dict[int, list] = {}
    for h in held:
        by_host.setdefault(h.host_id, []).append(h)
    over = 0
    for host_id, holdings in by_host.items():
        if not any(h.reservation_id in new for h in holdings):
            continue      # the data set's own rows, no decision of ours
        instants = {max(h.start, period[0]) for h in holdings} | {period[0]}
        for t in instants:
            live = [h for h in holdings if h.start <= t < h.end]
            need = (sum(h.vcpus * h.slots for h in live),
                    sum(h.memory_mb * h.slots for h in live),
                    sum(h.disk_gb * h.slots for h in live))
            if any(n > cap for n, cap in zip(need, sizes[host_id],
                                             strict=True)):
                over += 1
    return over


def creates(hosts: int, count: int, threads: int, status: dict) -> dict:
    t0 = models.utcnow()
    data = lc.dataset(hosts, t0)
    request = _request(data)
    period = (datetime.datetime.fromisoformat(request['start_date']),
              datetime.datetime.fromisoformat(request['end_date']))
    aggregate = str(uuid.uuid4())
    out = {'hosts': hosts}
    node0 = sa.make_url(status['galera_urls'][0]).set(database=None)
    with placement_fixture.PlacementServer('mysql') as server, \
            db_fixture.Database(backends.MYSQL_URL) as single, \
            db_fixture.Database(node0.render_as_string(
                hide_password=False)) as galera:
        server.client().request('GET', '/', what='warm-up')
        uuids = lc.load_placement(server.connection, data['hosts'],
                                  aggregate)
        for database in (single, galera):
            lc.load_ours(database.db, data, uuids)
        name = sa.make_url(galera.url).database
        # causal reads on the second node (as the HA services have them):
        # it waits until it applied what node 0 committed
        node1 = ha_fixture.new_database(sa.make_url(
            status['galera_urls'][1]).set(database=name).render_as_string(
                hide_password=False))
        try:
            out['one MariaDB node, one manager'] = _run_creates(
                [_manager(single.db, server, aggregate)], threads, count,
                request, 'single')
            out['one MariaDB node, one manager']['overbooked'] = \
                _overbooked(single.db, data, period)
            out['Galera, two managers on two nodes'] = _run_creates(
                [_manager(galera.db, server, aggregate),
                 _manager(node1, server, aggregate)], threads, count,
                request, 'galera')
            out['Galera, two managers on two nodes']['overbooked'] = \
                _overbooked(galera.db, data, period)
        finally:
            node1.dispose()
    return out


# -- faults -------------------------------------------------------------------

def _wait(check, what: str) -> float:
    began = time.monotonic()
    while time.monotonic() - began < FAULT_WAIT:
        try:
            if check():
                return round(time.monotonic() - began, 1)
        except Exception:   # noqa: BLE001, S110 - still recovering
            pass
        time.sleep(0.2)
    raise RuntimeError(f'{what}: not within {FAULT_WAIT} s')


def adoption(s, status: dict) -> dict:
    """Seconds until the killed conductor's operation is adopted, and
    until it ended (its state); then the operations of the HA database
    still running (stuck: must be 0)."""
    db = ha_fixture.new_database(status['galera_urls'][0])
    try:
        op = op_obj.create(db, vnf_instance_id=str(uuid.uuid4()),
                           operation='INSTANTIATE', params={},
                           placement={})
        assert op_obj.claim(db, op.id, 'controller1', models.utcnow())
        proc = ha_fixture.procs.Proc(s.path(), 'ha-conductor1')
        proc.signal(signal.SIGKILL)
        began = time.monotonic()
        try:
            adopted = _wait(lambda: op_obj.get(db, op.id).owner ==
                            'controller2' or op_obj.get(db, op.id).state
                            not in op_obj.RUNNABLE_STATES, 'adoption')
            _wait(lambda: op_obj.get(db, op.id).state not in
                  op_obj.RUNNABLE_STATES, 'adopted operation ended')
            return {'adoption_s': adopted,
                    'ended_s': round(time.monotonic() - began, 1),
                    'end_state': op_obj.get(db, op.id).state,
                    'stuck': len(op_obj.list_operations(
                        db, op_obj.RUNNABLE_STATES))}
        finally:
            ha_fixture.ha.start_service(s, 'ha-conductor1')
    finally:
        db.dispose()


def rabbit_recovery(s, status: dict) -> dict:
    conf = configuration.load_config([], default_config_files=[
        status['config_files'][0]])
    transport = rpc.get_transport(conf)
    api = manager_rpcapi.ManagerAPI(conf, transport)
    context = pe_context.get_admin_context()
    try:
        api.list_hosts(context)
        leader = ha_fixture.queue_leader(s, 'placement_ext_manager')
        pid = ha_fixture.procs.Proc(s.path(), f'ha-rabbit{leader}').pid
        os.kill(pid, signal.SIGKILL)
        answered = _wait(lambda: api.client.prepare(timeout=5).call(
            context, 'list_hosts') is not None, 'RPC after a RabbitMQ kill')
        rejoined = ha_fixture.restart_rabbit_node(s, leader)
        return {'rpc_answered_s': answered, 'node_rejoined_s':
                round(rejoined, 1)}
    finally:
        transport.cleanup()


def galera_recovery(s, status: dict) -> dict:
    db = ha_fixture.new_database(sa.make_url(
        status['controller_db_urls'][0]).render_as_string(
            hide_password=False))
    try:
        op_obj.heartbeat(db, 'bench')
        os.kill(ha_fixture.galera_pid(0), signal.SIGKILL)
        committed = _wait(lambda: op_obj.heartbeat(db, 'bench') >= 0,
                          'a write after a Galera kill')
        rejoined = ha_fixture.restart_galera_node(s, 0)
        return {'write_committed_s': committed,
                'node_rejoined_s': round(rejoined, 1)}
    finally:
        db.dispose()


# -- report -------------------------------------------------------------------

def _last_partitions() -> dict | None:
    try:
        with open(os.path.join(RESULTS, 'ha.json')) as f:
            return json.load(f).get('partitions')
    except FileNotFoundError:
        return None


def write_report(report: dict) -> None:
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, 'ha.json'), 'w') as f:
        json.dump(report, f, indent=2)
        f.write('\n')
    rows = []
    for run in report['creates']:
        for setup, r in run.items():
            if setup == 'hosts':
                continue
            rows.append([f"{run['hosts']:,}", setup, str(r['managers']),
                         str(r['threads']), str(r['creates']),
                         str(r['failed']), str(r['transactions_retried']),
                         str(r['per_second']), str(r['p50_s']),
                         str(r['p95_s']), str(r['overbooked'])])
    table = report_page.rst_table(
        ['hosts', 'database', 'managers', 'threads', 'creates', 'failed',
         'retried', 'creates/s', 'p50 s', 'p95 s', 'overbooked'], rows)
    paragraphs = [
        f"Generated by ``benchmarks/bench_ha.py`` on {report['date']}: "
        f"Python {report['python']}, {report['cpus']} CPUs (every database "
        f"node, RabbitMQ node and service on the same machine). "
        f"{report_page.load_sentence(*report.get('load', (None, None)))} "
        f"{lc.RESERVATIONS:,} existing reservations; "
        f"each lease asks {REQUEST['amount']} instances of "
        f"{REQUEST['vcpus']} vCPU for 3 days. overbooked: (host, instant) "
        f"pairs in the new leases' period where the reservations on a host "
        f"need more than its inventory (must be 0). retried: transactions "
        f"run again after a deadlock (certification conflict). Placement "
        f"is the real service (HTTP, MariaDB); the first create of each run "
        f"fills the kept views (one call for the pool). The "
        f"Galera run writes through two nodes at once: its conflicts "
        f"(certification "
        f"failures) are retried whole.",
        table]
    faults = report.get('faults')
    if faults:
        fault_rows = [
            ['conductor SIGKILLed: operation adopted by the other',
             str(faults['adoption']['adoption_s'])],
            [f"... adopted operation ended "
             f"({faults['adoption']['end_state']})",
             str(faults['adoption']['ended_s'])],
            ['RabbitMQ queue-leader node SIGKILLed: RPC answered again',
             str(faults['rabbit']['rpc_answered_s'])],
            ['... killed RabbitMQ node restarted and back in the cluster',
             str(faults['rabbit']['node_rejoined_s'])],
            ['Galera node SIGKILLed: write through its HAProxy committed',
             str(faults['galera']['write_committed_s'])],
            ['... killed Galera node restarted and Synced',
             str(faults['galera']['node_rejoined_s'])]]
        fault_table = report_page.rst_table(['fault', 'seconds'],
                                            fault_rows)
        paragraphs += [
            'Faults on the HA topology (``minicloud ha``: services with '
            '``[conductor] operation_takeover_timeout = 30``, HAProxy '
            'checks every second, two failures mark a node down):',
            fault_table,
            f"Operations still running afterwards (stuck): "
            f"{faults['adoption']['stuck']}."]
    else:
        fault_table = ''
    paragraphs.append(f"Total run: {report['total_seconds']} s.")
    partition_paragraphs, partition_verbatim = _partitions(
        report.get('partitions'))
    report_page.write_rst(os.path.join(RESULTS, 'ha.rst'),
                          'Lease creates and faults on the HA topology',
                          paragraphs + partition_paragraphs,
                          verbatim=(table, fault_table, *partition_verbatim))
    print(table)
    print(fault_table)


# the partition cases (bench_partitions.py): case, its "out" and "back"
# measures, what each is, and its "retried" measure
PARTITION_CASES = [
    ('galera_node_partitioned', 'Galera node cut from the other two',
     'seconds_to_leave_primary', 'seconds_to_resync', 'db_retries_logged'),
    ('galera_node_cut_one_way', "Galera node's packets to the others lost",
     'seconds_to_leave_primary', 'seconds_to_resync', 'db_retries_logged'),
    ('rabbit_leader_partitioned',
     'RabbitMQ queue-leader node cut from the other two',
     'seconds_to_pause', 'seconds_to_rejoin', 'db_retries_logged'),
    ('rabbit_leader_cut_one_way',
     "RabbitMQ queue-leader node's packets to the others lost",
     'seconds_to_pause', 'seconds_to_rejoin', 'db_retries_logged'),
    ('controller_cut_from_database',
     "Controller 2's HAProxy cut from every Galera node (30 s)",
     'seconds_to_cut', 'seconds_to_reconnect', 'db_retries_logged'),
    ('conductor_cut_from_database',
     "Operation's conductor cut from the database (out: adopted)",
     'seconds_to_adoption', 'seconds_heal_to_end', 'db_retries_logged'),
    # test_packet_drops.py: our own services' packets dropped (nftables)
    ('controller_dropped_from_rabbitmq',
     "Controller 2's packets to and from RabbitMQ dropped (40 s)",
     'seconds_cut', 'seconds_to_answer', 'reconnects_retried'),
    ('controller_deaf_to_rabbitmq',
     "RabbitMQ's packets to controller 2 dropped (40 s, one way)",
     'seconds_cut', 'seconds_to_answer', 'reconnects_retried'),
    ('conductor_dropped_from_heat',
     "Reselecting conductor's packets to and from Heat dropped (75 s)",
     'seconds_cut_to_end', 'seconds_heal_to_end', 'heat_failures_logged')]


def _partitions(run: dict | None) -> tuple[list[str], tuple[str, ...]]:
    """The partition section of ha.rst: its paragraphs, and those of them
    written as they are (heading, table)."""
    if not run:
        return [], ()
    verdict = 'all passed' if run['passed'] else 'NOT all passed'
    rows = []
    for case, what, out, back, retried in PARTITION_CASES:
        r = run['cases'].get(case)
        if r is None:
            rows.append([what] + ['(failed or not run)'] + [''] * 8)
            continue
        rows.append([what] + [str(r.get(key, '-')) for key in (
            out, back, 'seconds_heal_to_last_answer', 'requests', 'created',
            'answer_lost', retried, 'overbooked', 'lost')])
    table = report_page.rst_table(
        ['partition', 'out s', 'back s', 'heal to last answer s',
         'requests', 'created', 'answer lost', 'retried', 'overbooked',
         'lost'], rows)
    heading = 'Partitions\n' + '-' * len('Partitions')
    return [
        heading,
        f"Generated by "
        f"{run.get('source', '``benchmarks/bench_partitions.py``')} on "
        f"{run['date']} "
        f"(the cases of ``placement_ext/tests/functional/ha/"
        f"test_partitions.py`` and ``test_packet_drops.py``, {verdict}). "
        f"{report_page.load_sentence(*run['load'])} Each Galera and "
        f"RabbitMQ node runs in its own network namespace; a cut drops "
        f"the node's packets to the others silently (one way: only its "
        f"own). out: seconds from the cut until the node left the primary "
        f"component (Galera, evs.suspect_timeout 5 s) or the majority saw "
        f"two running nodes (RabbitMQ, net_ticktime 10 s, pause_minority). "
        f"back: seconds from the heal until the node is Synced in a "
        f"cluster of three, or the cluster runs three nodes again. "
        f"retried: transactions run again (deadlocks, and writes through "
        f"the cut node refused until the heal). answer lost: a request "
        f"whose answer the cut lost (its lease then exists once). "
        f"overbooked and lost are asserted 0 by the cases. The conductor "
        f"case drives one operation (not requests): out is the time until "
        f"the other conductor adopted it, back until it ended COMPLETED "
        f"after the heal. The last three rows "
        f"(``test_packet_drops.py``) drop our own services' packets "
        f"(nftables, each service in its own cgroup): out is how long the "
        f"cut lasted (Heat: from the cut until the operation ended), back "
        f"the seconds from the heal until controller 2 answered RPC "
        f"again, or until the operation ended (0: it ended while cut, "
        f"FAILED_TEMP with its cause); retried "
        f"counts the cut service's reconnect attempts to RabbitMQ, or its "
        f"Heat requests that failed and were made again. Total run: "
        f"{run['total_seconds']} s.",
        table], (heading, table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', type=int, nargs='+', default=[1000])
    parser.add_argument('--creates', type=int, default=40)
    parser.add_argument('--threads', type=int, default=8)
    parser.add_argument('--no-faults', action='store_true')
    args = parser.parse_args(argv)
    status = ha_fixture.ha_status()
    if not status.get('healthy'):
        print('bench_ha: run "tools/minicloud/minicloud ha up" first',
              file=sys.stderr)
        return 1
    s = ha_fixture.settings()
    began = time.monotonic()
    load_began = report_page.load_now()
    report = {'date': datetime.date.today().isoformat(),
              'python': platform.python_version(), 'cpus': os.cpu_count(),
              'creates': [creates(size, args.creates, args.threads, status)
                          for size in args.sizes]}
    if not args.no_faults:
        report['faults'] = {'adoption': adoption(s, status),
                            'rabbit': rabbit_recovery(s, status),
                            'galera': galera_recovery(s, status)}
    report['total_seconds'] = round(time.monotonic() - began)
    report['load'] = [load_began, report_page.load_now()]
    report['partitions'] = _last_partitions()     # bench_partitions.py's
    write_report(report)
    return 0


if __name__ == '__main__':
    sys.exit(main())
