"""Upstream Blazar's answer to a lease create, timed on its own schema.

Runs in a virtualenv holding ``blazar==18.0.0`` (not ours: Blazar pins
its own libraries), made by ``benchmarks/bench_lease_create.py`` or by
hand::

    python3 -m venv .blazar-venv
    .blazar-venv/bin/pip install blazar==18.0.0
    .blazar-venv/bin/python benchmarks/blazar_pickup.py DATASET.json DB_URL

DATASET.json is written by ``bench_lease_create.py`` (the hosts and
reservations it loads into our database, so both answer the same
question). The tables are made by Blazar's ``setup_db()`` (on MariaDB
InnoDB indexes every foreign key by itself; on SQLite the same indexes
are added), filled with bulk inserts, then the instance plugin's
``pickup_hosts`` is timed: the capacity query and host choice Blazar's
``reserve_resource`` runs before writing anything (a lease create runs
it twice: once for enforcement, once to reserve). Nova and Placement
are never called by it. Prints one JSON line: seconds per call and SQL
statements per call.
"""

import datetime
import json
import statistics
import sys
import time
import uuid

import sqlalchemy as sa
from oslo_config import cfg

FK_INDEXES = (('computehost_allocations', 'compute_host_id'),
              ('computehost_allocations', 'reservation_id'),
              ('reservations', 'lease_id'),
              ('instance_reservations', 'reservation_id'),
              ('events', 'lease_id'))


def _configure(url: str) -> None:
    # importing them registers Blazar's options
    from blazar.db.sqlalchemy import api  # noqa: F401
    from blazar.plugins.instances import instance_plugin  # noqa: F401
    from blazar.plugins.oshosts import host_plugin  # noqa: F401
    cfg.CONF([], project='blazar')
    cfg.CONF.set_override('connection', url, 'database')


def _load(dataset: dict) -> None:
    from blazar.db.sqlalchemy import api as sql_api
    from blazar.db.sqlalchemy import facade_wrapper
    from blazar.db.sqlalchemy import models
    sql_api.setup_db()
    now = datetime.datetime(2020, 1, 1)
    with facade_wrapper.session_for_write() as session:
        engine = session.get_bind()
        if engine.dialect.name == 'sqlite':
            with engine.begin() as conn:
                for table, column in FK_INDEXES:
                    conn.execute(sa.text(
                        f'CREATE INDEX ix_{table}_{column} ON {table} '
                        f'({column})'))
    t = {name: getattr(models, name).__table__ for name in (
        'ComputeHost', 'Lease', 'Reservation', 'InstanceReservations',
        'ComputeHostAllocation', 'Event')}
    hosts = [dict(id=str(i + 1), vcpus=v, cpu_info='{}',
                  hypervisor_type='QEMU', hypervisor_version=1,
                  hypervisor_hostname=name, service_name=name,
                  memory_mb=m, local_gb=d, availability_zone='nova',
                  trust_id='t', reservable=True, created_at=now)
             for i, (name, v, m, d) in enumerate(dataset['hosts'])]
    leases, reservations, instances, allocations, events = [], [], [], [], []
    for start, end, vcpus, memory, disk, slots in dataset['reservations']:
        lease_id, res_id = str(uuid.uuid4()), str(uuid.uuid4())
        start = datetime.datetime.fromisoformat(start)
        end = datetime.datetime.fromisoformat(end)
        leases.append(dict(id=lease_id, name=lease_id, user_id='u',
                           project_id='p', start_date=start, end_date=end,
                           trust_id='t', status='PENDING', degraded=False,
                           created_at=now))
        reservations.append(dict(id=res_id, lease_id=lease_id,
                                 resource_id=res_id,
                                 resource_type='virtual:instance',
                                 status='pending', created_at=now))
        instances.append(dict(id=res_id, reservation_id=res_id, vcpus=vcpus,
                              memory_mb=memory, disk_gb=disk,
                              amount=sum(slots.values()), affinity=None,
                              resource_properties='', created_at=now))
        allocations.extend(
            dict(id=str(uuid.uuid4()), compute_host_id=str(int(h) + 1),
                 reservation_id=res_id, created_at=now)
            for h, n in slots.items() for _ in range(n))
        events.extend(dict(id=str(uuid.uuid4()), lease_id=lease_id,
                           event_type=kind, time=when, status='UNDONE',
                           created_at=now)
                      for kind, when in (('start_lease', start),
                                         ('end_lease', end)))
    with facade_wrapper.session_for_write() as session:
        for name, rows in (('ComputeHost', hosts), ('Lease', leases),
                           ('Reservation', reservations),
                           ('InstanceReservations', instances),
                           ('ComputeHostAllocation', allocations),
                           ('Event', events)):
            session.execute(t[name].insert(), rows)


def _time_pickup(request: dict, repeat: int) -> dict:
    from blazar.db.sqlalchemy import facade_wrapper
    from blazar.plugins.instances import instance_plugin
    plugin = instance_plugin.VirtualInstancePlugin()
    values = dict(request, resource_properties='',
                  start_date=datetime.datetime.fromisoformat(
                      request['start_date']),
                  end_date=datetime.datetime.fromisoformat(
                      request['end_date']))
    statements = []
    with facade_wrapper.session_for_read() as session:
        engine = session.get_bind().engine

    def count(*_args):
        statements[-1] += 1
    sa.event.listen(engine, 'before_cursor_execute', count)
    seconds = []
    for _ in range(repeat):
        statements.append(0)
        began = time.perf_counter()
        added = plugin.pickup_hosts(None, values)['added']
        seconds.append(time.perf_counter() - began)
    assert len(added) == request['amount'], len(added)
    return {'median_s': round(statistics.median(seconds), 2),
            'min_s': round(min(seconds), 2),
            'statements': statements[0], 'hosts_used': len(set(added))}


def main(argv: list[str]) -> int:
    dataset_path, url = argv[:2]
    repeat = int(argv[2]) if len(argv) > 2 else 3
    with open(dataset_path) as f:
        dataset = json.load(f)
    _configure(url)
    began = time.perf_counter()
    _load(dataset)
    result = _time_pickup(dataset['request'], repeat)
    result['load_s'] = round(time.perf_counter() - began, 1)
    from importlib import metadata
    result['blazar_version'] = metadata.version('blazar')
    print(json.dumps(result))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
