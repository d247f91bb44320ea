"""Packet drops for one service of the HA topology (nftables, cgroup v2).

Our services run on this machine's own network namespace, so a link of
theirs cannot be cut by a neighbour entry in a namespace (``netns``):
their packets leave from the bridge's address like everyone's. Instead,
when the machine allows it (:func:`available`: root, ``nft``, cgroup v2),
each of our HA services runs in a cgroup of its own (``pe<tag>-<name>``,
joined before its program starts: :func:`wrap`). A socket keeps the
cgroup it was created in, so an nftables rule that matches it
(``socket cgroupv2``) drops that service's packets and nobody else's, to
any address: the RabbitMQ nodes in their namespaces, heat-api on
127.0.0.1.

:func:`cut` drops, silently (no reset, no ICMP error: as a firewall's
DROP or a dead link), what the services send to some endpoints
(``out``), what the endpoints send them (``in``), or both; :func:`heal`
removes every cut of the cloud (its table ``inet pe<tag>cut``).
:func:`down` (``ha down``) also removes the cgroups.

nft looks a cgroup path up under ``/sys/fs/cgroup`` only; where cgroup v2
is mounted elsewhere (the hybrid layout, ``/sys/fs/cgroup/unified``) nft
runs in a private mount namespace with it mounted there (``unshare -m``).
"""

import os
import pathlib
import shutil
import subprocess

from minicloud import netns
from minicloud import settings as mc_settings

ENV = mc_settings.PREFIX + 'HA_FIREWALL'
NFT_CGROUP_ROOT = pathlib.Path('/sys/fs/cgroup')
DIRECTIONS = ('both', 'out', 'in')


def cgroup_root() -> pathlib.Path | None:
    """Where cgroup v2 is mounted, if anywhere."""
    try:
        mounts = pathlib.Path('/proc/mounts').read_text().splitlines()
    except OSError:
        return None
    for line in mounts:
        fields = line.split()
        if len(fields) > 2 and fields[2] == 'cgroup2':
            return pathlib.Path(fields[1])
    return None


def available() -> bool:
    """Whether services can be put in cgroups and their packets dropped
    (``PLACEMENT_EXT_MINICLOUD_HA_FIREWALL=0`` says never)."""
    if os.environ.get(ENV, 'auto').strip() == '0':
        return False
    return (os.geteuid() == 0 and cgroup_root() is not None
            and all(shutil.which(tool) for tool in ('nft', 'unshare')))


def cgroup(s: mc_settings.Settings, name: str) -> str:
    """The cgroup (relative to the cgroup v2 root) of HA service
    ``name`` (``ha-manager2``)."""
    return f'pe{netns.tag_of(s)}-{name}'


def table(s: mc_settings.Settings) -> str:
    return f'pe{netns.tag_of(s)}cut'


def wrap(s: mc_settings.Settings, name: str, argv: list[str]) -> list[str]:
    """``argv`` started in ``name``'s own cgroup (the same pid: the
    shell joins the cgroup, then execs); ``argv`` as it is without
    :func:`available`."""
    root = cgroup_root()
    if not available() or root is None:
        return argv
    folder = root / cgroup(s, name)
    folder.mkdir(exist_ok=True)
    return ['sh', '-c', 'echo $$ > "$0" && exec "$@"',
            str(folder / 'cgroup.procs'), *argv]


def in_own_cgroup(s: mc_settings.Settings, name: str, pid: int) -> bool:
    """Whether ``pid`` runs in ``name``'s cgroup (started by
    :func:`wrap`)."""
    try:
        lines = pathlib.Path(f'/proc/{pid}/cgroup').read_text().splitlines()
    except OSError:
        return False
    return f'0::/{cgroup(s, name)}' in lines


def _nft(script: str) -> None:
    """Run an nft script (cgroup paths resolved as nft expects)."""
    root = cgroup_root()
    argv = ['nft', '-f', '-']
    if root is not None and root != NFT_CGROUP_ROOT:
        argv = ['unshare', '-m', 'sh', '-c',
                'mount --bind "$0" /sys/fs/cgroup && exec nft -f -',
                str(root)]
    subprocess.run(argv, input=script, text=True, check=True,
                   capture_output=True, timeout=30)


def cut(s: mc_settings.Settings, names: list[str],
        endpoints: list[tuple[str, int]], direction: str = 'both') -> None:
    """Drop the TCP packets between the HA services ``names`` and
    ``endpoints`` (address, port): ``out`` those the services send,
    ``in`` those they are sent, ``both``. Their other links stay."""
    if direction not in DIRECTIONS:
        raise ValueError(f'direction: {direction!r} is none of '
                         f'{", ".join(DIRECTIONS)}')
    name = table(s)
    lines = [f'table inet {name} {{',
             '  chain out { type filter hook output priority 0; }',
             '  chain in { type filter hook input priority 0; }',
             '}']
    for service in names:
        match = f'socket cgroupv2 level 1 "{cgroup(s, service)}"'
        for address, port in endpoints:
            if direction in ('both', 'out'):
                lines.append(f'add rule inet {name} out {match} '
                             f'ip daddr {address} tcp dport {port} drop')
            if direction in ('both', 'in'):
                lines.append(f'add rule inet {name} in {match} '
                             f'ip saddr {address} tcp sport {port} drop')
    _nft('\n'.join(lines) + '\n')


def heal(s: mc_settings.Settings) -> None:
    """Remove every cut of this cloud (nothing if none)."""
    subprocess.run(['nft', 'delete', 'table', 'inet', table(s)],
                   capture_output=True, timeout=30, check=False)


def down(s: mc_settings.Settings) -> None:
    """Heal, and remove the services' cgroups (once they are empty)."""
    if not shutil.which('nft'):
        return
    heal(s)
    root = cgroup_root()
    if root is None:
        return
    for folder in root.glob(f'pe{netns.tag_of(s)}-ha-*'):
        try:
            folder.rmdir()
        except OSError:
            pass                # a process still in it: left as it is
