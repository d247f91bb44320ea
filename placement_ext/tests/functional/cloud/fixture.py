"""Test fixture for the embedded real OpenStack (tools/minicloud).

:func:`use_cloud` gives a test a :class:`MiniCloud`: a running cloud
(brought up once per test run if none is running; ``minicloud up`` locks,
so concurrent workers do not both start it), clean capacity (the stacks,
servers and server groups of earlier tests deleted, disabled computes
enabled again), openstacksdk connections for ``admin`` and ``demo``, and
helpers. The cloud is never restarted between tests. Tests of the cloud
hold an exclusive lock while they run, as they share its capacity.

No cloud (bring-up failed, or ``PLACEMENT_EXT_NO_CLOUD=1``): the test is
skipped with the reason; in CI (``CI=true``) it fails instead.
"""

import fcntl
import json
import os
import pathlib
import subprocess
import time
import unittest
import uuid

import fixtures
import openstack
from openstack import config as os_config
from openstack import exceptions as os_exc

from placement_ext.tests import backends

REPO = pathlib.Path(__file__).resolve().parents[4]
MINICLOUD = REPO / 'tools' / 'minicloud' / 'minicloud'
TEMPLATES = pathlib.Path(__file__).resolve().parent / 'templates'
FLAVOR = 'vdu.small'
IMAGE = 'cirros'
SERVER_TIMEOUT = 120
# heat-api can stall 10-30 s under CPU load; Heat's own retries (limit 5)
# take about 90 s per failed server
STACK_TIMEOUT = 600
UP_TIMEOUT = 900


class CloudUnavailable(Exception):
    """No cloud can be had; the message says why."""


_STATE: dict = {}   # per test process: the status, or why there is none


def run_minicloud(*args: str, timeout: float = 120,
                  env: dict[str, str] | None = None
                  ) -> subprocess.CompletedProcess:
    """``minicloud ARGS``; ``env``: variables set over this process's."""
    return subprocess.run([str(MINICLOUD), *args], capture_output=True,
                          text=True, timeout=timeout,
                          env={**os.environ, **env} if env else None)


def _status() -> dict:
    result = run_minicloud('status', '--json')
    try:
        return json.loads(result.stdout)
    except ValueError:
        raise CloudUnavailable(f'minicloud status failed: {result.stderr}')


def ensure_cloud(recheck: bool = False) -> dict:
    """The running cloud's status; brings it up once per process.

    ``recheck``: ask again even if this process saw it healthy (someone
    may have taken it down between two tests); brings it up if needed.
    """
    if 'error' in _STATE:
        raise CloudUnavailable(_STATE['error'])
    if 'status' in _STATE and not recheck:
        return _STATE['status']
    try:
        if os.environ.get('PLACEMENT_EXT_NO_CLOUD') == '1':
            raise CloudUnavailable('PLACEMENT_EXT_NO_CLOUD=1')
        status = _status()
        if not status['healthy']:
            up = run_minicloud('up', timeout=UP_TIMEOUT)
            if up.returncode != 0:
                tail = '\n'.join((up.stdout + up.stderr).splitlines()[-30:])
                raise CloudUnavailable(f'minicloud up failed:\n{tail}')
            status = _status()
            if not status['healthy']:
                raise CloudUnavailable('minicloud is up but not healthy: '
                                       'see "tools/minicloud/minicloud '
                                       'status"')
    except (CloudUnavailable, OSError, subprocess.TimeoutExpired) as exc:
        _STATE['error'] = str(exc)
        raise CloudUnavailable(str(exc))
    _STATE['status'] = status
    return status


ADDON_UP_TIMEOUT = 1200    # the first run pip-installs the addon's venv


def ensure_addon(name: str) -> dict:
    """Start addon ``name`` (``minicloud addon up``) once per process.

    Returns ``minicloud addon status NAME``: its ports, URLs, venv and
    config folder. The cloud must be up (:func:`ensure_cloud`).
    """
    key = f'addon:{name}'
    if key in _STATE:
        return _STATE[key]
    up = run_minicloud('addon', 'up', name, timeout=ADDON_UP_TIMEOUT)
    if up.returncode != 0:
        tail = '\n'.join((up.stdout + up.stderr).splitlines()[-30:])
        raise CloudUnavailable(f'minicloud addon up {name} failed:\n{tail}')
    status = json.loads(run_minicloud('addon', 'status', name).stdout)
    _STATE[key] = status
    return status


def use_addon(test: unittest.TestCase, name: str) -> dict:
    """Like :func:`use_cloud`, plus addon ``name`` running on the cloud.

    The addon starts first: the connections of :class:`MiniCloud` are
    made afterwards, so their catalog holds the addon's endpoints.
    """
    try:
        ensure_cloud()
        status = ensure_addon(name)
    except (CloudUnavailable, OSError, ValueError,
            subprocess.TimeoutExpired) as exc:
        reason = f'no {name} on the embedded cloud: {exc}'
        if backends.in_ci():
            test.fail(reason)
        test.skipTest(reason)
    return {'cloud': use_cloud(test), **status}


def use_cloud(test: unittest.TestCase) -> 'MiniCloud':
    """Set up a MiniCloud for ``test``, or skip (fail in CI) without one."""
    try:
        ensure_cloud()
    except CloudUnavailable as exc:
        reason = f'no embedded cloud: {exc}'
        if backends.in_ci():
            test.fail(f'{reason}; CI must run the cloud tests')
        test.skipTest(reason)
    return test.useFixture(MiniCloud())


def connect(clouds_yaml: str, cloud: str) -> openstack.connection.Connection:
    config = os_config.OpenStackConfig(config_files=[clouds_yaml])
    return openstack.connection.Connection(config=config.get_one(cloud))


def unique_name(prefix: str) -> str:
    return f'{prefix}-{uuid.uuid4().hex[:8]}'


def _server_side_error(exc: os_exc.HttpException) -> bool:
    # heat-api answers 500 when its RPC call to a busy heat-engine times
    # out (seen while the engine backs off between action retries)
    return exc.status_code is not None and exc.status_code >= 500


def template(name: str) -> str:
    return (TEMPLATES / name).read_text()


class MiniCloud(fixtures.Fixture):
    """The embedded cloud, clean for one test.

    :ivar admin: openstacksdk connection as admin (project admin)
    :ivar demo: openstacksdk connection as demo (member, heat_stack_owner)
    :ivar clouds_yaml: path of the cloud's clouds.yaml
    :ivar zones: zone name -> list of {host, vcpus, memory_mb, disk_gb}
    """

    def _setUp(self) -> None:
        self._lock_tests(pathlib.Path(ensure_cloud()['base']))
        # under the lock nobody takes the cloud down: is it still there?
        status = ensure_cloud(recheck=True)
        self.clouds_yaml = status['clouds_yaml']
        self.zones = status['zones']
        self.allocation_ratio = status.get('allocation_ratio', 1.0)
        self.admin = connect(self.clouds_yaml, 'admin')
        self.demo = connect(self.clouds_yaml, 'demo')
        self.addCleanup(self.free_capacity)
        self.free_capacity()

    def _lock_tests(self, base: pathlib.Path) -> None:
        # the same file "minicloud down" waits for
        base.mkdir(parents=True, exist_ok=True)
        lock = open(base / 'tests.lock', 'a')
        fcntl.flock(lock, fcntl.LOCK_EX)
        self.addCleanup(lock.close)

    # -- clean capacity ---------------------------------------------------

    def free_capacity(self) -> None:
        """Delete every stack, server and server group; enable computes."""
        for conn in (self.demo, self.admin):
            stacks = list(conn.orchestration.stacks())
            for stack in stacks:
                conn.orchestration.delete_stack(stack)
            for stack in stacks:
                self._wait_stack_gone(conn, stack.id)
        servers = list(self.admin.compute.servers(all_projects=True))
        for server in servers:
            self.admin.compute.delete_server(server)
        for server in servers:
            self.admin.compute.wait_for_delete(server, interval=0.5,
                                               wait=SERVER_TIMEOUT)
        for group in self.admin.compute.server_groups(all_projects=True):
            self.admin.compute.delete_server_group(group)
        for svc in self.admin.compute.services(binary='nova-compute'):
            if svc.status == 'disabled':
                self.admin.compute.enable_service(svc)

    def _wait_stack_gone(self, conn, stack_id: str) -> None:
        deadline = time.monotonic() + STACK_TIMEOUT
        while time.monotonic() < deadline:
            try:
                stack = conn.orchestration.get_stack(stack_id)
            except os_exc.NotFoundException:
                return
            except os_exc.HttpException as exc:
                if not _server_side_error(exc):
                    raise
                continue
            if stack.status == 'DELETE_COMPLETE':
                return
            if stack.status == 'DELETE_FAILED':
                conn.orchestration.delete_stack(stack)
            time.sleep(1)
        raise TimeoutError(f'stack {stack_id} not deleted')

    # -- servers ----------------------------------------------------------

    def boot_server(self, zone: str, conn=None, name: str | None = None,
                    group: str | None = None, wait: bool = True):
        """Boot a ``vdu.small`` server in ``zone``; wait for ACTIVE/ERROR."""
        conn = conn or self.admin
        image = conn.image.find_image(IMAGE, ignore_missing=False)
        flavor = conn.compute.find_flavor(FLAVOR, ignore_missing=False)
        attrs = {'name': name or unique_name('srv'), 'image_id': image.id,
                 'flavor_id': flavor.id, 'networks': 'none',
                 'availability_zone': zone}
        if group:
            attrs['scheduler_hints'] = {'group': group}
        server = conn.compute.create_server(**attrs)
        return self.wait_server(conn, server) if wait else server

    def wait_server(self, conn, server):
        """Wait until the server is ACTIVE or ERROR; return it."""
        deadline = time.monotonic() + SERVER_TIMEOUT
        while time.monotonic() < deadline:
            server = conn.compute.get_server(server)
            if server.status in ('ACTIVE', 'ERROR'):
                return server
            time.sleep(0.5)
        raise TimeoutError(f'server {server.id} still {server.status}')

    def capacity(self, zone: str) -> int:
        """How many ``vdu.small`` servers fit in the empty ``zone``."""
        ratio = self.allocation_ratio
        flavor = self.admin.compute.find_flavor(FLAVOR, ignore_missing=False)
        return sum(min(int(h['vcpus'] * ratio) // flavor.vcpus,
                       int(h['memory_mb'] * ratio) // flavor.ram,
                       int(h['disk_gb'] * ratio) // flavor.disk)
                   for h in self.zones[zone])

    def fill_zone(self, zone: str) -> list:
        """Boot ``vdu.small`` servers (as admin) until ``zone`` is full.

        Boots the expected capacity at once, then one by one until Nova
        refuses one ("No valid host"); that refused server is deleted.
        Returns the ACTIVE servers, which free_capacity deletes.
        """
        batch = [self.boot_server(zone, wait=False)
                 for _ in range(self.capacity(zone))]
        servers = [self.wait_server(self.admin, s) for s in batch]
        while not any(s.status == 'ERROR' for s in servers):
            servers.append(self.boot_server(zone))
        for s in servers:
            if s.status == 'ERROR':
                self.admin.compute.delete_server(s)
        return [s for s in servers if s.status == 'ACTIVE']

    # -- stacks -----------------------------------------------------------

    def create_stack(self, conn, template_name: str, parameters: dict,
                     files: tuple[str, ...] = ()):
        """Create a stack from templates/ and wait for it to settle."""
        stack = conn.orchestration.create_stack(
            name=unique_name('stack'), template=template(template_name),
            files={f: template(f) for f in files}, parameters=parameters)
        return self.wait_stack(conn, stack.id, action='CREATE')

    def update_stack(self, conn, stack, template_name: str,
                     parameters: dict, files: tuple[str, ...] = ()):
        """Update ``stack`` and wait for this update to settle."""
        before = conn.orchestration.get_stack(stack.id).updated_at
        conn.orchestration.update_stack(
            stack, template=template(template_name),
            files={f: template(f) for f in files}, parameters=parameters)
        return self.wait_stack(conn, stack.id, action='UPDATE',
                               changed_since=before)

    def wait_stack(self, conn, stack_id: str, action: str | None = None,
                   changed_since: str | None = None,
                   timeout: float = STACK_TIMEOUT):
        """Wait until the stack's ``action`` is no longer IN_PROGRESS.

        ``changed_since`` (the stack's updated_at before an update) makes
        sure the result is the new update's, not the previous action's.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                stack = conn.orchestration.get_stack(stack_id)
            except os_exc.HttpException as exc:
                if not _server_side_error(exc):
                    raise
                continue
            settled = not stack.status.endswith('IN_PROGRESS')
            right_action = action is None or stack.status.startswith(action)
            fresh = (changed_since is None
                     or stack.updated_at != changed_since)
            if settled and right_action and fresh:
                return stack
            time.sleep(0.5)
        raise TimeoutError(f'stack {stack_id} did not settle in {timeout}s')


class HeatRetries(fixtures.Fixture):
    """heat-engine with another ``action_retry_limit`` for one test.

    Restarts only heat-engine (about 10 s), and again on cleanup with
    the previous limit.
    """

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def _setUp(self) -> None:
        previous = ensure_cloud().get('heat_action_retry_limit', 0)
        self._set(self.limit)
        self.addCleanup(self._set, previous)

    @staticmethod
    def _set(limit: int) -> None:
        result = run_minicloud('heat-retries', str(limit), timeout=300)
        if result.returncode != 0:
            raise RuntimeError(f'minicloud heat-retries {limit} failed:\n'
                               f'{result.stdout}{result.stderr}')
