"""Each node of the HA topology behind its own link, for partitions.

When the HA topology comes up as root (``PLACEMENT_EXT_MINICLOUD_HA_NETNS``
``auto``, the default; ``0`` never, ``1`` always), every Galera and
RabbitMQ node runs in its own network namespace (``ip netns``), with its
own address in a private range (``10.213.<tag>.0/24``, ``tag`` from the
cloud's port offset, so two clouds on one machine do not share a subnet),
joined by a veth pair to one bridge in the machine's namespace, which
holds ``10.213.<tag>.1``: HAProxy, our services and the tests reach the
nodes through it. Nothing is routed off the machine.

:func:`cut` partitions a node from some peers by giving their addresses,
in the node's namespace, a neighbour entry with a MAC address nobody has:
its packets to them are dropped silently, as by a firewall's DROP (a
neighbour entry needs no kernel module, unlike iptables or ``tc``
actions, which this machine lacks). Cutting both sides is a symmetric
partition, one side an asymmetric one. :func:`heal` removes the entries.

The namespaces, veths, bridge and per-namespace ``/etc/netns`` files are
recorded in ``ha/links.json``; :func:`down` removes them (``ha down``,
``minicloud down``), also after a failed test.
"""

import dataclasses
import json
import os
import pathlib
import shutil
import socket
import subprocess

from minicloud import settings as mc_settings

ENV = mc_settings.PREFIX + 'HA_NETNS'
PREFIX = '10.213'
# locally administered, never a real interface's: frames to it are lost
NOWHERE_MAC = '02:00:00:00:de:ad'
CONTROLLERS = (1, 2)              # ha.CONTROLLERS's numbers
MEMBERS = tuple(f'{kind}{i}' for kind in ('galera', 'rabbit')
                for i in range(3))
RECORD = ('ha', 'links.json')


def wanted() -> bool:
    """Whether ``ha up`` puts the nodes in namespaces."""
    choice = os.environ.get(ENV, 'auto').strip()
    if choice == 'auto':
        return os.geteuid() == 0 and shutil.which('ip') is not None
    return choice == '1'


@dataclasses.dataclass(frozen=True)
class Links:
    """Names and addresses of one cloud's namespaces."""

    tag: int
    members: tuple[str, ...] = MEMBERS

    @property
    def bridge(self) -> str:
        return f'pe{self.tag}br'

    @property
    def gateway(self) -> str:
        """The machine's side of the bridge (where the nodes see
        HAProxy, our services and the tests come from)."""
        return f'{PREFIX}.{self.tag}.1'

    def controller_address(self, controller: int) -> str:
        """Controller ``controller``'s own address on the bridge: its
        HAProxy reaches the Galera nodes from it (:func:`cut_controller`)."""
        return f'{PREFIX}.{self.tag}.{1 + controller}'

    def netns(self, member: str) -> str:
        return f'pe{self.tag}-{member}'

    def hostname(self, member: str) -> str:
        return self.netns(member)

    def address(self, member: str) -> str:
        return f'{PREFIX}.{self.tag}.{10 + self.members.index(member)}'

    def veth(self, member: str) -> str:
        # galera0 -> pe20g0: at most 15 characters
        return f'pe{self.tag}{member[0]}{member[-1]}'

    def wrap(self, member: str, argv: list[str]) -> list[str]:
        """``argv`` run inside ``member``'s namespace (same pid: exec)."""
        return ['ip', 'netns', 'exec', self.netns(member), *argv]


def tag_of(s: mc_settings.Settings) -> int:
    offset = s.ports['keystone'] - mc_settings.BASE_PORTS['keystone']
    return (offset // 100) % 250 + 1


def load(s: mc_settings.Settings) -> Links | None:
    """The links of the running HA topology, if it has namespaces."""
    try:
        return Links(**json.loads(s.path(*RECORD).read_text()))
    except FileNotFoundError:
        return None


def host(s: mc_settings.Settings, member: str) -> str:
    """``member``'s address: in its namespace, else 127.0.0.1."""
    links = load(s)
    return links.address(member) if links else '127.0.0.1'


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(['ip', *args], capture_output=True, text=True,
                          check=check, timeout=30)


def _hosts_file(links: Links) -> str:
    # inside a namespace the machine's name is the namespace's own
    # loopback (rabbitmqctl's node, run there, is called back on it)
    lines = [f'127.0.0.1 localhost {socket.gethostname()}']
    lines += [f'{links.address(m)} {links.hostname(m)}'
              for m in links.members]
    return '\n'.join(lines) + '\n'


def up(s: mc_settings.Settings) -> Links:
    """Create the bridge, one namespace per member and its veth pair;
    record them (first, so that :func:`down` finds a half set-up)."""
    links = Links(tag_of(s))
    record = s.path(*RECORD)
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps(dataclasses.asdict(links)))
    down_links(links)                 # what a crashed run left
    _ip('link', 'add', links.bridge, 'type', 'bridge')
    _ip('addr', 'add', f'{links.gateway}/24', 'dev', links.bridge)
    for controller in CONTROLLERS:
        _ip('addr', 'add', f'{links.controller_address(controller)}/24',
            'dev', links.bridge)
    _ip('link', 'set', links.bridge, 'up')
    for member in links.members:
        ns, veth = links.netns(member), links.veth(member)
        etc = pathlib.Path('/etc/netns', ns)
        etc.mkdir(parents=True, exist_ok=True)
        (etc / 'hosts').write_text(_hosts_file(links))
        _ip('netns', 'add', ns)
        _ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', f'{veth}p')
        _ip('link', 'set', veth, 'master', links.bridge, 'up')
        _ip('link', 'set', f'{veth}p', 'netns', ns)
        _ip('-n', ns, 'link', 'set', f'{veth}p', 'name', 'eth0')
        _ip('-n', ns, 'addr', 'add', f'{links.address(member)}/24',
            'dev', 'eth0')
        _ip('-n', ns, 'link', 'set', 'eth0', 'up')
        _ip('-n', ns, 'link', 'set', 'lo', 'up')
    return links


def down_links(links: Links) -> None:
    """Remove all of ``links`` that exists (a veth goes with its
    namespace, its peer with it)."""
    for member in links.members:
        _ip('netns', 'del', links.netns(member), check=False)
        _ip('link', 'del', links.veth(member), check=False)
        shutil.rmtree(pathlib.Path('/etc/netns', links.netns(member)),
                      ignore_errors=True)
    _ip('link', 'del', links.bridge, check=False)


def down(base: pathlib.Path) -> None:
    """Remove the links recorded under the cloud folder ``base``."""
    try:
        links = Links(**json.loads(base.joinpath(*RECORD).read_text()))
    except FileNotFoundError:
        return
    down_links(links)
    base.joinpath(*RECORD).unlink()


def cut(links: Links, member: str, peers: list[str]) -> None:
    """Drop every packet ``member`` sends to ``peers`` (one direction:
    cut both sides for a symmetric partition)."""
    for peer in peers:
        _ip('-n', links.netns(member), 'neigh', 'replace',
            links.address(peer), 'lladdr', NOWHERE_MAC, 'nud', 'permanent',
            'dev', 'eth0')


def cut_controller(links: Links, controller: int,
                   members: list[str]) -> None:
    """Drop what ``members`` send to controller ``controller``'s address:
    its HAProxy's connections to them (and checks) get no answer, as if
    its link to them were down; the other controller's are untouched."""
    for member in members:
        _ip('-n', links.netns(member), 'neigh', 'replace',
            links.controller_address(controller), 'lladdr', NOWHERE_MAC,
            'nud', 'permanent', 'dev', 'eth0')


def heal(links: Links, member: str | None = None) -> None:
    """Undo :func:`cut` and :func:`cut_controller` for ``member`` (every
    member if None)."""
    addresses = [links.address(m) for m in links.members] + [
        links.controller_address(c) for c in CONTROLLERS]
    for each in [member] if member else links.members:
        for address in addresses:
            _ip('-n', links.netns(each), 'neigh', 'del', address,
                'dev', 'eth0', check=False)


def partition(links: Links, side: list[str], other: list[str]) -> None:
    """A symmetric partition between ``side`` and ``other``."""
    for member in side:
        cut(links, member, other)
    for member in other:
        cut(links, member, side)
