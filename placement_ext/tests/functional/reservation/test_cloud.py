"""Instance reservations on the embedded cloud: real Nova (api,
scheduler with ReservationFilter, computes), real Placement, Keystone.

The pool is the two hosts of the cloud's last zone. The default hosts
have 2 vCPU; for six one-vCPU instances on two hosts the test raises
their VCPU allocation ratio to 2.0 in Placement (nova-compute keeps a
ratio set through Placement when ``cpu_allocation_ratio`` is unset) and
puts 1.0 back afterwards. The manager runs in the test process, on a
database of its own, with the cloud's admin credentials.

The cloud must run ReservationFilter (see ``etc/nova/
placement-ext-scheduler.conf``): bring it up with
``PLACEMENT_EXT_MINICLOUD_NOVA_CONF=$PWD/etc/nova/placement-ext-scheduler.conf
PLACEMENT_EXT_MINICLOUD_PYTHONPATH=$PWD``; otherwise these tests skip
(fail in CI). ``./run tests`` also adds ``nova-test.conf`` (in
``placement_ext/tests/functional``): nova-compute refreshes its provider
cache every 20 s, so the test of a host deleted under a compute that
cached its reservation provider waits 21 s instead of 5 minutes.
"""

import datetime
import io
import json
import os
import pathlib
import re
import time

import fixtures
import testtools

from placement_ext import conf as pe_conf
from placement_ext.cli import shell
from placement_ext.db import models
from placement_ext.drivers.placement import client as pclient
from placement_ext.manager import reservations
from placement_ext.objects import lease as lease_obj
from placement_ext.testing import cloud_config
from placement_ext.tests import backends
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.reservation import base as res_base
from placement_ext.tests.unit.rpc import base as rpc_base
from placement_ext.vocabulary import reservation_names as names
from placement_ext.vocabulary import states

FILTER = 'ReservationFilter'
RATIO = 2.0
NO_VALID_HOST = 'No valid host was found'
V = (1, 39)


def filter_loaded(status: dict) -> bool:
    """Whether the cloud's nova-scheduler was configured with our filter."""
    base = pathlib.Path(status['base'])
    try:
        settings = json.loads((base / 'settings.json').read_text())
    except (OSError, ValueError):
        return False
    for index in range(1, len(settings.get('nova_extra_conf', [])) + 1):
        extra = base / 'etc' / 'nova' / f'extra-{index}.conf'
        if extra.exists() and FILTER in extra.read_text():
            return True
    return False


def compute_cache_refresh(status: dict) -> int:
    """nova-compute's ``[compute] resource_provider_association_refresh``
    in the cloud's extra nova config files (Nova's default otherwise)."""
    base = pathlib.Path(status['base']) / 'etc' / 'nova'
    seconds = 300
    for extra in sorted(base.glob('extra-*.conf')):
        match = re.search(r'^resource_provider_association_refresh\s*=\s*'
                          r'(\d+)', extra.read_text(), re.MULTILINE)
        if match:
            seconds = int(match.group(1))
    return seconds


class CloudReservationTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = cloud_fixture.use_cloud(self)
        if not filter_loaded(cloud_fixture.ensure_cloud()):
            reason = ('the embedded cloud runs without ReservationFilter; '
                      'bring it up with PLACEMENT_EXT_MINICLOUD_NOVA_CONF='
                      'etc/nova/placement-ext-scheduler.conf and '
                      'PLACEMENT_EXT_MINICLOUD_PYTHONPATH=<repo>')
            if backends.in_ci():
                self.fail(reason)
            self.skipTest(reason)
        self.zone = sorted(self.cloud.zones)[-1]
        self.pool = [h['host'] for h in self.cloud.zones[self.zone]][:2]
        if len(self.pool) < 2:
            self.skipTest(f'zone {self.zone} has fewer than two hosts')
        self.conf = self._conf()
        self.db = self.useFixture(db_fixture.Database(conf=self.conf)).db
        self.res = reservations.Reservations.from_conf(self.conf, self.db)
        self.res.events.clock = self.res.leases.clock = models.utcnow
        self.placement = pclient.PlacementClient.from_conf(self.conf)
        self.demo_project = self.cloud.demo.current_project_id
        self.addCleanup(self._clean)
        for host in self.pool:
            self._set_cpu_ratio(host, RATIO)
            self.addCleanup(self._set_cpu_ratio, host, 1.0)
            self.res.hosts.create(host)

    def _conf(self):
        self.config_file = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'placement_ext.conf')
        sections = cloud_config.service_sections(self.cloud.clouds_yaml,
                                                 'admin')
        sections['DEFAULT'] = {'state_path':
                               os.path.dirname(self.config_file)}
        sections['reservation'] = {'server_poll_interval': '0.5',
                                   'server_delete_timeout': '120'}
        cloud_config.write(self.config_file, sections)
        return pe_conf.new_conf(['--config-file', self.config_file])

    # -- set-up and clean-up ----------------------------------------------

    def _compute_rp(self, host):
        return self.res.placement.compute_node(host).uuid

    def _set_cpu_ratio(self, host, ratio):
        rp = self._compute_rp(host)
        body = self.placement.request(
            'GET', f'/resource_providers/{rp}/inventories', what='test',
            microversion=V).json()
        inventories = body['inventories']
        inventories['VCPU']['allocation_ratio'] = ratio
        self.placement.request(
            'PUT', f'/resource_providers/{rp}/inventories', what='test',
            microversion=V,
            json={'resource_provider_generation':
                  body['resource_provider_generation'],
                  'inventories': inventories})

    def _clean(self):
        """Leave nothing of ours in the shared cloud, even after a
        failure: leases (with their servers), hosts, then anything named
        like ours (reconcile with an empty database repairs orphans)."""
        for lease in lease_obj.list_leases(self.db):
            self.res.delete_lease(lease.id)
        for host in self.pool:
            try:
                self.res.hosts.delete(host)
            except Exception:   # noqa: BLE001 - reconcile below cleans
                pass
        report = self.res.reconciler.run(repair=True)
        left = [f for f in report['findings'] if not f.get('repaired')]
        self.assertEqual([], left)

    # -- helpers -----------------------------------------------------------

    def create_lease(self, amount, affinity, hours=1, vcpus=1,
                     memory_mb=1024):
        end = models.utcnow().replace(microsecond=0) + \
            datetime.timedelta(hours=hours)
        lease = self.res.leases.create(
            {'name': cloud_fixture.unique_name('lease'), 'start_date': 'now',
             'end_date': end.isoformat(),
             'reservations': [{
                 'resource_type': 'virtual:instance', 'amount': amount,
                 'vcpus': vcpus, 'memory_mb': memory_mb, 'disk_gb': 1,
                 'affinity': affinity}]},
            self.demo_project, 'demo')
        outcomes = self.res.events.run_due()
        self.assertEqual([('start_lease', 'done')],
                         [(o.event_type, o.result) for o in outcomes])
        return lease_obj.get(self.db, lease.id)

    def boot(self, flavor_id, conn=None, zone=None):
        conn = conn or self.cloud.demo
        image = conn.image.find_image(cloud_fixture.IMAGE,
                                      ignore_missing=False)
        attrs = {'name': cloud_fixture.unique_name('res'),
                 'image_id': image.id, 'flavor_id': flavor_id,
                 'networks': 'none'}
        if zone:
            attrs['availability_zone'] = zone
        return conn.compute.create_server(**attrs)

    def boot_all(self, flavor_id, count, conn=None, zone=None):
        """Boot ``count`` servers one after the other (each waited for,
        so the scheduler sees the previous claims)."""
        return [self.cloud.wait_server(conn or self.cloud.demo,
                                       self.boot(flavor_id, conn, zone))
                for _ in range(count)]

    def faults(self, servers):
        """Why each server in ERROR failed, for a status assertion: Nova's
        fault, and what the compute logs say of its builds (a fault
        "Exhausted all hosts ..." hides the build failures behind it)."""
        log_dir = pathlib.Path(cloud_fixture.ensure_cloud()['base']) / 'log'
        failed = [s for s in servers if s.status == 'ERROR']
        lines = [f'{s.id}: {(s.fault or {}).get("message")}' for s in failed]
        for path in sorted(log_dir.glob('nova-compute-*.log')):
            with open(path, encoding='utf-8', errors='replace') as log:
                lines += [f'{path.name}: {line.rstrip()}' for line in log
                          if any(s.id in line for s in failed)
                          and (' ERROR ' in line or ' WARNING ' in line)]
        return '\n'.join(lines)

    def delete_servers(self, servers):
        admin = self.cloud.admin.compute
        for server in servers:
            admin.delete_server(server, ignore_missing=True)
        for server in servers:
            admin.wait_for_delete(server, wait=120)

    def hosts_of(self, servers):
        admin = self.cloud.admin
        return [admin.compute.get_server(s.id).compute_host for s in servers]

    def end_lease_now(self, lease):
        res_base.end_now(self.db, lease.id)
        outcomes = self.res.events.run_due()
        self.assertEqual([('end_lease', 'done')],
                         [(o.event_type, o.result) for o in outcomes])

    def assert_gone(self, lease, servers):
        res = lease.reservations[0]
        admin = self.cloud.admin
        for server in servers:
            self.assertIsNone(admin.compute.find_server(
                server.id, ignore_missing=True, all_projects=True))
        self.assertIsNone(admin.compute.find_flavor(res.flavor_id,
                                                    ignore_missing=True))
        self.assertNotIn(res.resource_class,
                         self.res.placement.reservation_classes())
        for host in self.pool:
            provider = self.res.placement.reservation_provider(host)
            _gen, inventories = self.res.placement.inventories(provider.uuid)
            self.assertEqual({}, {rc: i for rc, i in inventories.items()
                                  if names.reservation_for_resource_class(
                                      rc)})


class TestReservationsOnCloud(CloudReservationTestCase):

    def test_six_instances_on_two_hosts_with_no_affinity(self):
        lease = self.create_lease(amount=6, affinity=None)
        res = lease.reservations[0]
        self.assertEqual({self.pool[0]: 4, self.pool[1]: 2} if
                         res.slots_by_host.get(self.pool[0]) == 4 else
                         {self.pool[0]: 2, self.pool[1]: 4},
                         res.slots_by_host)
        servers = self.boot_all(res.flavor_id, 6)
        self.assertEqual(['ACTIVE'] * 6, [s.status for s in servers],
                         self.faults(servers))
        placed = self.hosts_of(servers)
        self.assertEqual(res.slots_by_host,
                         {h: placed.count(h) for h in set(placed)})
        # the seventh has no reserved unit left
        seventh = self.boot_all(res.flavor_id, 1)[0]
        self.assertEqual('ERROR', seventh.status)
        self.assertIn(NO_VALID_HOST, seventh.fault['message'])
        # an ordinary flavor cannot use the reserved hosts' free capacity
        # (Placement has room for it there), whether it names their zone
        # or not: ReservationFilter keeps it off the free pool
        ordinary = self.cloud.admin.compute.find_flavor(
            cloud_fixture.FLAVOR, ignore_missing=False)
        room = sum(self.res.placement.driver.capacity_on_host(
            self._compute_rp(host),
            {'VCPU': ordinary.vcpus, 'MEMORY_MB': ordinary.ram,
             'DISK_GB': ordinary.disk}) for host in self.pool)
        self.assertGreaterEqual(room, 1)
        refused = self.boot_all(ordinary.id, 1, self.cloud.admin,
                                zone=self.zone)[0]
        self.assertEqual('ERROR', refused.status)
        self.assertIn(NO_VALID_HOST, refused.fault['message'])
        elsewhere = self.boot_all(ordinary.id, 3, self.cloud.admin)
        self.assertEqual(['ACTIVE'] * 3, [s.status for s in elsewhere],
                         self.faults(elsewhere))
        self.assertEqual([], [h for h in self.hosts_of(elsewhere)
                              if h in self.pool])
        self.cloud.admin.compute.delete_server(seventh)
        self.cloud.admin.compute.delete_server(refused)
        # end: servers, inventories, class and flavor all go
        self.end_lease_now(lease)
        self.assert_gone(lease, servers)
        self.assertEqual(states.LEASE_TERMINATED,
                         lease_obj.get(self.db, lease.id).status)

    def test_host_deleted_under_a_caching_compute_still_builds(self):
        """nova-compute caches the host's reservation provider; right
        after ``host delete`` the host must still build (a deleted cached
        provider failed every build there until the cache's next
        refresh)."""
        refresh = compute_cache_refresh(cloud_fixture.ensure_cloud())
        if refresh > 60:
            self.skipTest(f'nova-compute refreshes its provider cache every '
                          f'{refresh} s; the test waits for one refresh, '
                          f'60 s at most')
        host = self.pool[0]
        ordinary = self.cloud.admin.compute.find_flavor(
            cloud_fixture.FLAVOR, ignore_missing=False)

        def boot_on_host():
            # a forced host skips the filters, ReservationFilter included
            return self.boot_all(ordinary.id, 1, self.cloud.admin,
                                 zone=f'{self.zone}:{host}')[0]

        # the first build after the cache went stale caches the whole
        # tree, the reservation provider included. The sleep is the
        # condition, not a guess at it: staleness is nova-compute's own
        # clock (``refresh`` seconds since its last refresh), which no
        # row or API shows, so one refresh period is waited out
        time.sleep(refresh + 1)
        self.delete_servers([boot_on_host()])
        self.res.hosts.delete(host)
        # until the next refresh, every build reads the allocations of
        # each cached provider
        servers = [boot_on_host(), boot_on_host()]
        self.addCleanup(self.delete_servers, servers)
        self.assertEqual(['ACTIVE', 'ACTIVE'], [s.status for s in servers],
                         self.faults(servers))

    def test_affinity_true_on_one_host(self):
        lease = self.create_lease(amount=4, affinity=True)
        res = lease.reservations[0]
        self.assertEqual(1, len(res.slots_by_host))
        servers = self.boot_all(res.flavor_id, 5)
        self.assertEqual(['ACTIVE'] * 4 + ['ERROR'],
                         [s.status for s in servers], self.faults(servers))
        self.assertEqual(set(res.slots_by_host),
                         set(self.hosts_of(servers[:4])))
        self.end_lease_now(lease)
        self.assert_gone(lease, servers[:4])

    def test_affinity_false_on_distinct_hosts(self):
        lease = self.create_lease(amount=2, affinity=False)
        res = lease.reservations[0]
        self.assertEqual({h: 1 for h in self.pool}, res.slots_by_host)
        servers = self.boot_all(res.flavor_id, 3)
        self.assertEqual(['ACTIVE', 'ACTIVE', 'ERROR'],
                         [s.status for s in servers], self.faults(servers))
        self.assertEqual(sorted(self.pool),
                         sorted(self.hosts_of(servers[:2])))
        # deleting the lease ends it at once
        self.res.delete_lease(lease.id)
        self.assert_gone(lease, servers[:2])

    def test_end_interrupted_converges(self):
        lease = self.create_lease(amount=3, affinity=None)
        servers = self.boot_all(lease.reservations[0].flavor_id, 3)
        self.assertEqual(['ACTIVE'] * 3, [s.status for s in servers],
                         self.faults(servers))
        placement = self.res.placement
        original = placement.delete_resource_class

        def fail(name):
            raise RuntimeError('manager stopped here')
        placement.delete_resource_class = fail
        res_base.end_now(self.db, lease.id)
        self.assertEqual(['failed'],
                         [o.result for o in self.res.events.run_due()])
        placement.delete_resource_class = original
        # servers and inventories are gone already; the retry finishes
        self.assertEqual(['done'],
                         [o.result for o in self.res.events.run_due()])
        self.assert_gone(lease, servers)

    def test_cli_round_trip(self):
        """The operator CLI (embedded fake:// manager) on the same cloud
        and database: python-blazarclient-style commands, -f json."""
        database_conf = os.path.join(os.path.dirname(self.config_file),
                                     'database.conf')
        cloud_config.write(database_conf, {'database': {
            'connection': self.conf.database.connection}})

        self.useFixture(rpc_base.KeepLogging(shell._SERVICE_LOGGERS))

        def cli(*argv):
            out = io.StringIO()
            with fixtures.MonkeyPatch('sys.stdout', out):
                status = shell.main(['--config-file', self.config_file,
                                     '--config-file', database_conf, *argv])
            return status, out.getvalue()

        status, out = cli('host', 'list', '-f', 'json')
        self.assertEqual(0, status)
        self.assertEqual(sorted(self.pool), sorted(
            h['hypervisor_hostname'] for h in json.loads(out)))
        status, out = cli(
            'lease', 'create', 'cli-lease', '--project-id',
            self.demo_project, '--reservation',
            'resource_type=virtual:instance,amount=2,vcpus=1,'
            'memory_mb=1024,disk_gb=1,affinity=False', '-f', 'json')
        self.assertEqual(0, status)
        lease = json.loads(out)
        self.assertEqual({h: 1 for h in self.pool},
                         lease['reservations'][0]['allocations'])
        status, out = cli('lease', 'reconcile', '-f', 'json')
        self.assertEqual((0, []), (status, json.loads(out)))
        self.assertEqual(0, cli('lease', 'delete', 'cli-lease')[0])
        status, out = cli('lease', 'list', '-f', 'json')
        self.assertEqual((0, []), (status, json.loads(out)))
        self.assertIsNone(self.cloud.admin.compute.find_flavor(
            lease['reservations'][0]['flavor_id'], ignore_missing=True))
