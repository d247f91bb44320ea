"""Availability zones and fake hosts of the minicloud.

A topology is written as space-separated zones, each ``NAME=COUNTxSIZE``
with ``SIZE`` = ``VCPU/RAM_MB/DISK_GB``::

    AZ-1=2x2/8192/1028 AZ-2=2x2/8192/1028 AZ-3=1x1/2048/10

Host names are derived from the zone name (``AZ-1`` -> ``az1-h1``,
``az1-h2``), so a host tells which zone it belongs to.
"""

import dataclasses
import re

_ZONE_RE = re.compile(
    r'^(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]*)='
    r'(?P<count>\d+)x(?P<vcpus>\d+)/(?P<ram>\d+)/(?P<disk>\d+)$')

DEFAULT_SIZE = '2/8192/1028'   # nova's SmallFakeDriver


class TopologyError(ValueError):
    """A topology string that cannot be used, with the reason."""


@dataclasses.dataclass(frozen=True)
class Host:
    name: str
    zone: str
    vcpus: int
    memory_mb: int
    disk_gb: int


def build_spec(zones: int, hosts_per_zone: int, size: str) -> str:
    """The topology string of ``zones`` equal zones named AZ-1..AZ-N."""
    if zones < 1 or hosts_per_zone < 1:
        raise TopologyError('need at least one zone and one host per zone')
    return ' '.join(f'AZ-{i}={hosts_per_zone}x{size}'
                    for i in range(1, zones + 1))


def host_prefix(zone: str) -> str:
    return re.sub(r'[^a-z0-9]', '', zone.lower())


def parse(spec: str) -> list[Host]:
    """Every host of ``spec``, zone by zone, in the order written."""
    hosts: list[Host] = []
    prefixes: dict[str, str] = {}
    for item in spec.split():
        match = _ZONE_RE.match(item)
        if not match:
            raise TopologyError(
                f'{item!r} is not NAME=COUNTxVCPU/RAM_MB/DISK_GB '
                f'(for example AZ-1=2x{DEFAULT_SIZE})')
        zone = match['name']
        prefix = host_prefix(zone)
        if prefix in prefixes:
            raise TopologyError(
                f'zones {prefixes[prefix]!r} and {zone!r} would give the '
                f'same host names ({prefix}-h1, ...)')
        prefixes[prefix] = zone
        sizes = [int(match[k]) for k in ('count', 'vcpus', 'ram', 'disk')]
        if min(sizes) < 1:
            raise TopologyError(f'{item!r}: every number must be >= 1')
        count, vcpus, ram, disk = sizes
        hosts.extend(Host(f'{prefix}-h{i}', zone, vcpus, ram, disk)
                     for i in range(1, count + 1))
    if not hosts:
        raise TopologyError('the topology has no zone')
    return hosts


def zones(hosts: list[Host]) -> dict[str, list[str]]:
    """Zone name -> its host names, in topology order."""
    result: dict[str, list[str]] = {}
    for host in hosts:
        result.setdefault(host.zone, []).append(host.name)
    return result
