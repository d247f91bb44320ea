"""The HA topology of the embedded cloud (``minicloud ha``) for tests.

:func:`use_ha` brings it up once per test process (on the running cloud,
brought up first if needed) and returns ``minicloud ha status --json``:
the Galera nodes' URLs, the controllers' database addresses (HAProxy),
the RabbitMQ ``transport_url``, pids and ports. Without it the test is
skipped, or fails in CI, like the other cloud tests.

:class:`GaleraDatabase` is a fresh, migrated placement_ext database on the
cluster with one :class:`placement_ext.db.api.Database` per node (or per
controller address), as managers on different controllers have.
:func:`kill_galera_node` SIGKILLs one node and restarts it at cleanup,
waiting until the cluster has its three nodes again.
"""

import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time
import unittest

import fixtures
import sqlalchemy as sa

from placement_ext import conf as pe_conf
from placement_ext import polling
from placement_ext.db import api as db_api
from placement_ext.tests import backends
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.functional.cloud import fixture as cloud_fixture

HA_UP_TIMEOUT = 900
# a replacement Galera node rejoins (IST) and a RabbitMQ node restarts
# well within this on a loaded machine
REJOIN_TIMEOUT = 240
_STATE: dict = {}

sys.path.insert(0, str(cloud_fixture.REPO / 'tools'))
from minicloud import firewall  # noqa: E402
from minicloud import ha  # noqa: E402
from minicloud import ha_addons  # noqa: E402
from minicloud import netns  # noqa: E402
from minicloud import procs  # noqa: E402
from minicloud import settings as mc_settings  # noqa: E402


def ha_status() -> dict:
    result = cloud_fixture.run_minicloud('ha', 'status', '--json')
    return json.loads(result.stdout)


def ensure_ha(addons: tuple[str, ...] = ()) -> dict:
    """Up (with ``addons``: ``minicloud ha up --addons``); its status."""
    key = ','.join(sorted(addons))
    if key in _STATE:
        raise cloud_fixture.CloudUnavailable(_STATE[key])
    try:
        cloud_fixture.ensure_cloud()
        up = cloud_fixture.run_minicloud('ha', 'up', '--addons', key,
                                         timeout=HA_UP_TIMEOUT)
        if up.returncode != 0:
            tail = '\n'.join((up.stdout + up.stderr).splitlines()[-30:])
            raise cloud_fixture.CloudUnavailable(
                f'minicloud ha up --addons "{key}" failed:\n{tail}')
        return ha_status()
    except (cloud_fixture.CloudUnavailable, OSError, ValueError,
            subprocess.TimeoutExpired) as exc:
        _STATE[key] = str(exc)
        raise cloud_fixture.CloudUnavailable(str(exc))


def use_ha(test: unittest.TestCase, addons: tuple[str, ...] = ()) -> dict:
    """The HA topology's status (with the HA pairs of ``addons``:
    blazar, tacker), or skip (fail in CI) without one."""
    try:
        return ensure_ha(addons)
    except cloud_fixture.CloudUnavailable as exc:
        reason = f'no HA topology on the embedded cloud: {exc}'
        if backends.in_ci():
            test.fail(reason)
        test.skipTest(reason)


def settings() -> mc_settings.Settings:
    return mc_settings.current()


def new_database(url: str, reconnect: bool = False) -> db_api.Database:
    """A Database on ``url`` (oslo.db's retry knobs as the HA topology's
    services have them)."""
    conf = pe_conf.new_conf([], default_config_files=[])
    conf.set_override('connection', url, 'database')
    conf.set_override('db_retry_interval', 1, 'database')
    conf.set_override('db_max_retry_interval', 2, 'database')
    conf.set_override('use_db_reconnect', reconnect, 'database')
    # causal reads: a node answers once it applied what the others
    # committed before (managers write through different nodes)
    conf.set_override('mysql_wsrep_sync_wait', 1, 'database')
    return db_api.Database(conf)


class GaleraDatabase(fixtures.Fixture):
    """A migrated database on the cluster (created through node 0).

    ``database``: the :class:`placement_ext.tests.fixtures.database.
    Database` (its ``db`` on node 0); :meth:`on` gives more Databases on
    the same schema through another URL (another node, a controller's
    HAProxy address).
    """

    def __init__(self, status: dict) -> None:
        super().__init__()
        self.status = status

    def _setUp(self) -> None:
        server = sa.make_url(self.status['galera_urls'][0]).set(
            database=None)
        self.database = self.useFixture(db_fixture.Database(
            server.render_as_string(hide_password=False)))
        self.name = sa.make_url(self.database.url).database

    def on(self, url: str, **kwargs: object) -> db_api.Database:
        url = sa.make_url(url).set(database=self.name)
        database = new_database(url.render_as_string(hide_password=False),
                                **kwargs)
        self.addCleanup(database.dispose)
        return database


def galera_pid(node: int) -> int | None:
    return procs.Proc(settings().path(), f'ha-galera{node}').pid


def kill_galera_node(test: unittest.TestCase, node: int) -> None:
    """SIGKILL Galera node ``node``; restarted (and waited for) at
    cleanup, so the next test has three nodes again."""
    s = settings()
    pid = galera_pid(node)
    test.assertIsNotNone(pid, f'Galera node {node} is not running')
    os.kill(pid, signal.SIGKILL)
    test.addCleanup(restart_galera_node, s, node)


def restart_galera_node(s: mc_settings.Settings, node: int) -> float:
    """Start a killed node again; seconds until it is Synced."""
    start = time.monotonic()
    proc = procs.Proc(s.path(), f'ha-galera{node}')
    if proc.alive():           # restarted already
        ha.wait_synced(s, node, size=ha.NODES, timeout=REJOIN_TIMEOUT)
        return 0.0
    _wait_gone(proc)
    ha.start_galera_node(s, node)
    ha.wait_synced(s, node, size=ha.NODES, timeout=REJOIN_TIMEOUT)
    return time.monotonic() - start


def restart_rabbit_node(s: mc_settings.Settings, node: int) -> float:
    """Start a killed RabbitMQ node again (it rejoins its cluster);
    seconds until the cluster runs its three nodes."""
    start = time.monotonic()
    proc = procs.Proc(s.path(), f'ha-rabbit{node}')
    proc.stop(timeout=10)            # what the VM left (epmd keeps its name)
    ha.start_rabbit_node(s, node)
    ha.wait_rabbit(s, node, timeout=REJOIN_TIMEOUT)
    if polling.until(
            lambda: True if len(ha.running_rabbit_nodes(s)) >= ha.NODES
            else None,
            timeout=start + REJOIN_TIMEOUT - time.monotonic(),
            interval=1) is None:
        raise AssertionError(f'RabbitMQ node {node} did not rejoin')
    return time.monotonic() - start


def queue_leader(s: mc_settings.Settings, queue: str, node: int = 0) -> int:
    """The node that holds the leader of quorum queue ``queue`` (as node
    ``node`` sees it)."""
    result = ha.rabbitmqctl(s, node, 'list_queues', 'name', 'leader',
                            '--formatter', 'json')
    for row in json.loads(result.stdout):
        if row['name'] == queue:
            return int(row['leader'].split('@')[0][len('ha'):])
    raise AssertionError(f'no quorum queue {queue}: {result.stdout}')


def kill_service(test: unittest.TestCase, name: str) -> None:
    """SIGKILL one of the HA services (``manager1``, ``conductor2``,
    ``blazar-manager1``, ``tacker-conductor2``), its whole process
    group; started again at cleanup."""
    s = settings()
    proc = procs.Proc(s.path(), f'ha-{name}')
    test.assertIsNotNone(proc.pid, f'{name} is not running')
    proc.signal(signal.SIGKILL)
    test.addCleanup(start_service, s, name)


def start_service(s: mc_settings.Settings, name: str) -> None:
    """Start one HA service again once what the kill left is gone
    (nothing if it runs)."""
    proc = procs.Proc(s.path(), f'ha-{name}')
    if proc.alive():
        return
    _wait_gone(proc)
    if any(svc.name == f'ha-{name}' for svc in ha.our_services(s)):
        ha.start_service(s, f'ha-{name}')
    else:
        ha_addons.start_service(s, f'ha-{name}')


def _wait_gone(proc: procs.Proc) -> None:
    """Until what a kill left of ``proc``'s group is gone (30 s at most:
    then it is started anyway, as before)."""
    polling.until(lambda: None if proc.members() else True, timeout=30,
                  interval=0.2)


def _tcp_connections(pids: list[int]) -> list[tuple[int, int]]:
    """(local port, remote port) of the IPv4 TCP sockets of ``pids``."""
    inodes = set()
    for pid in pids:
        fds = pathlib.Path(f'/proc/{pid}/fd')
        try:
            links = [os.readlink(fd) for fd in fds.iterdir()]
        except OSError:
            continue             # gone, or an fd closed meanwhile
        inodes.update(link[len('socket:['):-1] for link in links
                      if link.startswith('socket:['))
    out = []
    for line in pathlib.Path('/proc/net/tcp').read_text().splitlines()[1:]:
        fields = line.split()
        if fields[9] in inodes:
            out.append((int(fields[1].split(':')[1], 16),
                        int(fields[2].split(':')[1], 16)))
    return out


def cut_from_rabbit(name: str, seconds: float,
                    in_effect: threading.Event | None = None) -> int:
    """Cut HA service ``name`` (``conductor1``) off from RabbitMQ for
    ``seconds``: every connection it has or opens to a RabbitMQ node is
    closed (``ss -K``, a reset on both ends) every 0.1 s; its database
    connections stay.

    :param in_effect: set once a round closed the connections it had
        (its queue consumers are gone).
    :returns: how many connections were closed."""
    s = settings()
    proc = procs.Proc(s.path(), f'ha-{name}')
    rabbit = {port for key, port in ha.ports(s).items()
              if key.startswith('rabbit') and 'dist' not in key}
    closed = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for local, remote in _tcp_connections(proc.members()):
            if remote in rabbit:
                # the nodes are on 127.0.0.1 or their namespaces' addresses
                subprocess.run(['ss', '-K', '-t', f'sport = :{local}'],
                               capture_output=True, timeout=10)
                closed += 1
        if closed and in_effect is not None:
            in_effect.set()
        # the cut itself: a round every 0.1 s for ``seconds``
        time.sleep(0.1)
    return closed


# -- partitions (each node in its own network namespace: minicloud.netns)

def links(test: unittest.TestCase) -> 'netns.Links':
    """The nodes' links, or skip: without namespaces (not root, or
    ``PLACEMENT_EXT_MINICLOUD_HA_NETNS=0``) no link can be cut, a
    platform reason."""
    found = netns.load(settings())
    if found is None:
        test.skipTest('platform: the HA topology runs without network '
                      'namespaces (needs root and "ip netns"): no link to '
                      'cut')
    return found


def partition(test: unittest.TestCase, side: list[str],
              other: list[str], symmetric: bool = True) -> None:
    """Cut ``side`` (``galera1``, ``rabbit2``) from ``other`` (only
    ``side``'s packets to ``other`` when not ``symmetric``); healed at
    cleanup if the test did not heal it."""
    found = links(test)
    test.addCleanup(netns.heal, found)
    if symmetric:
        netns.partition(found, side, other)
    else:
        for member in side:
            netns.cut(found, member, other)


def heal() -> float:
    """Heal every cut (links and packet drops); the monotonic time of
    the heal."""
    s = settings()
    found = netns.load(s)
    if found is not None:
        netns.heal(found)
    firewall.heal(s)
    return time.monotonic()


def cut_services(test: unittest.TestCase, names: list[str],
                 endpoints: list[tuple[str, int]],
                 direction: str = 'both') -> None:
    """Drop, silently, the packets between HA services ``names``
    (``manager2``) and ``endpoints`` (``firewall.cut``: ``both`` ways,
    ``out`` what they send, ``in`` what they are sent); healed at
    cleanup if the test did not heal. Skipped (a platform reason) where
    the services do not run in cgroups of their own."""
    s = settings()
    for name in names:
        pid = procs.Proc(s.path(), f'ha-{name}').pid
        test.assertIsNotNone(pid, f'{name} is not running')
        if not firewall.in_own_cgroup(s, f'ha-{name}', pid):
            test.skipTest(f'platform: {name} runs in no cgroup of its own '
                          '(needs root, nft and cgroup v2): its packets '
                          'cannot be dropped alone')
    test.addCleanup(firewall.heal, s)
    firewall.cut(s, [f'ha-{name}' for name in names], endpoints, direction)


def rabbit_endpoints() -> list[tuple[str, int]]:
    """The RabbitMQ nodes' AMQP addresses, as our services reach them."""
    s = settings()
    p = ha.ports(s)
    return [(netns.host(s, f'rabbit{i}'), p[f'rabbit{i}'])
            for i in range(ha.NODES)]


def heat_endpoints() -> list[tuple[str, int]]:
    """heat-api's address, as the Keystone catalog gives it."""
    return [('127.0.0.1', settings().ports['heat'])]


def galera_status(node: int) -> dict[str, str]:
    return ha.galera_state(settings(), node)


def wait_galera(node: int, timeout: float, **expected: str) -> float:
    """Wait until node ``node``'s wsrep status has ``expected``
    (``wsrep_cluster_status='non-Primary'``); the seconds it took."""
    start = time.monotonic()
    seen = polling.until(
        lambda: True if all(galera_status(node).get(k) == v
                            for k, v in expected.items()) else None,
        timeout=timeout, interval=0.5)
    if seen is None:
        raise AssertionError(f'Galera node {node} not {expected} after '
                             f'{timeout} s: {galera_status(node)}')
    return time.monotonic() - start


def wait_rabbit_running(count: int, timeout: float, node: int = 0) -> float:
    """Wait until node ``node`` sees ``count`` running cluster nodes;
    the seconds it took."""
    s = settings()
    start = time.monotonic()

    def running() -> bool | None:
        result = ha.rabbitmqctl(s, node, 'cluster_status', '--formatter',
                                'json', timeout=30)
        if result.returncode != 0:
            return None
        nodes = json.loads(result.stdout).get('running_nodes', [])
        return True if len(nodes) == count else None

    if polling.until(running, timeout=timeout, interval=1,
                     retry_on=(subprocess.TimeoutExpired, ValueError)) is None:
        raise AssertionError(f'RabbitMQ node {node} does not see {count} '
                             f'running nodes after {timeout} s')
    return time.monotonic() - start


def cut_controller_from_database(test: unittest.TestCase,
                                 controller: int) -> None:
    """Cut controller ``controller``'s HAProxy from every Galera node
    (the nodes' answers to its address are lost); healed at cleanup if
    the test did not heal it. RabbitMQ and the other controller keep
    their links."""
    found = links(test)
    test.addCleanup(netns.heal, found)
    netns.cut_controller(found, controller,
                         [f'galera{i}' for i in range(ha.NODES)])


def database_answers(url: str) -> bool:
    """Whether a fresh connection to ``url`` runs a query (3 s bounds)."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool, connect_args={
        'connect_timeout': 3, 'read_timeout': 3, 'write_timeout': 3})
    try:
        with engine.connect() as conn:
            conn.execute(sa.text('SELECT 1'))
        return True
    except sa.exc.SQLAlchemyError:
        return False
    finally:
        engine.dispose()
