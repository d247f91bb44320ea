"""Restart one OpenStack service of a running minicloud, and wait for it.

Used to reload a service with new configuration without touching the
rest: ``heat-retries`` (heat-engine's action_retry_limit) and, for a
Nova scheduler filter of ours, ``restart nova-scheduler``.
"""

import configparser
import contextlib
import pathlib
import time
import urllib.error

from minicloud import configs
from minicloud import health
from minicloud import lifecycle
from minicloud import procs
from minicloud import services
from minicloud import settings as mc_settings

READY_TIMEOUT = 120


def _wait_log_line(proc: procs.Proc, offset: int, text: str) -> None:
    def logged() -> bool:
        if not proc.alive():
            raise lifecycle.BringUpError(f'{proc.name} exited: {proc.log}')
        with open(proc.log, 'rb') as f:
            f.seek(offset)
            return text.encode() in f.read()
    health.wait_until(f'{proc.name} start', logged, READY_TIMEOUT)


def _wait_heat_engine(s: mc_settings.Settings) -> None:
    """An API call that heat-api must pass to the engine over RPC."""
    token, project = health.admin_token(s)
    url = f'{s.url("heat")}/v1/{project}/stacks'
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        try:
            health.get_json(url, token, timeout=READY_TIMEOUT)
            return
        except (urllib.error.URLError, OSError):
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


def _wait_ready(s: mc_settings.Settings, svc: services.Service,
                proc: procs.Proc, log_offset: int) -> None:
    if svc.probe_url:
        lifecycle.wait_http(s, [svc])
    elif svc.name == 'heat-engine':
        _wait_heat_engine(s)
    else:
        # nova/service.py logs this once its RPC server is set up
        _wait_log_line(proc, log_offset, 'Starting ')


def restart(s: mc_settings.Settings, name: str, held: bool = False) -> int:
    """Restart service ``name``; ``held``: the caller holds the cloud's
    lock already (an addon's set-up)."""
    svc = services.by_name(s, name)
    if svc is None:
        names = ', '.join(x.name for x in services.openstack_services(s))
        lifecycle.log(f'no service {name!r}; one of: {names}')
        return 2
    base = pathlib.Path(s.base)
    with contextlib.nullcontext() if held else lifecycle.locked(base):
        proc = procs.Proc(base, name)
        proc.stop()
        offset = proc.log.stat().st_size if proc.log.exists() else 0
        started = time.monotonic()
        proc.start(svc.argv, svc.env, cwd=base)
        _wait_ready(s, svc, proc, offset)
    lifecycle.log(f'{name} restarted, ready after '
                  f'{time.monotonic() - started:.1f}s (pid {proc.pid})')
    return 0


def heat_retries(s: mc_settings.Settings, limit: int,
                 held: bool = False) -> int:
    """Restart heat-engine with ``action_retry_limit = limit``."""
    configs.heat_engine_override(s.path('etc', 'heat', 'heat-engine.conf'),
                                 limit)
    lifecycle.log(f'heat-engine action_retry_limit = {limit}')
    return restart(s, 'heat-engine', held)


def current_heat_retries(s: mc_settings.Settings) -> int:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(s.path('etc', 'heat', 'heat-engine.conf'))
    return parser.getint('DEFAULT', 'action_retry_limit',
                         fallback=s.heat_action_retry_limit)
