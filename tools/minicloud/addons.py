"""Optional services on top of a running minicloud (Blazar, Tacker, ...).

An addon is started only when a test or the demo asks for it
(``minicloud addon up NAME``), in a venv of its own (its pinned upstream
release plus our package, installed editable), against the cloud's
MariaDB, RabbitMQ and Keystone. Its processes are the cloud's: their pid
files are in ``<dir>/run``, so ``minicloud down`` stops them with the
rest, and ``addon up`` on a healthy addon changes nothing.

An addon is a module ``minicloud.addon_<name>`` with a module-level
``ADDON``: an :class:`Addon`. The generic steps (venv, databases, service
user and catalog entry, start in order, wait for the probes) are here;
the module only says what is its own (pins, ports, configs, one-off
set-up commands, processes).

Releases: an addon runs its newest supported release unless
``PLACEMENT_EXT_MINICLOUD_<NAME>_RELEASE`` names an older one of its
``older_releases``. Each release has its own venv: the newest in
``.minicloud-<name>-venv``, the others in
``.minicloud-<name>-<release>-venv``. The oldest release gets a venv of
its own, resolved from its own requirements (the functional tests run on
it); a release between the oldest and the newest is an overlay on the
newest's venv (its own package and ours, the newest's libraries under it:
``minicloud addon venvs`` lists them, the contract tests run in each and
check that the shared libraries meet the release's requirements).
Switching an addon's release recreates its databases (an older release
cannot read a newer schema).

Over 400 lines as one module on purpose: it holds every generic step an
addon goes through (venv, databases, service user, catalog, processes),
and each addon module only says what is its own.
"""

import contextlib
import dataclasses
import hashlib
import importlib
import json
import os
import pathlib
import subprocess
import time
import typing
import urllib.error
import urllib.request

from minicloud import backends
from minicloud import configs
from minicloud import health
from minicloud import lifecycle
from minicloud import procs
from minicloud import services
from minicloud import settings as mc_settings
from minicloud import uv

ENABLED_FILE = 'addons.json'
START_TIMEOUT = 240
STAY_ALIVE_SECONDS = 3


@dataclasses.dataclass(frozen=True)
class Context:
    """What an addon's callbacks get: the cloud and the addon's own paths."""

    settings: mc_settings.Settings
    name: str
    venv: pathlib.Path
    ports: dict[str, int]       # the addon's ports, offset applied
    release: str = ''           # the addon's release running in venv

    @property
    def etc(self) -> pathlib.Path:
        return self.settings.path('etc', self.name)

    @property
    def state(self) -> pathlib.Path:
        """The addon's files (locks, packages) beside its databases."""
        return self.settings.path('state', self.name)

    def url(self, port_name: str) -> str:
        return f'http://127.0.0.1:{self.ports[port_name]}'

    def bin(self, name: str) -> str:
        return str(self.venv / 'bin' / name)

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        """The cloud's service environment, with the addon's venv first."""
        env = services.base_env(self.settings)
        env['PATH'] = f'{self.venv / "bin"}{os.pathsep}{env.get("PATH", "")}'
        return {**env, **(extra or {})}

    def run(self, log_name: str, argv: list[str],
            env: dict[str, str] | None = None) -> None:
        """A one-off command to completion; fails with its log's tail."""
        lifecycle._run(self.settings, log_name, argv, env or self.env())

    def db_url(self, database: str) -> str:
        return configs.db_url(self.settings, database)

    def transport_url(self) -> str:
        return configs.transport_url(self.settings)

    def authtoken(self, user: str) -> dict:
        """``[keystone_authtoken]`` for service user ``user``."""
        return configs._authtoken(self.settings, user)

    def password_auth(self, user: str) -> dict:
        """A keystoneauth password section for service user ``user``."""
        return configs._password_auth(self.settings, user)

    def write_ini(self, path: pathlib.Path,
                  sections: dict[str, dict]) -> None:
        configs._write(path, sections)


@dataclasses.dataclass(frozen=True)
class CatalogEntry:
    service_type: str
    service_name: str
    port_name: str
    path: str = ''


@dataclasses.dataclass(frozen=True)
class Addon:
    name: str
    # exact pins for the addon's own venv (its newest supported release);
    # our package is added editable
    pip_requirements: tuple[str, ...]
    base_ports: dict[str, int]          # PORT_OFFSET is added
    databases: tuple[str, ...]
    service_user: str                   # password = name; admin + service
    catalog: tuple[CatalogEntry, ...]
    write_configs: typing.Callable[[Context], None]
    # one-off set-up after configs and databases (db sync, ...)
    setup: typing.Callable[[Context], None]
    # the processes, in start order; each waited for before the next
    # when it has a probe URL
    services: typing.Callable[[Context], list[services.Service]]
    # extra readiness check after every process started (None: probes only)
    ready: typing.Callable[[Context], bool] | None = None
    # the release pip_requirements install (e.g. '16.0.0')
    release: str = ''
    # older supported releases, oldest first: release -> exact pins
    older_releases: dict[str, tuple[str, ...]] = dataclasses.field(
        default_factory=dict)

    def releases(self) -> list[str]:
        """Every supported release, oldest first."""
        return [*self.older_releases, self.release]

    def requirements(self, release: str) -> tuple[str, ...]:
        if release == self.release:
            return self.pip_requirements
        return self.older_releases[release]

    def overlay(self, release: str) -> bool:
        """A release between the oldest and the newest: its venv is an
        overlay on the newest's."""
        return release not in (self.releases()[0], self.release)


def constraints(name: str) -> pathlib.Path:
    """A pip constraints file of ``tools/minicloud/constraints``."""
    return pathlib.Path(__file__).resolve().parent / 'constraints' / name


def names() -> list[str]:
    """Every addon this checkout has (``addon_<name>.py`` beside us)."""
    here = pathlib.Path(__file__).resolve().parent
    return sorted(p.stem[len('addon_'):] for p in here.glob('addon_*.py'))


def load(name: str) -> Addon:
    if not name.isidentifier():
        raise mc_settings.SettingsError(f'no addon {name!r}')
    try:
        module = importlib.import_module(f'minicloud.addon_{name}')
    except ModuleNotFoundError:
        raise mc_settings.SettingsError(f'no addon {name!r}')
    return module.ADDON


def chosen_release(addon: Addon) -> str:
    """The release ``PLACEMENT_EXT_MINICLOUD_<NAME>_RELEASE`` names
    (a major version is enough), the newest by default."""
    variable = f'{mc_settings.PREFIX}{addon.name.upper()}_RELEASE'
    wanted = os.environ.get(variable, '').strip()
    if not wanted:
        return addon.release
    found = [r for r in addon.releases()
             if wanted in (r, r.split('.', 1)[0])]
    if not found:
        raise mc_settings.SettingsError(
            f'{variable}={wanted!r}: not a release of the {addon.name} '
            f'addon (one of {", ".join(addon.releases())})')
    return found[0]


def venv_path(addon: Addon, release: str) -> pathlib.Path:
    if release == addon.release:
        return pathlib.Path(os.environ.get(
            f'{mc_settings.PREFIX}{addon.name.upper()}_VENV',
            str(mc_settings.REPO / f'.minicloud-{addon.name}-venv'))
        ).resolve()
    return mc_settings.REPO / f'.minicloud-{addon.name}-{release}-venv'


def context(s: mc_settings.Settings, addon: Addon,
            release: str | None = None) -> Context:
    offset = s.ports['keystone'] - mc_settings.BASE_PORTS['keystone']
    release = release or chosen_release(addon)
    return Context(s, addon.name, venv_path(addon, release),
                   {k: v + offset for k, v in addon.base_ports.items()},
                   release)


# -- venv ------------------------------------------------------------------

def _stamp(addon: Addon, release: str) -> str:
    # our setup.cfg and requirements too: a new console script (entry
    # point) or dependency of ours needs the editable install redone; an
    # overlay is redone with its base
    ours = [(mc_settings.REPO / name).read_text()
            for name in ('setup.cfg', 'requirements.txt')]
    # (an overlay holds our package too since 'ours-in-overlay': the
    # overlays made before are redone)
    base = [*addon.pip_requirements, 'ours-in-overlay'] \
        if addon.overlay(release) else []
    # a constraints file (after -c) counts by its content
    pins = [pathlib.Path(item).read_text() if os.path.isfile(item) else item
            for item in [*addon.requirements(release), *base]]
    return hashlib.sha256('\n'.join([*pins, *ours]).encode()).hexdigest()


def ensure_venv(ctx: Context, addon: Addon) -> None:
    """Create the venv of the context's release with its pins and our
    package, once (an overlay: after the newest release's venv)."""
    release = ctx.release or addon.release
    if addon.overlay(release):
        ensure_venv(context(ctx.settings, addon, addon.release), addon)
    stamp = ctx.venv / '.minicloud-requirements'
    with contextlib.suppress(OSError):
        if stamp.read_text().strip() == _stamp(addon, release):
            return
    if not (ctx.venv / 'bin' / 'python').exists():
        lifecycle.log(f'creating {ctx.venv}')
        uv.create_venv(ctx.venv)
    argv = [*addon.requirements(release), '-e', str(mc_settings.REPO)]
    if addon.overlay(release):
        _link_base(ctx.venv, venv_path(addon, addon.release))
        # ours too: its console scripts (placement-ext-manage, our
        # conductor) in the overlay's bin, run by the overlay's python
        argv = ['--no-deps', *addon.requirements(release), '-e',
                str(mc_settings.REPO)]
    log = ctx.venv / 'pip-install.log'
    lifecycle.log(f'installing {addon.name} {release} into {ctx.venv} '
                  f'with uv (a minute or two the first time; log: {log})')
    if not uv.pip_install(ctx.venv, argv, log):
        raise RuntimeError(f'uv pip install for {addon.name} {release} '
                           f'failed: see {log}')
    _forget_entry_point_caches(ctx.venv)
    stamp.write_text(_stamp(addon, release) + '\n')


def _site_packages(venv: pathlib.Path) -> pathlib.Path:
    return next((venv / 'lib').glob('python3*/site-packages'))


def _link_base(venv: pathlib.Path, base: pathlib.Path) -> None:
    """The base venv's site-packages after the overlay's own (its .pth
    files too, so our editable package is found)."""
    line = f'import site; site.addsitedir({str(_site_packages(base))!r})\n'
    (_site_packages(venv) / 'zz-minicloud-base.pth').write_text(line)


def _forget_entry_point_caches(venv: pathlib.Path) -> None:
    """Drop stevedore's entry point caches of the venv's interpreter.

    stevedore keys them on path mtimes packed as 32-bit floats (about two
    minutes apart look alike), so a reinstall soon after a service start
    went unseen: a new plugin of ours was not found.
    """
    cache = pathlib.Path(os.environ.get(
        'XDG_CACHE_HOME', pathlib.Path.home() / '.cache'),
        'python-entrypoints')
    for path in cache.glob('*'):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            python = json.loads(path.read_text()).get('sys.executable', '')
            if python.startswith(f'{venv}/'):
                path.unlink()


# -- databases and identity ------------------------------------------------

RELEASE_FILE = 'release'


def _create_databases(ctx: Context, addon: Addon) -> None:
    """The addon's databases; dropped first when the addon ran another
    release on this cloud (an older one cannot read a newer schema)."""
    s = ctx.settings
    marker = ctx.etc / RELEASE_FILE
    with contextlib.suppress(OSError):
        if marker.read_text().strip() != ctx.release:
            lifecycle.log(f'{addon.name}: release {ctx.release} after '
                          f'{marker.read_text().strip()}: new databases')
            for name in addon.databases:
                backends.run_sql(s, f'DROP DATABASE IF EXISTS {name}')
    for name in addon.databases:
        backends.run_sql(s, f'CREATE DATABASE IF NOT EXISTS {name}')
    marker.write_text(ctx.release + '\n')


def _keystone(s: mc_settings.Settings, token: str, method: str, path: str,
              body: dict | None = None) -> dict:
    req = urllib.request.Request(
        s.url('keystone') + '/v3' + path, method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={'X-Auth-Token': token, 'Content-Type': 'application/json'})
    with urllib.request.urlopen(req, timeout=30) as resp:
        raw = resp.read()
    return json.loads(raw) if raw else {}


def _find_or_create(s: mc_settings.Settings, token: str, collection: str,
                    query: str, body: dict) -> dict:
    found = _keystone(s, token, 'GET', f'/{collection}?{query}')[collection]
    if found:
        return found[0]
    key = collection[:-1]
    return _keystone(s, token, 'POST', f'/{collection}', {key: body})[key]


def register_identity(ctx: Context, addon: Addon,
                      catalog: bool = True) -> None:
    """Service user (admin + service in project service) and, with
    ``catalog``, its catalog entries."""
    s = ctx.settings
    token, _ = health.admin_token(s)
    user = _find_or_create(s, token, 'users', f'name={addon.service_user}', {
        'name': addon.service_user, 'password': addon.service_user,
        'domain_id': 'default'})
    project = _keystone(s, token, 'GET', '/projects?name=service')[
        'projects'][0]
    for role_name in ('admin', 'service'):
        role = _keystone(s, token, 'GET', f'/roles?name={role_name}')[
            'roles'][0]
        _keystone(s, token, 'PUT', f'/projects/{project["id"]}/users/'
                  f'{user["id"]}/roles/{role["id"]}')
    for entry in addon.catalog if catalog else ():
        svc = _find_or_create(
            s, token, 'services', f'type={entry.service_type}',
            {'type': entry.service_type, 'name': entry.service_name})
        existing = _keystone(s, token, 'GET',
                             f'/endpoints?service_id={svc["id"]}')
        if existing['endpoints']:
            continue
        url = ctx.url(entry.port_name) + entry.path
        for iface in ('public', 'internal', 'admin'):
            _keystone(s, token, 'POST', '/endpoints', {'endpoint': {
                'service_id': svc['id'], 'interface': iface, 'url': url,
                'region_id': configs.REGION}})


# -- processes -------------------------------------------------------------

def _enabled(s: mc_settings.Settings) -> dict[str, dict]:
    try:
        return json.loads(s.path(ENABLED_FILE).read_text())
    except (OSError, ValueError):
        return {}


def _mark_enabled(s: mc_settings.Settings, ctx: Context) -> None:
    enabled = _enabled(s)
    enabled[ctx.name] = {'venv': str(ctx.venv), 'ports': ctx.ports,
                         'release': ctx.release}
    s.path(ENABLED_FILE).write_text(json.dumps(enabled, indent=2) + '\n')


def checks(ctx: Context, addon: Addon) -> list[health.Check]:
    return [health._check(ctx.settings, svc.name, svc.probe_url)
            for svc in addon.services(ctx)]


def healthy(ctx: Context, addon: Addon) -> bool:
    # up from this release's venv (another release: restarted)
    enabled = _enabled(ctx.settings).get(ctx.name)
    if not enabled or enabled.get('venv') != str(ctx.venv):
        return False
    if not all(c.ok for c in checks(ctx, addon)):
        return False
    return addon.ready is None or addon.ready(ctx)


def _start_all(ctx: Context, addon: Addon) -> None:
    start_services(ctx, addon.services(ctx), addon.ready)


def start_services(ctx: Context, svcs: list[services.Service],
                   ready: typing.Callable[[Context], bool] | None) -> None:
    """Start ``svcs`` in order (each with a probe URL waited for), then
    wait for ``ready``; a process that dies at once fails the start."""
    s = ctx.settings
    for svc in svcs:
        procs.Proc(s.path(), svc.name).start(svc.argv, svc.env,
                                             cwd=s.path())
        if svc.probe_url:
            lifecycle.wait_http(s, [svc], timeout=START_TIMEOUT)
    if ready is not None:
        health.wait_until(f'{ctx.name} ready', lambda: ready(ctx),
                          START_TIMEOUT, interval=1)
    _check_still_alive(ctx, svcs)


def _check_still_alive(ctx: Context, svcs: list[services.Service]) -> None:
    """A process without a probe URL that dies at once fails the start."""
    time.sleep(STAY_ALIVE_SECONDS)
    for svc in svcs:
        proc = procs.Proc(ctx.settings.path(), svc.name)
        if not proc.alive():
            raise lifecycle.BringUpError(f'{svc.name} exited: see {proc.log}')


def install(s: mc_settings.Settings, name: str) -> int:
    """Only create the addon's venvs, one per supported release (CI does
    it while unit tests run): the newest first, then the oldest."""
    addon = load(name)
    releases = addon.releases()
    for release in [releases[-1], *releases[:-1]]:
        ensure_venv(context(s, addon, release), addon)
    return 0


def venvs(name: str) -> list[tuple[str, pathlib.Path]]:
    """(release, venv) of every supported release, oldest first."""
    addon = load(name)
    return [(r, venv_path(addon, r)) for r in addon.releases()]


def _stop(ctx: Context, addon: Addon) -> None:
    procs.stop_many([procs.Proc(ctx.settings.path(), svc.name)
                     for svc in addon.services(ctx)])


def up(s: mc_settings.Settings, name: str) -> int:
    """Start addon ``name`` on the running cloud; idempotent."""
    addon = load(name)
    ctx = context(s, addon)
    base = pathlib.Path(s.base)
    with lifecycle.locked(base):
        if healthy(ctx, addon):
            lifecycle.log(f'{name}: already up and healthy')
            return 0
        if not health.probe(s).healthy:
            lifecycle.log(f'{name}: the cloud is not up and healthy: run '
                          '"minicloud up" first')
            return 1
        lap = lifecycle._Laps()
        _stop(ctx, addon)         # a half-started addon starts afresh
        try:
            ensure_venv(ctx, addon)
            lap(f'{name}: venv ready')
            ctx.etc.mkdir(parents=True, exist_ok=True)
            addon.write_configs(ctx)
            _create_databases(ctx, addon)
            register_identity(ctx, addon)
            addon.setup(ctx)
            lap(f'{name}: configured, databases and identity ready')
            _start_all(ctx, addon)
        except (lifecycle.BringUpError, TimeoutError, RuntimeError,
                backends.BackendError, OSError, urllib.error.URLError,
                subprocess.CalledProcessError) as exc:
            lifecycle.log(f'{name}: bring-up FAILED: {exc}')
            _stop(ctx, addon)
            return 1
        _mark_enabled(s, ctx)
        lap(f'{name}: up')
        return 0


def down(s: mc_settings.Settings, name: str) -> int:
    """Stop addon ``name``'s processes (its data stays until cloud down)."""
    addon = load(name)
    ctx = context(s, addon)
    with lifecycle.locked(pathlib.Path(s.base)):
        _stop(ctx, addon)
        enabled = _enabled(s)
        enabled.pop(name, None)
        s.path(ENABLED_FILE).write_text(json.dumps(enabled, indent=2) + '\n')
    lifecycle.log(f'{name}: down')
    return 0


def restart(s: mc_settings.Settings, name: str, service: str) -> int:
    """Restart one process of an addon, waiting for its probe."""
    addon = load(name)
    ctx = context(s, addon)
    svc = next((x for x in addon.services(ctx) if x.name == service), None)
    if svc is None:
        names = ', '.join(x.name for x in addon.services(ctx))
        lifecycle.log(f'{name}: no service {service!r}; one of: {names}')
        return 2
    with lifecycle.locked(pathlib.Path(s.base)):
        proc = procs.Proc(s.path(), svc.name)
        proc.stop()
        started = time.monotonic()
        proc.start(svc.argv, svc.env, cwd=s.path())
        if svc.probe_url:
            lifecycle.wait_http(s, [svc], timeout=START_TIMEOUT)
        if addon.ready is not None:
            health.wait_until(f'{name} ready', lambda: addon.ready(ctx),
                              START_TIMEOUT, interval=1)
    lifecycle.log(f'{service} restarted after '
                  f'{time.monotonic() - started:.1f}s (pid {proc.pid})')
    return 0


def status_json(s: mc_settings.Settings, name: str) -> dict:
    addon = load(name)
    ctx = context(s, addon)
    return {
        'name': name, 'release': ctx.release,
        'healthy': healthy(ctx, addon),
        'enabled': name in _enabled(s), 'venv': str(ctx.venv),
        'ports': ctx.ports, 'etc': str(ctx.etc),
        'urls': {k: ctx.url(k) for k in ctx.ports},
        'services': [dataclasses.asdict(c) for c in checks(ctx, addon)],
    }
