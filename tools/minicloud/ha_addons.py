"""The Blazar and Tacker addons on the HA topology (``minicloud ha up
--addons blazar,tacker``).

Each addon runs as its own module (``addon_blazar``, ``addon_tacker``)
says, through an :class:`HAContext` instead of the cloud's: its configs
per controller (``ha/controller<N>/<addon>``), its databases on the
Galera cluster through one writer address (controller 1's HAProxy: see
:meth:`HAContext.db_url`), with the controllers' ``[database]`` options
(``ha.DB_OPTIONS``), its
``transport_url`` listing the three RabbitMQ nodes, and
``[oslo_messaging_rabbit] rabbit_quorum_queue = true``
(``ha.RABBIT_OPTIONS``). The processes named in :data:`PAIRED` run on
both controllers (``ha-blazar-manager1``, ``ha-blazar-manager2``,
``ha-tacker-conductor1``, ...), the others (the APIs) on controller 1
only, on the HA ports (``ha.BASE_PORTS``). The service users are the
addon's; the catalog keeps pointing at the single-node addon (tests reach
the HA APIs by URL: ``minicloud ha status --json``, ``addons``).
"""

import dataclasses
import pathlib
import subprocess
import urllib.error

from minicloud import addon_tacker
from minicloud import addons
from minicloud import ha
from minicloud import lifecycle
from minicloud import procs
from minicloud import services
from minicloud import settings as mc_settings

# the processes of an addon that run on every controller
PAIRED = {'blazar': ('blazar-manager',), 'tacker': (addon_tacker.CONDUCTOR,)}


@dataclasses.dataclass(frozen=True)
class HAContext(addons.Context):
    """An addon's context on controller ``controller``."""

    controller: int = 1

    @property
    def etc(self) -> pathlib.Path:
        return ha._dir(self.settings, f'controller{self.controller}',
                       self.name)

    @property
    def state(self) -> pathlib.Path:
        return ha._dir(self.settings, 'state', self.name)

    def db_url(self, database: str) -> str:
        # one writer node for upstream's code: Tacker and Blazar do not
        # retry a Galera certification conflict (seen: Tacker's package
        # upload failed with a deadlock between tacker-server and the other
        # controller's conductor), so all controllers use controller 1's
        # address, whose HAProxy sends every write to one node (the others
        # are backups), as Kolla and OpenStack-Ansible configure them
        return ha.controller_db_url(self.settings, 1, database)

    def transport_url(self) -> str:
        return ha.transport_url(self.settings)

    def write_ini(self, path: pathlib.Path,
                  sections: dict[str, dict]) -> None:
        sections = dict(sections)
        if 'database' in sections:
            sections['database'] = {**ha.DB_OPTIONS, **sections['database']}
        sections['oslo_messaging_rabbit'] = {
            **sections.get('oslo_messaging_rabbit', {}), **ha.RABBIT_OPTIONS}
        super().write_ini(path, sections)


def context(s: mc_settings.Settings, name: str,
            controller: int = 1) -> HAContext:
    addon = addons.load(name)
    p = ha.ports(s)
    return HAContext(s, name, addons.venv_path(addon, addon.release),
                     {k: p[k] for k in addon.base_ports}, addon.release,
                     controller)


def service_list(s: mc_settings.Settings, name: str
                 ) -> list[services.Service]:
    """The addon's HA processes, in start order: controller 1's, then
    the paired ones of the other controllers."""
    addon = addons.load(name)
    out = []
    for controller in range(1, ha.CONTROLLERS + 1):
        for svc in addon.services(context(s, name, controller)):
            paired = svc.name in PAIRED[name]
            if controller == 1 or paired:
                suffix = str(controller) if paired else ''
                out.append(dataclasses.replace(
                    svc, name=f'ha-{svc.name}{suffix}'))
    return out


def _ready(ctx: addons.Context) -> bool:
    """Every conductor runs (Tacker); Blazar: its API answers a lease list
    (through one of the managers)."""
    if ctx.name == 'tacker':
        return all(addon_tacker.conductor_runs(ctx, svc.name)
                   for svc in service_list(ctx.settings, 'tacker')
                   if addon_tacker.CONDUCTOR in svc.name)
    return addons.load(ctx.name).ready(ctx)


def up(s: mc_settings.Settings, name: str) -> None:
    """Configure, migrate and start addon ``name`` on the topology (the
    Galera cluster and RabbitMQ cluster up)."""
    addon = addons.load(name)
    ctx = context(s, name)
    addons.ensure_venv(ctx, addon)
    for controller in range(1, ha.CONTROLLERS + 1):
        addon.write_configs(context(s, name, controller))
    result = ha.galera_sql(s, 0, '; '.join(
        f'CREATE DATABASE IF NOT EXISTS {db} CHARACTER SET utf8mb4'
        for db in addon.databases))
    if result.returncode != 0:
        raise ha.HAError(f'{name} databases: {result.stderr.strip()}')
    addons.register_identity(ctx, addon, catalog=False)
    addon.setup(ctx)
    addons.start_services(ctx, service_list(s, name), _ready)


def start_service(s: mc_settings.Settings, name: str) -> None:
    """(Re)start one HA process of an addon (``ha-blazar-manager2``)."""
    for addon in PAIRED:
        for svc in service_list(s, addon):
            if svc.name == name:
                procs.Proc(s.path(), svc.name).start(svc.argv, svc.env,
                                                     s.path())
                return
    raise KeyError(name)


def _running(s: mc_settings.Settings, name: str) -> bool:
    return all(procs.Proc(s.path(), svc.name).alive()
               for svc in service_list(s, name)) and _ready(
                   context(s, name))


def up_many(s: mc_settings.Settings, names: list[str]) -> int:
    """``ha up --addons``: each addon named not running yet is started
    (what a failed start left is stopped first)."""
    with lifecycle.locked(s.path(), 'ha.lock'):
        for name in names:
            if name not in PAIRED:
                lifecycle.log(f'ha: no HA addon {name!r} (one of '
                              f'{", ".join(PAIRED)})')
                return 2
            if _running(s, name):
                continue
            procs.stop_many([procs.Proc(s.path(), svc.name)
                             for svc in service_list(s, name)])
            lap = lifecycle._Laps()
            try:
                up(s, name)
            except (ha.HAError, lifecycle.BringUpError, TimeoutError,
                    RuntimeError, OSError, subprocess.SubprocessError,
                    urllib.error.URLError) as exc:
                lifecycle.log(f'ha: {name} failed: {exc}; stopping it')
                procs.stop_many([procs.Proc(s.path(), svc.name)
                                 for svc in service_list(s, name)])
                return 1
            lap(f'ha: {name} up')
    return 0
