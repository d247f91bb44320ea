"""What a minicloud is made of: folders, ports, topology, knobs.

Every knob is an environment variable (``PLACEMENT_EXT_MINICLOUD_*``, so
tox passes it through) read once by :func:`from_environ`. ``up`` writes
the result to ``<dir>/settings.json``; later commands read that file, so
``status``/``down`` act on the cloud that runs, whatever the environment.
"""

import dataclasses
import json
import os
import pathlib

from minicloud import topology

PREFIX = 'PLACEMENT_EXT_MINICLOUD_'
REPO = pathlib.Path(__file__).resolve().parents[2]
RUNTIME_DIR = pathlib.Path(__file__).resolve().parent / 'runtime'

# Exact pins: one venv holds all services; SQLAlchemy 2.1 breaks nova 34.
PIP_REQUIREMENTS = (
    'nova==34.0.0', 'openstack-placement==16.0.0', 'openstack-heat==27.0.1',
    'keystone==30.0.0', 'glance==33.0.0', 'neutron==29.0.0',
    'SQLAlchemy<2.1', 'pymysql', 'waitress')
# galera-4, rsync and haproxy: the HA topology (minicloud ha, see ha.py);
# nftables: its tests' packet drops (firewall.py)
DEBIAN_PACKAGES = ('mariadb-server', 'rabbitmq-server', 'galera-4', 'rsync',
                   'haproxy', 'nftables')

# Unusual ports: the machine's own MariaDB (3306), RabbitMQ (5672) and
# other engineers' services must never be touched.
BASE_PORTS = {
    'keystone': 15000, 'placement': 18778, 'nova': 18774, 'glance': 19292,
    'neutron': 19696, 'heat': 18004, 'mysql': 13306, 'rabbit': 35672,
    'rabbit_dist': 35673, 'epmd': 34369,
}

SETTINGS_FILE = 'settings.json'


class SettingsError(ValueError):
    """A knob with a value that cannot be used."""


@dataclasses.dataclass(frozen=True)
class Settings:
    base: str                     # every file of the cloud lives here
    venv: str                     # the OpenStack services' own venv
    topology: str                 # see topology.py
    ports: dict[str, int]
    heat_action_retry_limit: int
    allocation_ratio: float
    nova_extra_conf: list[str]    # appended to every nova service's config
    extra_pythonpath: list[str]   # prepended to every service's PYTHONPATH

    @property
    def hosts(self) -> list[topology.Host]:
        return topology.parse(self.topology)

    def path(self, *parts: str) -> pathlib.Path:
        return pathlib.Path(self.base, *parts)

    @property
    def clouds_yaml(self) -> pathlib.Path:
        return self.path('clouds.yaml')

    def url(self, service: str) -> str:
        return f'http://127.0.0.1:{self.ports[service]}'

    def save(self) -> None:
        self.path(SETTINGS_FILE).write_text(
            json.dumps(dataclasses.asdict(self), indent=2) + '\n')


def _env(name: str, default: str) -> str:
    return os.environ.get(PREFIX + name, '').strip() or default


def _int(name: str, default: int) -> int:
    raw = _env(name, str(default))
    try:
        return int(raw)
    except ValueError:
        raise SettingsError(f'{PREFIX}{name}={raw!r} is not an integer')


def _paths(name: str) -> list[str]:
    raw = _env(name, '')
    return [str(pathlib.Path(p).resolve())
            for p in raw.split(os.pathsep) if p.strip()]


def default_base() -> pathlib.Path:
    return pathlib.Path(_env('DIR', str(REPO / '.minicloud'))).resolve()


def _topology_spec() -> str:
    spec = _env('TOPOLOGY', '')
    if spec:
        return spec
    return topology.build_spec(_int('AZS', 3), _int('HOSTS_PER_AZ', 2),
                               _env('HOST_SIZE', topology.DEFAULT_SIZE))


def from_environ() -> Settings:
    """Settings for a new cloud, from ``PLACEMENT_EXT_MINICLOUD_*``."""
    offset = _int('PORT_OFFSET', 0)
    ratio = _env('ALLOCATION_RATIO', '1.0')
    try:
        ratio_value = float(ratio)
    except ValueError:
        raise SettingsError(f'{PREFIX}ALLOCATION_RATIO={ratio!r} is not a '
                            'number')
    spec = _topology_spec()
    try:
        topology.parse(spec)
    except topology.TopologyError as exc:
        raise SettingsError(f'{PREFIX}TOPOLOGY: {exc}')
    return Settings(
        base=str(default_base()),
        venv=str(pathlib.Path(
            _env('VENV', str(REPO / '.minicloud-venv'))).resolve()),
        topology=spec,
        ports={k: v + offset for k, v in BASE_PORTS.items()},
        heat_action_retry_limit=_int('HEAT_RETRY_LIMIT', 0),
        allocation_ratio=ratio_value,
        nova_extra_conf=_paths('NOVA_CONF'),
        extra_pythonpath=_paths('PYTHONPATH'),
    )


def load(base: pathlib.Path) -> Settings | None:
    """The settings a cloud in ``base`` was brought up with, if any."""
    try:
        data = json.loads((base / SETTINGS_FILE).read_text())
    except (OSError, ValueError):
        return None
    return Settings(**data)


def current() -> Settings:
    """The running cloud's settings, else the environment's."""
    return load(default_base()) or from_environ()
