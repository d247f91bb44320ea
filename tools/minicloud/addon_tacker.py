"""Addon ``tacker``: a real Tacker 16, or an older supported release (13
to 15, ``PLACEMENT_EXT_MINICLOUD_TACKER_RELEASE``), (tacker-server,
tacker-conductor)
on the embedded cloud, its conductor started through OUR console script
``placement-ext-tacker-conductor`` (Tacker with our zone reselection).

Tacker uses the cloud's MariaDB (database ``tacker``), RabbitMQ and
Keystone (service user ``tacker``, catalog type ``nfv-orchestration``).
Our operation records go to database ``placement_ext_tacker``
(``[placement_ext] database_connection``). The VIM is given in each
instantiate request (``vimConnectionInfo``: the cloud's admin), so no VIM
registration step is needed. Our NFVO, ``placement-ext-nfvo``,
runs beside them (``<etc>/nfvo.conf``); Tacker uses it only when the
mode file names it (``[v2_nfvo] use_external_nfvo``). Otherwise Tacker's
local NFVO grants every VNFC ``AZ-1`` (the first of ``[v2_nfvo]
test_grant_zone_list``), the zone the tests fill.

``<etc>/tacker.conf`` is what the services read; tests and the benchmark
switch the conductor's behaviour by writing ``<etc>/tacker-mode.conf``
(the last config file) and restarting ``tacker-conductor``.

``PLACEMENT_EXT_MINICLOUD_TACKER_CONDUCTOR=tacker`` at ``addon up`` runs
Tacker's own ``tacker-conductor`` instead of ours, with the same
configuration: Tacker's own functional tests are run against both, and a
test that fails with both is the environment's fault, not ours.
"""

import os
import pathlib
import re

from minicloud import addons
from minicloud import procs
from minicloud import services
from minicloud import tacker_az_retry

TACKER_PIN = 'tacker==16.0.0'
# PLACEMENT_EXT_MINICLOUD_TACKER_RELEASE picks one (addons.py); the
# oldest is pinned to the libraries it was checked with. Before 16.0.0
# Tacker declares list fields in a way oslo.versionedobjects 3.10 refuses
# (TypeError at start): 13 to 15 keep 3.9.0 (in the overlays too).
OLD_OVO = 'oslo.versionedobjects==3.9.0'
OLDER_RELEASES = {
    '13.0.0': ('tacker==13.0.0', '-c',
               str(addons.constraints('tacker-13.0.0.txt'))),
    '14.0.0': ('tacker==14.0.0', OLD_OVO),
    '15.0.0': ('tacker==15.0.0', OLD_OVO),
}
# what Tacker's own functional tests import beyond Tacker (tempest's
# base class, ddt, two clients): the az-retry test runs one of them
UPSTREAM_TEST_PINS = ('tempest==47.0.0', 'ddt==1.7.2',
                      'python-cinderclient==9.10.0',
                      'python-glanceclient==4.13.0')
CONDUCTOR = 'tacker-conductor'
# logged once the conductor's RPC server runs: its state reports (16, on
# oslo.service's threading backend), or its first periodic database sync
# (13 to 15, on eventlet, which logs no state report)
SERVICE_RUNS = re.compile(r'Service\.report_state|'
                          r'conductor_server \[[^]]*\] Ended _sync_db')
MODE_FILE = 'tacker-mode.conf'
CONDUCTOR_VARIABLE = 'PLACEMENT_EXT_MINICLOUD_TACKER_CONDUCTOR'
OURS, TACKERS = 'placement-ext-tacker-conductor', 'tacker-conductor'


def conductor_binary() -> str:
    """Our conductor, or Tacker's own (:data:`CONDUCTOR_VARIABLE`)."""
    wanted = os.environ.get(CONDUCTOR_VARIABLE, '').strip()
    return TACKERS if wanted == 'tacker' else OURS


def _conf(ctx: addons.Context) -> dict:
    state = ctx.state
    return {
        'DEFAULT': {
            'bind_host': '127.0.0.1', 'bind_port': ctx.ports['tacker'],
            'transport_url': ctx.transport_url(),
            'auth_strategy': 'keystone',
            'api_paste_config': ctx.venv / 'etc' / 'tacker' /
            'api-paste.ini',
            'state_path': state, 'debug': 'true',
            'use_stderr': 'true',
        },
        'database': {'connection': ctx.db_url('tacker')},
        'keystone_authtoken': ctx.authtoken('tacker'),
        'oslo_concurrency': {'lock_path': state / 'lock'},
        'oslo_messaging_notifications': {'driver': 'noop'},
        'coordination': {'backend_url': f'file://{state / "coordination"}'},
        'vnf_package': {'vnf_package_csar_path': state / 'vnfpackages'},
        # a registered VIM's password key (Tacker's own functional tests
        # register the default VIM; its default path is under /etc)
        'vim_keys': {'openstack': state / 'vim_keys'},
        'glance_store': {'default_backend': 'file', 'stores': 'file',
                         'default_store': 'file',
                         'filesystem_store_datadir': state / 'csar_files'},
        'v2_vnfm': {
            'placement_fallback_best_effort': 'true',
            # the embedded Heat fails a server in seconds; 3 minutes is
            # ample under load and ends a stuck try well before a test
            'openstack_vim_stack_create_timeout': 3,
        },
        # Tacker's local NFVO places every VNFC in the first zone and
        # lists them all in the Grant's zones
        'v2_nfvo': {'test_grant_zone_list': 'AZ-1,AZ-2,AZ-3',
                    'vnf_package_cache_dir': state / 'vnf_package_cache'},
        'placement_ext': {
            'database_connection': ctx.db_url('placement_ext_tacker')},
    }


# the NFVO's OAuth 2.0 client: Tacker, when [v2_nfvo] use_external_nfvo
NFVO_CLIENT = ('tacker-vnfm', 'tacker-vnfm-secret')


def _admin_auth(ctx: addons.Context) -> dict:
    # the NFVO reads the admin project's packages in Tacker, and Nova's
    # aggregates and Placement (admin only)
    return {**ctx.password_auth('admin'), 'project_name': 'admin',
            'username': 'admin', 'password': 'admin'}


def _nfvo_conf(ctx: addons.Context) -> dict:
    auth = _admin_auth(ctx)
    return {
        'DEFAULT': {'debug': 'true', 'use_stderr': 'true'},
        'nfvo_api': {'api_host': '127.0.0.1', 'api_port': ctx.ports['nfvo'],
                     'client_id': NFVO_CLIENT[0],
                     'client_secret': NFVO_CLIENT[1]},
        # its tokens and Grants, beside our operation records
        'database': {'connection': ctx.db_url('placement_ext_tacker')},
        'nova': auth, 'placement': auth, 'vnfpkgm': auth,
    }


def write_configs(ctx: addons.Context) -> None:
    conf = _conf(ctx)
    if tacker_az_retry.wanted():
        for section, options in tacker_az_retry.conf_sections().items():
            conf[section] = {**conf[section], **options}
    ctx.write_ini(ctx.etc / 'tacker.conf', conf)
    ctx.write_ini(ctx.etc / 'nfvo.conf', _nfvo_conf(ctx))
    mode = ctx.etc / MODE_FILE
    # upstream's job grants with Tacker's local NFVO: no test's mode
    if not mode.exists() or tacker_az_retry.wanted():
        mode.write_text('')
    state = ctx.state
    for sub in ('lock', 'coordination', 'vnfpackages', 'csar_files',
                'vnf_package_cache', 'vim_keys'):
        (state / sub).mkdir(parents=True, exist_ok=True)


def _config_args(ctx: addons.Context) -> list[str]:
    return ['--config-file', str(ctx.etc / 'tacker.conf'),
            '--config-file', str(ctx.etc / MODE_FILE)]


def setup(ctx: addons.Context) -> None:
    ctx.run('tacker-db-manage', [
        ctx.bin('tacker-db-manage'), '--config-file',
        str(ctx.etc / 'tacker.conf'), 'upgrade', 'head'])
    # placement-ext-nfvo refuses a server database not at head
    ctx.run('placement-ext-manage', [
        ctx.bin('placement-ext-manage'), '--config-file',
        str(ctx.etc / 'nfvo.conf'), 'db', 'sync'])
    tacker_az_retry.apply(ctx.settings, ctx.etc)


def _services(ctx: addons.Context) -> list[services.Service]:
    env = ctx.env()
    return [
        services.Service('tacker-server', [
            ctx.bin('tacker-server'), *_config_args(ctx)], env,
            ctx.url('tacker') + '/'),
        services.Service('placement-ext-nfvo', [
            ctx.bin('placement-ext-nfvo'), '--config-file',
            str(ctx.etc / 'nfvo.conf')], env, ctx.url('nfvo') + '/token'),
        services.Service(CONDUCTOR, [
            ctx.bin(conductor_binary()), *_config_args(ctx)], env),
    ]


def _ready(ctx: addons.Context) -> bool:
    """The conductor asked for runs (:func:`conductor_runs`); and the
    az-retry environment is as asked (else ``addon up`` redoes it)."""
    if tacker_az_retry.wanted() != tacker_az_retry.is_on(ctx.etc):
        return False
    binary = conductor_binary()
    if binary == OURS:
        return conductor_runs(ctx, CONDUCTOR)
    return tackers_conductor_runs(ctx)


def _cmdline(pid: int | None) -> list[str]:
    try:
        raw = pathlib.Path(f'/proc/{pid}/cmdline').read_bytes()
    except OSError:
        return []
    return [arg.decode(errors='replace') for arg in raw.split(b'\0')]


def tackers_conductor_runs(ctx: addons.Context) -> bool:
    """Tacker's own ``tacker-conductor`` runs and has started its service
    (:data:`SERVICE_RUNS` on a log line of one of its processes: its
    workers log, and its master retitles itself ``tacker-conductor:
    master process [<argv>]``)."""
    proc = procs.Proc(ctx.settings.path(), CONDUCTOR)
    if f'/{TACKERS} ' not in ' '.join(_cmdline(proc.pid)):
        return False
    log = pathlib.Path(ctx.settings.path('log', f'{CONDUCTOR}.log'))
    try:
        text = log.read_text(errors='replace')
    except OSError:
        return False
    pids = {f' {pid} ' for pid in proc.members()}
    return any(SERVICE_RUNS.search(line) and any(p in line for p in pids)
               for line in text.splitlines())


def conductor_runs(ctx: addons.Context, name: str) -> bool:
    """The running conductor process ``name`` (its pid in its start
    line) has started its service (:data:`SERVICE_RUNS`)."""
    proc = procs.Proc(ctx.settings.path(), name)
    log = pathlib.Path(ctx.settings.path('log', f'{name}.log'))
    try:
        text = log.read_text(errors='replace')
    except OSError:
        return False
    started = text.rfind(f'{OURS}: starting Tacker ')
    mine = f'(pid {proc.pid})' in text[started:started + 200]
    return started >= 0 and mine and SERVICE_RUNS.search(
        text, started) is not None


ADDON = addons.Addon(
    name='tacker',
    pip_requirements=(TACKER_PIN, *UPSTREAM_TEST_PINS),
    release='16.0.0',
    older_releases=OLDER_RELEASES,
    base_ports={'tacker': 19890, 'nfvo': 19891},
    databases=('tacker', 'placement_ext_tacker'),
    service_user='tacker',
    catalog=(addons.CatalogEntry('nfv-orchestration', 'tacker', 'tacker'),),
    write_configs=write_configs,
    setup=setup,
    services=_services,
    ready=_ready,
)
