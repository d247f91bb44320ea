"""What each step needs of the cloud before it starts: what the step
before deleted gone (servers, their Placement allocations, stacks), and
room in the project's compute quota.

Nova deletes a server's allocations in Placement only after the server
itself is gone from its API, and counts a server against the quota
until it is deleted, ERROR or not: a step that starts as soon as the
API stops listing what the one before deleted may find the zone or the
quota still taken.
"""

import pathlib
import subprocess
import time
from collections.abc import Iterable

import openstack

from demo import steps
from placement_ext.testing import tacker_mgmt

MINICLOUD = pathlib.Path(__file__).resolve().parents[1] / 'tools' / \
    'minicloud' / 'minicloud'
GONE_TIMEOUT = 300      # seconds; generous: the machine is shared
# what one vdu.small takes of a project's compute quota
PER_INSTANCE = {'instances': 1, 'cores': 1, 'ram': 2048}


def minicloud(*args: str, timeout: float = 900) -> str:
    """``minicloud ARGS``' output; its last lines in the failure."""
    done = subprocess.run([str(MINICLOUD), *args], text=True,
                          capture_output=True, timeout=timeout, check=False)
    if done.returncode != 0:
        tail = ' | '.join((done.stdout + done.stderr).strip()
                          .splitlines()[-3:])
        raise steps.StepFailed(f'minicloud {" ".join(args)} exited '
                               f'{done.returncode}: {tail}')
    return done.stdout


def start_addons(names: Iterable[str], log: pathlib.Path) -> subprocess.Popen:
    """``minicloud addon up NAME`` for each name, one after the other, in
    the background (their output in ``log``): the steps that use them
    call ``addon up`` themselves, which waits for these (minicloud's
    lock) and then finds them up, or says why not."""
    script = '; '.join(f'"$0" addon up {name}' for name in names)
    with open(log, 'w') as out:
        return subprocess.Popen(['sh', '-c', script, str(MINICLOUD)],
                                stdout=out, stderr=subprocess.STDOUT)


def quota_to_set(limits: dict[str, int], used: dict[str, int],
                 need: dict[str, int]) -> dict[str, int]:
    """The quota values to set so that ``need`` more fit beside
    ``used``: only the resources that are short (a limit of -1 is none).
    """
    return {res: used.get(res, 0) + amount for res, amount in need.items()
            if limits.get(res, -1) >= 0
            and used.get(res, 0) + amount > limits[res]}


class Quota:
    """A project's compute quota: raised where a step needs it, given
    back as it was found by :meth:`restore`."""

    def __init__(self, conn: openstack.connection.Connection,
                 project: str) -> None:
        self._conn, self._name = conn, project
        self._id: str | None = None
        self._found: dict[str, int] = {}

    def _project_id(self) -> str:
        if self._id is None:
            self._id = self._conn.identity.find_project(
                self._name, ignore_missing=False).id
        return self._id

    def ensure(self, instances: int, why: str) -> None:
        """Room for ``instances`` more vdu.small; say so, and set the
        quota when there is not."""
        qs = self._conn.compute.get_quota_set(self._project_id(),
                                              usage=True)
        limits = {res: getattr(qs, res) for res in PER_INSTANCE}
        used = {res: (qs.usage or {}).get(res, 0) for res in PER_INSTANCE}
        need = {res: per * instances for res, per in PER_INSTANCE.items()}
        print(f"  project {self._name}: {used['instances']} "
              f"instance(s) of a quota of {_limit(limits['instances'])} "
              f"in use; this step needs {instances} more ({why})")
        change = quota_to_set(limits, used, need)
        if not change:
            return
        for res in change:
            self._found.setdefault(res, limits[res])
        self._conn.compute.update_quota_set(self._project_id(), **change)
        print(f'  quota of project {self._name} set: ' + ', '.join(
            f'{res} {limits[res]} -> {value}'
            for res, value in sorted(change.items())))

    def restore(self) -> None:
        if not self._found:
            return
        self._conn.compute.update_quota_set(self._project_id(), **self._found)
        print(f'  quota of project {self._name} given back: ' +
              ', '.join(f'{res} {value}'
                        for res, value in sorted(self._found.items())))
        self._found = {}


def _limit(value: int) -> str:
    return 'none' if value < 0 else str(value)


def stack_servers(conn: openstack.connection.Connection,
                  stack: object) -> list[str]:
    """The ids of the servers of ``stack``, nested ones included, and of
    those Heat named after it (a stack whose update failed need not list
    every server it made)."""
    found = {res['physical_resource_id']
             for res in tacker_mgmt.stack_resources(conn, stack)
             if res['resource_type'] == 'OS::Nova::Server'
             and res.get('physical_resource_id')}
    found.update(s.id for s in conn.compute.servers(all_projects=True)
                 if s.name.startswith(f'{stack.name}-'))
    return sorted(found)


def delete_stack(conn: openstack.connection.Connection, name: str,
                 servers: Iterable[str] = ()) -> None:
    """Delete stack ``name`` if there is one, and wait until it, its
    servers (and ``servers``: those it had, if it is already gone) and
    their allocations are gone."""
    stack = conn.orchestration.find_stack(name)
    servers = list(servers)
    if stack is not None:
        servers += stack_servers(conn, stack)
        conn.orchestration.delete_stack(stack)
    wait_gone(conn, sorted(set(servers)), [name] if stack else [],
              whose='' if stack else f'stack {name}')


def wait_gone(conn: openstack.connection.Connection,
              servers: Iterable[str], stacks: Iterable[str] = (),
              whose: str = '') -> None:
    """Wait until ``servers`` are gone from Nova and from Placement's
    allocations, and ``stacks`` from Heat; say so (``whose``: what the
    servers were)."""
    timeout = GONE_TIMEOUT
    servers, stacks = list(servers), list(stacks)
    deadline = time.monotonic() + timeout
    left = _left(conn, servers, stacks)
    while left:
        if time.monotonic() > deadline:
            raise steps.StepFailed(f'still there {timeout:.0f} s after '
                                   f'their delete: {", ".join(left)}')
        time.sleep(1)
        left = _left(conn, servers, stacks)
    if servers or stacks:
        print('  gone: ' + ', '.join(
            [f'stack {name}' for name in stacks] +
            ([f'{len(servers)} server(s){whose and " of " + whose} and '
              'their allocations'] if servers else [])), flush=True)


def _left(conn: openstack.connection.Connection, servers: list[str],
          stacks: list[str]) -> list[str]:
    listed = {s.id for s in conn.compute.servers(all_projects=True)}
    left = [f'server {sid}' for sid in servers if sid in listed]
    left += [f'allocations of server {sid}' for sid in servers
             if sid not in listed and conn.placement.get(
                 f'/allocations/{sid}').json()['allocations']]
    for name in stacks:
        stack = conn.orchestration.find_stack(name)
        if stack is not None and stack.status == 'DELETE_FAILED':
            raise steps.StepFailed(f'stack {name} DELETE_FAILED: '
                                   f'{stack.status_reason}')
        if stack is not None and stack.status != 'DELETE_COMPLETE':
            left.append(f'stack {name} ({stack.status})')
    return left
