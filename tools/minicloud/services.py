"""Every process of the minicloud: how to start it and how to probe it.

A :class:`Service` is plain data; ``lifecycle`` starts them in order and
``health`` probes them. Order matters only between the groups named in
``lifecycle``; within a group services start together.
"""

import dataclasses
import os
import pathlib

from minicloud import configs
from minicloud import settings as mc_settings


@dataclasses.dataclass(frozen=True)
class Service:
    name: str
    argv: list[str]
    env: dict[str, str]
    # URL that answers when the service is ready; None: process check only
    probe_url: str | None = None


def base_env(s: mc_settings.Settings) -> dict[str, str]:
    keep = ('PATH', 'LANG', 'LC_ALL', 'TZ', 'HOME', 'USER', 'LOGNAME')
    env = {k: v for k, v in os.environ.items() if k in keep}
    env['PYTHONPATH'] = os.pathsep.join(
        s.extra_pythonpath + [str(mc_settings.RUNTIME_DIR)])
    env['PYTHONWARNINGS'] = 'ignore'
    env['OS_CLIENT_CONFIG_FILE'] = str(s.clouds_yaml)
    return env


def _python(s: mc_settings.Settings) -> str:
    return str(pathlib.Path(s.venv, 'bin', 'python'))


def _bin(s: mc_settings.Settings, name: str) -> str:
    return str(pathlib.Path(s.venv, 'bin', name))


def _wsgi(s: mc_settings.Settings, name: str, app: str, port_name: str,
          env: dict[str, str], probe: str = '/',
          args: tuple[str, ...] = ()) -> Service:
    argv = [_python(s), '-m', 'serve', app, str(s.ports[port_name]), *args]
    return Service(name, argv, {**base_env(s), **env},
                   s.url(port_name) + probe)


def keystone(s: mc_settings.Settings) -> Service:
    return _wsgi(s, 'keystone', 'keystone.wsgi.api:application', 'keystone',
                 {'OS_KEYSTONE_CONFIG_FILES': str(s.path('etc',
                                                         'keystone.conf'))},
                 probe='/v3')


def api_services(s: mc_settings.Settings) -> list[Service]:
    """The HTTP APIs that start once Keystone and the schemas exist."""
    etc = s.path('etc')
    nova_files = ['api-paste.ini', 'nova.conf', 'nova-db.conf'] + [
        str(p) for p in configs.nova_extra_files(s)]
    return [
        _wsgi(s, 'placement', 'placement.wsgi.api:application', 'placement',
              {'OS_PLACEMENT_CONFIG_DIR': str(etc)}),
        _wsgi(s, 'glance', 'glance.wsgi.api:application', 'glance',
              {'OS_GLANCE_CONFIG_DIR': str(etc / 'glance')},
              probe='/versions'),
        _wsgi(s, 'neutron', 'neutron_app:application', 'neutron',
              {'OS_NEUTRON_CONFIG_DIR': str(etc / 'neutron')}),
        _wsgi(s, 'nova-api', 'nova.wsgi.osapi_compute:application', 'nova',
              {'OS_NOVA_CONFIG_DIR': str(etc / 'nova'),
               'OS_NOVA_CONFIG_FILES': ';'.join(nova_files)}),
        _wsgi(s, 'heat-api', 'heat.wsgi.api:application', 'heat', {},
              args=('--config-file', str(etc / 'heat' / 'heat.conf'))),
    ]


def _nova_control_args(s: mc_settings.Settings) -> list[str]:
    files = [s.path('etc', 'nova', 'nova.conf'),
             s.path('etc', 'nova', 'nova-db.conf'),
             *configs.nova_extra_files(s)]
    return [arg for f in files for arg in ('--config-file', str(f))]


def nova_control(s: mc_settings.Settings) -> list[Service]:
    env = base_env(s)
    return [Service(name, [_bin(s, name), *_nova_control_args(s)], env)
            for name in ('nova-conductor', 'nova-scheduler')]


def computes(s: mc_settings.Settings) -> list[Service]:
    nova_etc = s.path('etc', 'nova')
    extra = [arg for f in configs.nova_extra_files(s)
             for arg in ('--config-file', str(f))]
    return [Service(f'nova-compute-{host.name}', [
        _python(s), '-m', 'nova_compute',
        '--config-file', str(nova_etc / 'nova.conf'), *extra,
        '--config-file', str(nova_etc / f'compute-{host.name}.conf')],
        base_env(s)) for host in s.hosts]


def heat_engine(s: mc_settings.Settings) -> Service:
    heat_etc = s.path('etc', 'heat')
    return Service('heat-engine', [
        _bin(s, 'heat-engine'),
        '--config-file', str(heat_etc / 'heat.conf'),
        '--config-file', str(heat_etc / 'heat-engine.conf')], base_env(s))


def openstack_services(s: mc_settings.Settings) -> list[Service]:
    """Every OpenStack process, in start order."""
    return ([keystone(s)] + api_services(s) + nova_control(s)
            + computes(s) + [heat_engine(s)])


def by_name(s: mc_settings.Settings, name: str) -> Service | None:
    return next((svc for svc in openstack_services(s) if svc.name == name),
                None)
