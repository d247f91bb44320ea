"""A production-like HA topology on top of a running minicloud.

``minicloud ha up|down|status [--json]`` starts, on demand (like the
addons), what three controllers run:

* a three-node Galera cluster (Debian's ``mariadb-server`` + ``galera-4``):
  three ``mariadbd`` on 127.0.0.1, own data folders, SQL, replication,
  IST and SST ports; node 0 bootstraps the cluster
  (``--wsrep-new-cluster``), nodes 1 and 2 join it (rsync SST);
* HAProxy in front of it, one address per controller, each preferring its
  own controller's node and failing over to the others (``backup``),
  as operators run it (a controller's services write to "their" node,
  so two controllers write to two nodes at once);
* a three-node RabbitMQ cluster (own node names, ports, Erlang
  distribution ports and mnesia folders, one shared Erlang cookie, joined
  with ``rabbitmqctl join_cluster``);
* our services twice: ``placement-ext-manager`` and
  ``placement-ext-conductor`` on controllers 1 and 2, each with
  ``[database] connection`` on its controller's HAProxy address and
  ``transport_url`` listing the three RabbitMQ nodes, with
  ``[oslo_messaging_rabbit] rabbit_quorum_queue = true``.

The Nova, Heat and Placement services of the cloud stay single. Every
process has a pid file in the cloud's ``run`` folder (names ``ha-*``), so
``minicloud down`` stops them with the rest; ``ha down`` stops only
them. Ports: ``BASE_PORTS`` plus the cloud's port offset.

Over 400 lines as one module on purpose: it brings up one topology whose
parts (Galera, RabbitMQ, HAProxy, our services) are configured with each
other's ports.
"""

import contextlib
import json
import os
import pathlib
import shutil
import subprocess
import time

from minicloud import addons
from minicloud import backends
from minicloud import configs
from minicloud import firewall
from minicloud import lifecycle
from minicloud import netns
from minicloud import procs
from minicloud import services
from minicloud import settings as mc_settings

NODES = 3
CONTROLLERS = 2          # controllers that run our services
CLUSTER = 'minicloud-ha'
DATABASE = 'placement_ext'
GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so'
START_TIMEOUT = 180
# far from the cloud's own ports (offset added like theirs) and below the
# kernel's ephemeral range (32768-60999), so that no outgoing connection's
# local port holds one when its node binds (seen: a Galera node's port)
BASE_PORTS = {
    **{f'galera{i}': 28300 + i for i in range(NODES)},
    **{f'wsrep{i}': 28310 + i for i in range(NODES)},
    **{f'ist{i}': 28320 + i for i in range(NODES)},
    **{f'sst{i}': 28330 + i for i in range(NODES)},
    **{f'db_vip{c}': 28340 + c for c in range(1, CONTROLLERS + 1)},
    **{f'rabbit{i}': 28350 + i for i in range(NODES)},
    **{f'rabbit_dist{i}': 28360 + i for i in range(NODES)},
    'epmd': 28370,
    # the addons' APIs on controller 1 (ha_addons.py)
    'blazar': 28380, 'tacker': 28381, 'nfvo': 28382,
}
RABBITMQCTL = '/usr/lib/rabbitmq/bin/rabbitmqctl'


class HAError(RuntimeError):
    """A part of the HA topology that did not come up; names its log."""


def ports(s: mc_settings.Settings) -> dict[str, int]:
    offset = s.ports['keystone'] - mc_settings.BASE_PORTS['keystone']
    return {name: port + offset for name, port in BASE_PORTS.items()}


def _dir(s: mc_settings.Settings, *parts: str) -> pathlib.Path:
    return s.path('ha', *parts)


def _proc(s: mc_settings.Settings, name: str) -> procs.Proc:
    return procs.Proc(s.path(), f'ha-{name}')


# -- Galera ------------------------------------------------------------------

def _socket(s: mc_settings.Settings, node: int) -> pathlib.Path:
    return _dir(s, 'run', f'galera{node}.sock')


def _user() -> list[str]:
    # not root: the joiner's rsync daemon (SST) would run as nobody
    return ['--user=mysql'] if os.geteuid() == 0 else []


def _in_netns(s: mc_settings.Settings, member: str,
              argv: list[str]) -> list[str]:
    """``argv`` in ``member``'s namespace, if the nodes have them."""
    links = netns.load(s)
    return links.wrap(member, argv) if links else argv


def _galera_argv(s: mc_settings.Settings, node: int,
                 bootstrap: bool) -> list[str]:
    p = ports(s)
    user = _user()
    addr = netns.host(s, f'galera{node}')
    peers = ','.join(f'{netns.host(s, f"galera{i}")}:{p[f"wsrep{i}"]}'
                     for i in range(NODES))
    provider_options = ';'.join([
        f'gmcast.listen_addr=tcp://{addr}:{p[f"wsrep{node}"]}',
        f'ist.recv_addr={addr}:{p[f"ist{node}"]}',
        'gcache.size=64M',
        # notice a killed node within seconds, not the 30 s default
        'evs.suspect_timeout=PT5S', 'evs.inactive_timeout=PT10S',
        'evs.keepalive_period=PT1S'])
    return [
        'mariadbd', '--no-defaults', *user,
        f'--datadir={_dir(s, f"galera{node}")}',
        f'--bind-address={addr}', f'--port={p[f"galera{node}"]}',
        f'--socket={_socket(s, node)}',
        f'--pid-file={_dir(s, "run", f"galera{node}.real-pid")}',
        '--innodb-buffer-pool-size=64M', '--max-connections=500',
        '--innodb-flush-log-at-trx-commit=0', '--skip-name-resolve',
        '--character-set-server=utf8mb4',
        '--collation-server=utf8mb4_general_ci',
        # what Galera requires
        '--binlog-format=ROW', '--default-storage-engine=InnoDB',
        '--innodb-autoinc-lock-mode=2',
        '--wsrep-on=ON', f'--wsrep-provider={GALERA_PROVIDER}',
        f'--wsrep-cluster-name={CLUSTER}',
        f'--wsrep-node-name=galera{node}',
        f'--wsrep-cluster-address=gcomm://{peers}',
        f'--wsrep-node-address={addr}:{p[f"wsrep{node}"]}',
        f'--wsrep-node-incoming-address={addr}:{p[f"galera{node}"]}',
        f'--wsrep-provider-options={provider_options}',
        '--wsrep-sst-method=rsync',
        f'--wsrep-sst-receive-address={addr}:{p[f"sst{node}"]}',
        *(['--wsrep-new-cluster'] if bootstrap else []),
    ]


def start_galera_node(s: mc_settings.Settings, node: int,
                      bootstrap: bool = False) -> None:
    """Start node ``node`` (its data folder kept: a restarted node rejoins
    by IST, or SST when it is too far behind)."""
    datadir = _dir(s, f'galera{node}')
    run = _dir(s, 'run')
    run.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(run, 'mysql', 'mysql')
    if not datadir.is_dir():
        datadir.mkdir(parents=True)
        with open(s.path('log', f'ha-galera{node}-install.log'), 'wb') as out:
            subprocess.run(
                ['mariadb-install-db', '--no-defaults', *_user(),
                 f'--datadir={datadir}', '--skip-test-db',
                 '--auth-root-authentication-method=normal'],
                stdout=out, stderr=subprocess.STDOUT, check=True)
    _proc(s, f'galera{node}').start(
        _in_netns(s, f'galera{node}', _galera_argv(s, node, bootstrap)),
        env=dict(os.environ), cwd=s.path())


def galera_sql(s: mc_settings.Settings, node: int,
               sql: str) -> subprocess.CompletedProcess:
    """``sql`` as root on one node (its socket); -N -B output."""
    client = shutil.which('mariadb') or 'mysql'
    return subprocess.run(
        [client, '--no-defaults', f'--socket={_socket(s, node)}', '-uroot',
         '-N', '-B', '-e', sql], capture_output=True, text=True, timeout=30)


def galera_state(s: mc_settings.Settings, node: int) -> dict[str, str]:
    """wsrep status of a node: cluster size, ready, state comment."""
    result = galera_sql(s, node, "SHOW STATUS WHERE Variable_name IN "
                        "('wsrep_cluster_size', 'wsrep_ready', "
                        "'wsrep_local_state_comment', "
                        "'wsrep_cluster_status')")
    if result.returncode != 0:
        return {}
    return dict(line.split('\t', 1) for line in result.stdout.splitlines())


def wait_synced(s: mc_settings.Settings, node: int, size: int | None = None,
                timeout: float = START_TIMEOUT) -> None:
    """Wait until ``node`` is Synced (in a cluster of ``size`` nodes)."""
    deadline = time.monotonic() + timeout
    while True:
        state = galera_state(s, node)
        if (state.get('wsrep_local_state_comment') == 'Synced'
                and state.get('wsrep_ready') == 'ON'
                and (size is None
                     or state.get('wsrep_cluster_size') == str(size))):
            return
        if not _proc(s, f'galera{node}').alive():
            raise HAError(f'Galera node {node} died: see '
                          f'{s.path("log", f"ha-galera{node}.log")}')
        if time.monotonic() > deadline:
            raise HAError(f'Galera node {node} not synced after {timeout}s '
                          f'({state}): see {s.path("log")}')
        time.sleep(0.5)


def _galera_up(s: mc_settings.Settings) -> None:
    start_galera_node(s, 0, bootstrap=True)
    wait_synced(s, 0)
    links = netns.load(s)
    # clients in the machine's namespace come from the bridge's address
    sql = []
    clients = ['127.0.0.1']
    if links:
        clients += [links.gateway] + [links.controller_address(c)
                                      for c in range(1, CONTROLLERS + 1)]
    for client in clients:
        user = f"'{configs.DB_USER}'@'{client}'"
        sql += [f"CREATE USER IF NOT EXISTS {user} IDENTIFIED BY "
                f"'{configs.DB_PASSWORD}'", f'GRANT ALL ON *.* TO {user}']
    result = galera_sql(s, 0, '; '.join([
        *sql,
        f'CREATE DATABASE IF NOT EXISTS {DATABASE} CHARACTER SET utf8mb4']))
    if result.returncode != 0:
        raise HAError(f'Galera set-up: {result.stderr.strip()}')
    # one joiner at a time: each takes a full state transfer from a donor
    for node in range(1, NODES):
        start_galera_node(s, node)
        wait_synced(s, node)
    wait_synced(s, 0, size=NODES)


def node_url(s: mc_settings.Settings, node: int,
             database: str = DATABASE) -> str:
    """A URL straight to one Galera node."""
    return (f'mysql+pymysql://{configs.DB_USER}:{configs.DB_PASSWORD}@'
            f'{netns.host(s, f"galera{node}")}:{ports(s)[f"galera{node}"]}/'
            f'{database}')


def controller_db_url(s: mc_settings.Settings, controller: int,
                      database: str = DATABASE) -> str:
    """Controller ``controller``'s database address (its HAProxy)."""
    return (f'mysql+pymysql://{configs.DB_USER}:{configs.DB_PASSWORD}@'
            f'127.0.0.1:{ports(s)[f"db_vip{controller}"]}/{database}')


# -- HAProxy -----------------------------------------------------------------

def _haproxy_config(s: mc_settings.Settings) -> str:
    p = ports(s)
    links = netns.load(s)
    lines = ['global', '    maxconn 4000', '',
             'defaults', '    mode tcp', '    timeout connect 2s',
             '    timeout client 1h', '    timeout server 1h', '']
    for controller in range(1, CONTROLLERS + 1):
        # controller c writes to node c-1; the others are its backups
        order = [(controller - 1 + i) % NODES for i in range(NODES)]
        lines += [f'listen galera-controller{controller}',
                  f'    bind 127.0.0.1:{p[f"db_vip{controller}"]}',
                  '    option tcpka']
        # each controller reaches the nodes from its own address, so
        # that a test can cut one controller's link to them
        source = (f' source {links.controller_address(controller)}'
                  if links else '')
        for rank, node in enumerate(order):
            backup = ' backup' if rank else ''
            lines.append(
                f'    server galera{node} '
                f'{netns.host(s, f"galera{node}")}:{p[f"galera{node}"]} '
                f'check inter 1s fall 2 rise 2 '
                f'on-marked-down shutdown-sessions{backup}{source}')
        lines.append('')
    return '\n'.join(lines)


def _haproxy_up(s: mc_settings.Settings) -> None:
    haproxy = shutil.which('haproxy') or '/usr/sbin/haproxy'
    config = _dir(s, 'haproxy.cfg')
    config.write_text(_haproxy_config(s))
    # -db: stay in the foreground, so the pid file holds it
    _proc(s, 'haproxy').start([haproxy, '-db', '-f', str(config)],
                              env=dict(os.environ), cwd=s.path())


# -- RabbitMQ ----------------------------------------------------------------

def rabbit_node(s: mc_settings.Settings, node: int) -> str:
    # in namespaces, each node's host name is its own (/etc/netns hosts)
    links = netns.load(s)
    host = links.hostname(f'rabbit{node}') if links else 'localhost'
    return f'ha{node}@{host}'


def rabbit_env(s: mc_settings.Settings, node: int) -> dict[str, str]:
    p = ports(s)
    # one Erlang cookie (in HOME) for all nodes
    return {**backends.rabbit_node_env(
        s, _dir(s, 'rabbit'), _dir(s, f'rabbit{node}'), rabbit_node(s, node),
        p[f'rabbit{node}'], p[f'rabbit_dist{node}'], p['epmd']),
        'RABBITMQ_NODE_IP_ADDRESS': netns.host(s, f'rabbit{node}')}


def start_rabbit_node(s: mc_settings.Settings, node: int) -> None:
    mine = _dir(s, f'rabbit{node}')
    mine.mkdir(parents=True, exist_ok=True)
    (mine / 'rabbitmq-env.conf').write_text('')
    (mine / 'enabled_plugins').write_text('[].\n')
    (mine / 'rabbitmq.conf').write_text(
        f'listeners.tcp.local = {netns.host(s, f"rabbit{node}")}:'
        f'{ports(s)[f"rabbit{node}"]}\n'
        # the cluster keeps serving when one node of three is gone
        'cluster_partition_handling = pause_minority\n'
        # a node cut off is down for the others after 10-15 s (default
        # 60: 45-75 s); pause_minority acts on that
        'net_ticktime = 10\n'
        # clients come from the bridge's address when nodes have links
        'loopback_users = none\n')
    _proc(s, f'rabbit{node}').start(
        _in_netns(s, f'rabbit{node}', [backends.RABBIT_SERVER]),
        env=rabbit_env(s, node), cwd=mine)


def rabbitmqctl(s: mc_settings.Settings, node: int, *args: str,
                timeout: float = 60) -> subprocess.CompletedProcess:
    # the real one: Debian's wrapper runs it as user rabbitmq, with
    # another HOME (Erlang cookie)
    # in the node's namespace: its own epmd, and its host name resolves
    argv = [RABBITMQCTL, '-n', rabbit_node(s, node), *args]
    return subprocess.run(_in_netns(s, f'rabbit{node}', argv),
                          env=rabbit_env(s, node), capture_output=True,
                          text=True, timeout=timeout)


def wait_rabbit(s: mc_settings.Settings, node: int,
                timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while rabbitmqctl(s, node, 'await_startup',
                      '--timeout', '10').returncode != 0:
        if not _proc(s, f'rabbit{node}').alive():
            raise HAError(f'RabbitMQ node {node} died: see '
                          f'{s.path("log", f"ha-rabbit{node}.log")}')
        if time.monotonic() > deadline:
            raise HAError(f'RabbitMQ node {node} not up after {timeout}s')
        time.sleep(1)


def _epmds(s: mc_settings.Settings) -> list[tuple[str, int]]:
    """(name, node) of the Erlang port mappers: one in each node's
    namespace, else one for all."""
    if netns.load(s):
        return [(f'epmd{node}', node) for node in range(NODES)]
    return [('epmd', 0)]


def _rabbit_up(s: mc_settings.Settings) -> None:
    home = _dir(s, 'rabbit')
    home.mkdir(parents=True, exist_ok=True)
    cookie = home / '.erlang.cookie'
    if not cookie.exists():
        cookie.write_text(os.urandom(16).hex().upper())
        cookie.chmod(0o400)
    p = ports(s)
    for name, node in _epmds(s):
        argv = ['epmd', '-port', str(p['epmd']), '-address',
                ','.join(sorted({'127.0.0.1',
                                 netns.host(s, f'rabbit{node}')}))]
        procs.Proc(s.path(), f'ha-{name}').start(
            _in_netns(s, f'rabbit{node}', argv), env=rabbit_env(s, node),
            cwd=s.path())
    for node in range(NODES):
        start_rabbit_node(s, node)
    for node in range(NODES):
        wait_rabbit(s, node)
    for node in range(1, NODES):
        for args in (('stop_app',), ('join_cluster', rabbit_node(s, 0)),
                     ('start_app',)):
            result = rabbitmqctl(s, node, *args)
            if result.returncode != 0:
                raise HAError(f'rabbitmqctl {" ".join(args)} on node '
                              f'{node}: {result.stderr.strip()}')


def transport_url(s: mc_settings.Settings) -> str:
    """oslo.messaging's URL listing the three nodes."""
    p = ports(s)
    hosts = ','.join(
        f'guest:guest@{netns.host(s, f"rabbit{i}")}:{p[f"rabbit{i}"]}'
        for i in range(NODES))
    return f'rabbit://{hosts}/'


def running_rabbit_nodes(s: mc_settings.Settings) -> list[str]:
    result = rabbitmqctl(s, 0, 'cluster_status', '--formatter', 'json')
    if result.returncode != 0:
        return []
    return json.loads(result.stdout).get('running_nodes', [])


# -- our services ------------------------------------------------------------

def _our_bin(name: str) -> str:
    venv = pathlib.Path(os.environ.get(f'{mc_settings.PREFIX}HA_VENV',
                                       str(mc_settings.REPO / '.venv')))
    return str(venv / 'bin' / name)


# what every service of a controller has in [database] besides its
# connection, and in [oslo_messaging_rabbit] (ours, Blazar's, Tacker's)
DB_OPTIONS = {
    # a failed node: the proxy sends the retry elsewhere
    'use_db_reconnect': 'true',
    # causal reads: controllers write to different nodes
    'mysql_wsrep_sync_wait': '1',
    'db_retry_interval': '1', 'db_max_retry_interval': '5',
    'db_max_retries': '20', 'max_retries': '-1', 'retry_interval': '1'}
RABBIT_OPTIONS = {'rabbit_quorum_queue': 'true',
                  'heartbeat_timeout_threshold': '15',
                  'kombu_failover_strategy': 'round-robin'}


def controller_config(s: mc_settings.Settings, controller: int) -> dict:
    """placement_ext's configuration on controller ``controller``."""
    admin = {'auth_url': s.url('keystone') + '/v3', 'auth_type': 'password',
             'username': 'admin', 'password': 'admin',
             'project_name': 'admin', 'user_domain_name': 'Default',
             'project_domain_name': 'Default',
             'region_name': configs.REGION}
    return {
        'DEFAULT': {'host': f'controller{controller}',
                    'state_path': str(_dir(s, f'controller{controller}')),
                    'transport_url': transport_url(s)},
        'database': {'connection': controller_db_url(s, controller),
                     **DB_OPTIONS},
        # a killed conductor's operations are adopted after 30 s
        'conductor': {'operation_heartbeat_interval': '10',
                      'operation_takeover_timeout': '30'},
        # a lease start or end a killed manager left in progress is taken
        # over by the other after 90 s without progress (the default,
        # 600 s, is past the fault cases' 240 s bound); past the longest
        # single Nova or Placement call (their clients' timeout, 60 s)
        'reservation': {'event_stale_after': '90'},
        'oslo_messaging_rabbit': dict(RABBIT_OPTIONS),
        'heat': dict(admin), 'nova': dict(admin), 'placement': dict(admin),
    }


def config_file(s: mc_settings.Settings, controller: int) -> pathlib.Path:
    return _dir(s, f'controller{controller}', 'placement_ext.conf')


def our_services(s: mc_settings.Settings) -> list[services.Service]:
    env = _our_env(s)
    out = []
    for controller in range(1, CONTROLLERS + 1):
        conf = str(config_file(s, controller))
        for kind in ('manager', 'conductor'):
            out.append(services.Service(
                f'ha-{kind}{controller}',
                [_our_bin(f'placement-ext-{kind}'), '--config-file', conf],
                env))
    return out


def _our_env(s: mc_settings.Settings) -> dict[str, str]:
    """This checkout's code; with ``HA_VENV`` (an older release, for the
    upgrade test) the code installed in that venv: no PYTHONPATH."""
    env = services.base_env(s)
    if f'{mc_settings.PREFIX}HA_VENV' in os.environ:
        env.pop('PYTHONPATH', None)
    else:
        env['PYTHONPATH'] = str(mc_settings.REPO)
    return env


def start_service(s: mc_settings.Settings, name: str) -> None:
    """(Re)start one of :func:`our_services` by name (``ha-manager1``),
    in its own cgroup when the machine allows it (``firewall``: a test
    can then drop its packets alone)."""
    svc = next(svc for svc in our_services(s) if svc.name == name)
    procs.Proc(s.path(), svc.name).start(
        firewall.wrap(s, svc.name, svc.argv), svc.env, s.path())


def _our_services_up(s: mc_settings.Settings) -> None:
    for controller in range(1, CONTROLLERS + 1):
        configs._write(config_file(s, controller),
                       controller_config(s, controller))
    lifecycle._run(s, 'ha-db-sync', [
        _our_bin('placement-ext-manage'), '--config-file',
        str(config_file(s, 1)), 'db', 'sync'], env=_our_env(s))
    for svc in our_services(s):
        start_service(s, svc.name)


# -- up, down, status --------------------------------------------------------

def all_procs(s: mc_settings.Settings) -> list[procs.Proc]:
    return [p for p in procs.all_procs(s.path())
            if p.name.startswith('ha-')]


def up(s: mc_settings.Settings) -> int:
    """Start the topology on the running cloud (idempotent)."""
    with lifecycle.locked(s.path(), 'ha.lock'):
        if status(s)['healthy']:
            lifecycle.log('ha: already up and healthy')
            return 0
        if all_procs(s):
            lifecycle.log('ha: half up; run "minicloud ha down" first')
            print(json.dumps(status(s), indent=2))
            return 1
        laps = time.monotonic()
        try:
            if netns.wanted():
                netns.up(s)
            _galera_up(s)
            _haproxy_up(s)
            lifecycle.log(f'ha: Galera x{NODES} and HAProxy up '
                          f'({time.monotonic() - laps:.0f}s)')
            _rabbit_up(s)
            lifecycle.log(f'ha: RabbitMQ x{NODES} clustered '
                          f'({time.monotonic() - laps:.0f}s)')
            _our_services_up(s)
        except (HAError, lifecycle.BringUpError, OSError,
                subprocess.SubprocessError) as exc:
            lifecycle.log(f'ha up failed: {exc}; stopping what started')
            procs.stop_many(all_procs(s))
            netns.down(s.path())
            return 1
        lifecycle.log(f'ha: up ({time.monotonic() - laps:.0f}s)')
        return 0


def down(s: mc_settings.Settings) -> int:
    with lifecycle.locked(s.path(), 'ha.lock'):
        procs.stop_many(all_procs(s))
        netns.down(s.path())
        firewall.down(s)
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(_dir(s))
    return 0


def status(s: mc_settings.Settings) -> dict:
    """What runs, the addresses, and whether all of it is healthy."""
    names = ([f'galera{i}' for i in range(NODES)] + ['haproxy']
             + [name for name, _ in _epmds(s)]
             + [f'rabbit{i}' for i in range(NODES)]
             + [svc.name[len('ha-'):] for svc in our_services(s)])
    # and the addons' processes started on it (ha_addons.py)
    names += [p.name[len('ha-'):] for p in all_procs(s)
              if p.name[len('ha-'):] not in names]
    alive = {name: _proc(s, name).pid for name in names}
    synced = [galera_state(s, i).get('wsrep_local_state_comment')
              for i in range(NODES)] if alive['galera0'] else []
    rabbits = running_rabbit_nodes(s) if alive['rabbit0'] else []
    healthy = (all(alive.values()) and synced == ['Synced'] * NODES
               and len(rabbits) == NODES)
    links = netns.load(s)
    return {'healthy': healthy, 'pids': alive, 'galera': synced,
            # each node's namespace and address, when they have links
            'links': {m: {'netns': links.netns(m),
                          'address': links.address(m)}
                      for m in links.members} if links else {},
            'rabbit_running_nodes': rabbits, 'ports': ports(s),
            'transport_url': transport_url(s),
            'galera_urls': [node_url(s, i) for i in range(NODES)],
            'controller_db_urls': [controller_db_url(s, c) for c in
                                   range(1, CONTROLLERS + 1)],
            'config_files': [str(config_file(s, c)) for c in
                             range(1, CONTROLLERS + 1)],
            'base': str(s.path()), 'logs': str(s.path('log')),
            # the venvs the HA addons run from (ha_addons.py)
            'addon_venvs': {name: str(addons.venv_path(
                addons.load(name), addons.load(name).release))
                for name in ('blazar', 'tacker')}}
