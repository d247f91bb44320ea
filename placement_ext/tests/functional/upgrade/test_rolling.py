"""Grenade-style rolling upgrade of our services from the previous
release (``releasenotes/releases.txt``, built by
``tools/previous_release.py``) on the HA topology (``minicloud ha``:
two controllers, each with a ``placement-ext-manager`` and a
``placement-ext-conductor``, Galera and RabbitMQ clusters).

The topology is brought up on the previous release; leases are created
in each state (PENDING, ACTIVE, one that ends and one that starts while
the upgrade runs); then the steps of doc/source/upgrade.rst, one
service at a time while the other controller's serves: ``db expand``,
each service restarted on this tree's code, ``db contract`` refused
while an old one is live, ``db migrate``, ``db contract``. Afterwards
every lease is checked (none lost, each in its state, none stuck, no
host overbooked, Placement agrees: ``reconcile`` finds nothing) and
operated on (deleted, a new one created, the 1.10 status filter). Each
API is pinged every half second throughout; the longest time without
an answer is reported (and bounded).

Between 1.0.0 and this tree: the expand and contract revisions of
``leases.status_changed_at`` (and expand-only tables since), the online
data migration
that fills it, and the manager's RPC API 1.10; so the two releases'
schemas and APIs differ, which is what the upgrade has to carry.

The topology is taken down at the end (the next HA test brings up a
fresh one on this tree's code). About 4 minutes (210 s here): tox -e upgrade.
"""

import datetime
import os
import subprocess
import sys
import threading
import time

import sqlalchemy as sa
import testtools
import testtools.content

from placement_ext import configuration
from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import polling
from placement_ext import rpc
from placement_ext.conductor import rpcapi as conductor_rpcapi
from placement_ext.db import migration
from placement_ext.manager import rpcapi as manager_rpcapi
from placement_ext.tests import backends
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.ha import fixture as ha_fixture

REPO = cloud_fixture.REPO
OLD_VENV = REPO / '.upgrade-venv'
NEW_BIN = REPO / '.venv' / 'bin'
HA_UP_TIMEOUT = 900
# where 1.0.0 left the contract branch (its last revision)
CONTRACT_1_0 = 'c0417ac7b001'
# every lease reaches its state within this
BOUND = 240
# the longest an API may go without answering while a service restarts
MAX_UNAVAILABLE = 30
ORDER = ('manager1', 'conductor1', 'manager2', 'conductor2')


def _iso(when: datetime.datetime) -> str:
    return when.strftime('%Y-%m-%dT%H:%M:%S')


class Prober(threading.Thread):
    """Ping one API every half second; the longest time between two
    answers while it runs."""

    def __init__(self, name: str, ping) -> None:
        super().__init__(name=f'probe-{name}', daemon=True)
        self.ping = ping
        self.stopping = threading.Event()
        self.answers: list[float] = []
        self.failures = 0

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self.ping()
                self.answers.append(time.monotonic())
            except (exception.ServiceUnavailable, exception.ServiceError):
                self.failures += 1
            self.stopping.wait(0.5)

    def longest_gap(self) -> float:
        stamps = self.answers
        return max((b - a for a, b in zip(stamps, stamps[1:], strict=False)),
                   default=0.0)


class TestRollingUpgrade(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = cloud_fixture.use_cloud(self)
        self.s = ha_fixture.settings()
        self._previous_release_topology()
        self.config = self.status['config_files'][0]
        conf = configuration.load_config([], default_config_files=[
            self.config])
        # the pins the docs set before the first service is upgraded
        conf.set_override('manager', 'auto', 'upgrade_levels')
        conf.set_override('conductor', 'auto', 'upgrade_levels')
        self.conf = conf
        self.transport = rpc.get_transport(conf)
        self.addCleanup(self.transport.cleanup)
        self.context = pe_context.get_admin_context(conf)
        self.db = ha_fixture.new_database(self.status['galera_urls'][0])
        self.addCleanup(self.db.dispose)

    def _previous_release_topology(self) -> None:
        built = subprocess.run(
            [sys.executable, str(REPO / 'tools' / 'previous_release.py'),
             'venv', str(OLD_VENV)], capture_output=True, text=True,
            timeout=900)
        self.assertEqual(0, built.returncode, built.stderr[-3000:])
        self.release = built.stdout.strip().rsplit(' ', 1)[-1]
        cloud_fixture.run_minicloud('ha', 'down', timeout=300)
        # taken down at the end: the next HA test starts a fresh one
        self.addCleanup(cloud_fixture.run_minicloud, 'ha', 'down',
                        timeout=300)
        up = subprocess.run(
            [str(cloud_fixture.MINICLOUD), 'ha', 'up'], capture_output=True,
            text=True, timeout=HA_UP_TIMEOUT,
            env={**os.environ,
                 'PLACEMENT_EXT_MINICLOUD_HA_VENV': str(OLD_VENV)})
        if up.returncode != 0:
            reason = ('minicloud ha up on the previous release failed:\n' +
                      '\n'.join((up.stdout + up.stderr).splitlines()[-30:]))
            if backends.in_ci():
                self.fail(reason)
            self.skipTest(reason)
        self.status = ha_fixture.ha_status()

    # -- helpers -------------------------------------------------------------

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [str(NEW_BIN / 'placement-ext-manage'), '--config-file',
             self.config, 'db', *args], capture_output=True, text=True,
            timeout=300)
        self.addDetail(f'db {" ".join(args)}', testtools.content.text_content(
            done.stdout + done.stderr))
        return done

    def services(self) -> dict[str, int]:
        with self.db.reader() as session:
            rows = session.execute(sa.text(
                'SELECT `binary`, host, version FROM services')).all()
        return {f'{b.rsplit("-", 1)[-1]}{h[-1]}': v for b, h, v in rows}

    def manager(self, cap: str | None = None) -> manager_rpcapi.ManagerAPI:
        return manager_rpcapi.ManagerAPI(self.conf, self.transport,
                                         version_cap=cap)

    def leases(self, api) -> dict[str, dict]:
        return {le['name']: le for le in api.list_leases(self.context)}

    def wait_status(self, api, name: str, status: str) -> dict:
        seen = []

        def reached():
            seen[:] = [self.leases(api).get(name)]
            return seen[0] if seen[0] and seen[0]['status'] == status \
                else None

        found = polling.until(reached, timeout=BOUND, interval=2)
        self.assertIsNotNone(found, f'{name} not {status}: {seen}')
        return found

    def create_lease(self, api, name: str, start: str, end: str) -> dict:
        return api.create_lease(self.context, {
            'name': name, 'start_date': start, 'end_date': end,
            'reservations': [{'resource_type': 'virtual:instance',
                              'amount': 1, 'vcpus': 1, 'memory_mb': 512,
                              'disk_gb': 1}]},
            project_id=self.cloud.demo.current_project_id, user_id='u')

    def assert_not_overbooked(self, leases: dict) -> None:
        vcpus = {host.name: host.vcpus for host in self.s.hosts}
        held: dict[str, int] = {}
        for lease in leases.values():
            if lease['status'] == 'TERMINATED':
                continue
            for res in lease['reservations']:
                for host, slots in res['allocations'].items():
                    held[host] = held.get(host, 0) + slots
        for host, slots in held.items():
            self.assertLessEqual(slots, vcpus[host], host)

    def restart_on_new_code(self, name: str) -> float:
        """Stop one service, start it on this tree's code; seconds until
        it recorded its new version."""
        start = time.monotonic()
        ha_fixture.procs.Proc(self.s.path(), f'ha-{name}').stop()
        ha_fixture.ha.start_service(self.s, f'ha-{name}')
        found = polling.until(
            lambda: True if self.services().get(name) == 2 else None,
            timeout=BOUND, interval=1)
        self.assertTrue(found, f'{name} did not record version 2: '
                               f'{self.services()}')
        return time.monotonic() - start

    # -- the test ------------------------------------------------------------

    def test_rolling_upgrade_from_the_previous_release(self):
        # each has recorded itself once it started
        polling.until(lambda: True if len(self.services()) == len(ORDER)
                      else None, timeout=BOUND, interval=1)
        self.assertEqual({name: 1 for name in ORDER}, self.services())
        old = self.manager()
        # auto: every live manager is version 1, so 1.9
        self.assertEqual('1.9', old.version_cap)
        hosts = [host.name for host in self.s.hosts]
        for host in hosts:
            old.create_host(self.context, host)
        # what earlier runs left in Placement (their database is gone
        # with the topology) is not this upgrade's
        old.reconcile(self.context, repair=True)
        now = datetime.datetime.now(datetime.timezone.utc).replace(
            tzinfo=None)
        self.create_lease(old, 'active', 'now', '2099-01-01 00:00')
        self.create_lease(old, 'pending', '2098-01-01 00:00',
                          '2099-01-01 00:00')
        # ends, and starts, while the upgrade runs
        self.create_lease(old, 'ending', 'now',
                          _iso(now + datetime.timedelta(seconds=90)))
        self.create_lease(old, 'starting',
                          _iso(now + datetime.timedelta(seconds=120)),
                          '2099-01-01 00:00')
        self.wait_status(old, 'active', 'ACTIVE')
        self.wait_status(old, 'ending', 'ACTIVE')

        probes = {
            'manager': Prober('manager', lambda: self.manager('1.0').ping(
                self.context, timeout=5)),
            'conductor': Prober(
                'conductor', lambda: conductor_rpcapi.ConductorAPI(
                    self.conf, self.transport, version_cap='1.0').ping(
                    self.context, timeout=5)),
        }
        for probe in probes.values():
            probe.start()

        # 1. expand, the old services running
        done = self.manage('expand')
        self.assertEqual(0, done.returncode, done.stderr)
        status = self.manage('status').stdout
        heads = migration.heads()
        self.assertIn(f'expand: {heads["expand"]} (this release: '
                      f'{heads["expand"]}) current', status)
        self.assertIn(f'contract: {CONTRACT_1_0} (this release: '
                      f'{heads["contract"]}) behind', status)
        # 2. one service at a time on the new code
        restarts = {}
        for name in ORDER:
            restarts[name] = self.restart_on_new_code(name)
            if name == 'manager1':
                refused = self.manage('contract')
                self.assertEqual(1, refused.returncode)
                self.assertIn('placement-ext-manager on controller2 '
                              '(version 1)', refused.stderr)
        # 3. online data migrations: the leases 1.0.0 wrote
        done = self.manage('migrate')
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertIn('lease_status_changed_at', done.stdout)
        # 4. contract
        done = self.manage('contract')
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertIn(f'contract: {heads["contract"]} (this release: '
                      f'{heads["contract"]}) current',
                      self.manage('status').stdout)
        for probe in probes.values():
            probe.stopping.set()
            probe.join()
        gaps = {name: round(probe.longest_gap(), 1)
                for name, probe in probes.items()}
        self.addDetail('longest unavailability (s)',
                       testtools.content.text_content(repr(gaps)))
        self.addDetail('restart seconds', testtools.content.text_content(
            repr({k: round(v, 1) for k, v in restarts.items()})))
        print(f'longest unavailability: {gaps}; restarts: {restarts}')

        self.check_every_resource()
        for name, gap in gaps.items():
            self.assertLess(gap, MAX_UNAVAILABLE, name)

    def check_every_resource(self) -> None:
        """On the new code with the pins gone: nothing lost, stuck or
        overbooked; each lease operated on."""
        hosts = [host.name for host in self.s.hosts]
        new = self.manager()
        self.assertIsNone(new.version_cap)
        self.assertEqual({'active', 'pending', 'ending', 'starting'},
                         set(self.leases(new)))
        self.wait_status(new, 'ending', 'TERMINATED')
        self.wait_status(new, 'starting', 'ACTIVE')
        leases = self.leases(new)
        self.assertEqual('ACTIVE', leases['active']['status'])
        self.assertEqual('PENDING', leases['pending']['status'])
        for lease in leases.values():
            self.assertIsNotNone(lease['status_changed_at'], lease['name'])
        self.assertEqual(['pending'], [le['name'] for le in new.list_leases(
            self.context, status='PENDING')])
        self.assert_not_overbooked(leases)
        self.assertEqual([], new.reconcile(self.context)['findings'])
        new.delete_lease(self.context, leases['pending']['id'])
        self.create_lease(new, 'after', 'now', '2099-01-01 00:00')
        self.wait_status(new, 'after', 'ACTIVE')
        for lease in self.leases(new).values():
            new.delete_lease(self.context, lease['id'])
        for host in hosts:
            new.delete_host(self.context, host)
