"""Bring the minicloud up, tear it down, restart one service.

``up`` is idempotent: on a healthy cloud it changes nothing; on a
half-alive one it refuses and says so; on a dead folder (nothing of ours
running) it starts afresh. Every step is timed and printed.
"""

import concurrent.futures
import contextlib
import fcntl
import json
import os
import pathlib
import shutil
import subprocess
import time

from minicloud import backends
from minicloud import configs
from minicloud import firewall
from minicloud import health
from minicloud import install
from minicloud import netns
from minicloud import procs
from minicloud import schema_cache
from minicloud import services
from minicloud import settings as mc_settings
from minicloud import topology

LOCK_FILE = '.lock'
# held by each test of the cloud (placement_ext/tests/functional/cloud)
TESTS_LOCK_FILE = 'tests.lock'
API_TIMEOUT = 180      # heat-api and nova-api are slow to import on 2 cores
# the databases schema_cache keeps: Keystone's (migrated before Keystone
# starts), the others' (migrated while it answers)
KEYSTONE_DB = ('keystone',)
SERVICE_DBS = tuple(db for db in configs.DATABASES if db != 'keystone')


class BringUpError(RuntimeError):
    """A step of the bring-up failed; the message names its log."""


def log(msg: str) -> None:
    print(f'minicloud: {msg}', flush=True)


@contextlib.contextmanager
def locked(base: pathlib.Path, name: str = LOCK_FILE):
    """Serialise up/down/restart of one cloud across processes.

    Lock order, everywhere: tests.lock before .lock.
    """
    base.mkdir(parents=True, exist_ok=True)
    with open(base / name, 'a') as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if name == TESTS_LOCK_FILE:
                log('waiting for the running cloud test to finish')
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


class _Laps:
    def __init__(self) -> None:
        self.start = time.monotonic()

    def __call__(self, what: str) -> None:
        log(f'[{time.monotonic() - self.start:6.1f}s] {what}')


def _run(s: mc_settings.Settings, name: str, argv: list[str],
         env: dict[str, str] | None = None) -> None:
    """Run one set-up command to completion, its output in log/NAME.log."""
    path = s.path('log', f'{name}.log')
    with open(path, 'ab') as out:
        result = subprocess.run(argv, cwd=s.path(), stdout=out,
                                stderr=subprocess.STDOUT,
                                env=env or services.base_env(s))
    if result.returncode != 0:
        tail = path.read_text(errors='replace').splitlines()[-15:]
        raise BringUpError(f'{" ".join(argv[:3])} failed (exit '
                           f'{result.returncode}), log {path}:\n'
                           + '\n'.join(tail))


def _venv_bin(s: mc_settings.Settings, name: str) -> str:
    return str(pathlib.Path(s.venv, 'bin', name))


def _check_ports_free(s: mc_settings.Settings) -> None:
    busy = [f'{name} {port}' for name, port in s.ports.items()
            if health.port_open(port)]
    if busy:
        raise BringUpError(
            f'ports already in use: {", ".join(busy)}. Another minicloud or '
            f'service holds them; choose others with '
            f'{mc_settings.PREFIX}PORT_OFFSET')


def _prepare_folder(s: mc_settings.Settings) -> None:
    for sub in ('etc', 'log', 'run', 'state/glance/images',
                'state/glance/staging', 'state/glance/tasks',
                'state/nova/locks', 'state/neutron', 'mysql', 'rabbit'):
        s.path(sub).mkdir(parents=True, exist_ok=True)
    s.save()
    s.path('zones.json').write_text(
        json.dumps(topology.zones(s.hosts), indent=2) + '\n')


def _keystone_setup(s: mc_settings.Settings) -> None:
    manage = [_venv_bin(s, 'keystone-manage'), '--config-file',
              str(s.path('etc', 'keystone.conf'))]
    # the key repositories need no database: made beside the schema and
    # the bootstrap (each keystone-manage is seconds of imports)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        keys = [pool.submit(_run, s, f'keystone-manage-{cmd}', [
            *manage, cmd, '--keystone-user', 'root', '--keystone-group',
            'root']) for cmd in ('fernet_setup', 'credential_setup')]
        if not schema_cache.load(s, 'keystone', KEYSTONE_DB):
            _run(s, 'keystone-manage', [*manage, 'db_sync'])
            schema_cache.save(s, 'keystone', KEYSTONE_DB)
        url = s.url('keystone') + '/v3/'
        _run(s, 'keystone-manage', [
            *manage, 'bootstrap', '--bootstrap-password', 'admin',
            '--bootstrap-region-id', configs.REGION,
            '--bootstrap-public-url', url, '--bootstrap-internal-url', url,
            '--bootstrap-admin-url', url])
        for future in keys:
            future.result()


def _schema_jobs(s: mc_settings.Settings) -> dict[str, list[list[str]]]:
    """Per service, the commands that create its schema, in order."""
    etc = s.path('etc')
    nova = [_venv_bin(s, 'nova-manage'),
            '--config-file', str(etc / 'nova' / 'nova.conf'),
            '--config-file', str(etc / 'nova' / 'nova-db.conf')]
    return {
        'placement-manage': [[_venv_bin(s, 'placement-manage'),
                              '--config-file', str(etc / 'placement.conf'),
                              'db', 'sync']],
        'glance-manage': [[_venv_bin(s, 'glance-manage'), '--config-file',
                           str(etc / 'glance' / 'glance-api.conf'),
                           'db_sync']],
        'neutron-manage': [[
            _venv_bin(s, 'neutron-db-manage'),
            '--config-file', str(etc / 'neutron' / 'neutron.conf'),
            '--config-file',
            str(etc / 'neutron' / 'plugins' / 'ml2' / 'ml2_conf.ini'),
            'upgrade', 'heads']],
        'heat-manage': [[_venv_bin(s, 'heat-manage'), '--config-file',
                         str(etc / 'heat' / 'heat.conf'), 'db_sync']],
        'nova-manage': [
            [*nova, 'api_db', 'sync'],
            [*nova, 'cell_v2', 'map_cell0', '--database_connection',
             configs.db_url(s, 'nova_cell0')],
            [*nova, 'cell_v2', 'create_cell', '--name', 'cell1'],
            [*nova, 'db', 'sync']],
    }


def _point_cells(s: mc_settings.Settings) -> None:
    """Nova's cell mappings of a loaded dump, pointed at this cloud.

    What ``nova-manage cell_v2 map_cell0`` and ``create_cell`` wrote in
    the cloud the dump came from named its ports.
    """
    backends.run_sql(s, (
        f"UPDATE nova_api.cell_mappings SET database_connection = "
        f"'{configs.db_url(s, 'nova_cell0')}' WHERE name = 'cell0'; "
        f"UPDATE nova_api.cell_mappings SET database_connection = "
        f"'{configs.db_url(s, 'nova')}', transport_url = "
        f"'{configs.transport_url(s)}' WHERE name = 'cell1'"))


def _start(s: mc_settings.Settings, svc: services.Service) -> None:
    procs.Proc(s.path(), svc.name).start(svc.argv, svc.env, cwd=s.path())


def wait_http(s: mc_settings.Settings, svcs: list[services.Service],
               timeout: float = API_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    for svc in svcs:
        proc = procs.Proc(s.path(), svc.name)
        while not health.http_answers(svc.probe_url, timeout=2):
            if not proc.alive():
                raise BringUpError(f'{svc.name} exited: see {proc.log}')
            if time.monotonic() > deadline:
                raise BringUpError(f'{svc.name} does not answer on '
                                   f'{svc.probe_url}: see {proc.log}')
            time.sleep(0.25)


def _start_backends(s: mc_settings.Settings, lap: _Laps) -> None:
    backends.start_mariadb(s)
    backends.start_epmd(s)
    health.wait_until('epmd', lambda: health.port_open(s.ports['epmd']), 30)
    backends.start_rabbit(s)
    backends.create_databases(s)
    lap('MariaDB up, databases created')


def _identity_and_schemas(s: mc_settings.Settings, lap: _Laps) -> None:
    _keystone_setup(s)
    keystone = services.keystone(s)
    _start(s, keystone)
    cached = schema_cache.load(s, 'services', SERVICE_DBS)
    if cached:
        _point_cells(s)
    jobs = {} if cached else _schema_jobs(s)
    with concurrent.futures.ThreadPoolExecutor(max(1, len(jobs))) as pool:
        futures = [pool.submit(lambda n=name, c=cmds: [_run(s, n, cmd)
                                                       for cmd in c])
                   for name, cmds in jobs.items()]
        wait_http(s, [keystone])
        lap('Keystone answers')
        _run(s, 'bootstrap-identity', [
            _venv_bin(s, 'python'), '-m', 'bootstrap_identity',
            str(s.path(mc_settings.SETTINGS_FILE))])
        lap('users, projects and catalog created')
        for future in futures:
            future.result()
    if not cached:
        schema_cache.save(s, 'services', SERVICE_DBS)
    lap('database schemas ready')


def _start_openstack(s: mc_settings.Settings, lap: _Laps) -> None:
    health.wait_until('RabbitMQ', lambda: health.port_open(s.ports['rabbit']),
                      120)
    lap('RabbitMQ up')
    apis = services.api_services(s)
    for svc in (apis + services.nova_control(s) + services.computes(s)
                + [services.heat_engine(s)]):
        _start(s, svc)
    wait_http(s, apis)
    lap('every API answers')
    _run(s, 'seed-cloud', [_venv_bin(s, 'python'), '-m', 'seed_cloud',
                           str(s.path('zones.json'))])
    lap(f'{len(s.hosts)} hypervisors, zones, flavor, image ready')


def bring_up(s: mc_settings.Settings) -> None:
    lap = _Laps()
    install.ensure_debian_packages()
    install.ensure_venv(pathlib.Path(s.venv))
    lap('Debian packages and venv ready')
    _check_ports_free(s)
    _prepare_folder(s)
    configs.write_all(s)
    _start_backends(s, lap)
    _identity_and_schemas(s, lap)
    _start_openstack(s, lap)


def wipe(base: pathlib.Path) -> None:
    """Remove everything in ``base`` but the lock files."""
    if not base.is_dir():
        return
    for entry in base.iterdir():
        if entry.name in (LOCK_FILE, TESTS_LOCK_FILE):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def stop_all(base: pathlib.Path) -> None:
    """Stop every process of ours, then any stray that carries our mark."""
    procs.stop_many(procs.all_procs(base))
    strays = procs.owned_pids(base)
    for pid in strays:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)
    if strays:
        log(f'killed {len(strays)} stray processes of ours: {strays}')


def _warn_if_different(running: mc_settings.Settings,
                       wanted: mc_settings.Settings) -> None:
    running_opts, wanted_opts = vars(running), vars(wanted)
    changed = sorted(k for k in wanted_opts
                     if wanted_opts[k] != running_opts[k])
    if changed:
        log(f'NOTE: the running cloud has other {", ".join(changed)} than '
            'the environment asks for; "minicloud down" then "minicloud up" '
            'applies them')


def up(s: mc_settings.Settings) -> int:
    base = pathlib.Path(s.base)
    with locked(base):
        running = mc_settings.load(base)
        if running:
            report = health.probe(running)
            if report.healthy:
                log(f'already up and healthy in {base} (nothing changed)')
                _warn_if_different(running, s)
                return 0
            if report.any_alive:
                print(health.format_report(running, report))
                log('the cloud is half up: run "minicloud down" then '
                    '"minicloud up"')
                return 1
            log(f'nothing of the cloud in {base} runs: starting afresh')
        stop_all(base)
        wipe(base)
        try:
            bring_up(s)
        except (BringUpError, TimeoutError, RuntimeError,
                backends.BackendError, OSError,
                subprocess.CalledProcessError) as exc:
            log(f'bring-up FAILED: {exc}')
            log(f'stopping what was started; logs kept in {base}/log')
            stop_all(base)
            return 1
        log(f'up. clouds.yaml: {s.clouds_yaml}')
        return 0


def down(base: pathlib.Path, keep: bool = False) -> int:
    # never pull the cloud from under a test that is using it
    with locked(base, TESTS_LOCK_FILE), locked(base):
        stop_all(base)
        netns.down(base)       # the HA nodes' namespaces, if any
        saved = mc_settings.load(base)
        if saved is not None:  # the HA services' cgroups and cuts
            firewall.down(saved)
        if not keep:
            wipe(base)
        log(f'down ({"kept" if keep else "removed"} {base})')
    return 0
