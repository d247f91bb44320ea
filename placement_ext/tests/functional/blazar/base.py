"""The real blazar-api and blazar-manager (minicloud addon ``blazar``)
with our plugins, driven through python-blazarclient.

The pool is the two hosts of the cloud's last zone, enrolled through
Blazar (``host create``, our ``physical:host`` plugin) once for the test
class and deleted through it at its end: the ``blazar_<host>`` provider
stays, empty, and is reused by the next enrolment.
"""

import configparser
import contextlib
import datetime
import os
import pathlib
import signal
import time

import fixtures
import sqlalchemy as sa
import testtools
from blazarclient import client as blazar_client
from blazarclient import exception as blazar_exc

from placement_ext import conf as pe_conf
from placement_ext.drivers.placement import client as pclient
from placement_ext.manager import reservations
from placement_ext.testing import cloud_config
from placement_ext.tests import backends
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.reservation import test_cloud

TIMEOUT = 180
DATE = '%Y-%m-%d %H:%M'


class BlazarTestCase(testtools.TestCase):

    pool: list[str] = []
    # hosts of the zone a test class enrols in Blazar
    POOL_SIZE = 2

    def setUp(self):
        super().setUp()
        self.addon = self.use_blazar()
        self.cloud = self.addon['cloud']
        if not test_cloud.filter_loaded(cloud_fixture.ensure_cloud()):
            reason = 'the embedded cloud runs without ReservationFilter'
            if backends.in_ci():
                self.fail(reason)
            self.skipTest(reason)
        self.zone = sorted(self.cloud.zones)[-1]
        self.admin = self._client(self.cloud.admin)
        self.demo = self._client(self.cloud.demo)
        conf = self._conf()
        self.placement = pclient.PlacementClient.from_conf(conf)
        self.res = reservations.Reservations.from_conf(conf, None)
        self.blazar_db = sa.create_engine(self._blazar_url())
        self.addCleanup(self.blazar_db.dispose)
        if not BlazarTestCase.pool:
            self._enrol([h['host'] for h in self.cloud.zones[self.zone]]
                        [:self.POOL_SIZE])
        self.addCleanup(self._delete_leases)

    @classmethod
    def tearDownClass(cls):
        if cls.pool:
            cls._retire_pool()
        super().tearDownClass()

    # -- set-up ------------------------------------------------------------

    def use_blazar(self) -> dict:
        """The addon's status (``etc``, and ``cloud``: a MiniCloud)."""
        return cloud_fixture.use_addon(self, 'blazar')

    def _client(self, conn, **kwargs):
        return blazar_client.Client(
            session=conn.session, service_type='reservation',
            interface='public', region_name='RegionOne', **kwargs)

    def _conf(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'pe.conf')
        cloud_config.write(path, cloud_config.service_sections(
            self.cloud.clouds_yaml, 'admin'))
        return pe_conf.new_conf(['--config-file', path])

    def _blazar_url(self):
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(pathlib.Path(self.addon['etc']) / 'blazar.conf')
        return parser['database']['connection']

    def _enrol(self, hosts):
        """Enrol ``hosts`` in Blazar (the demo may have done it)."""
        known = {h['hypervisor_hostname'] for h in self.admin.host.list()}
        for host in hosts:
            if host not in known:
                self.admin.host.create(host)
        BlazarTestCase.pool = list(hosts)
        BlazarTestCase._admin = self.admin

    @classmethod
    def _retire_pool(cls):
        for host in cls._admin.host.list():
            if host['hypervisor_hostname'] in cls.pool:
                cls._admin.host.delete(host['id'])
        # the next test class enrols them again
        BlazarTestCase.pool = []

    def blazar_host(self, name):
        """Blazar's record of the host ``name``, or None."""
        return next((h for h in self.admin.host.list()
                     if h['hypervisor_hostname'] == name), None)

    def _delete_leases(self):
        for lease in self.admin.lease.list():
            self.admin.lease.delete(lease['id'])
        self.wait_for(lambda: not self.admin.lease.list(), 'leases deleted')

    # -- helpers -----------------------------------------------------------

    def wait_for(self, predicate, what, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(1)
        self.fail(f'{what}: not after {timeout} s')

    def lease_status(self, lease_id, status):
        return self.wait_for(
            lambda: self.admin.lease.get(lease_id)['status'] == status,
            f'lease {lease_id} {status}')

    def create_lease(self, name, amount, days_ahead=0, hours=1, client=None,
                     affinity='None', reservation=None):
        """A lease from now, or from ``days_ahead`` days ahead, of
        ``amount`` one-vCPU instances (or of ``reservation``)."""
        begin = datetime.datetime.utcnow() + datetime.timedelta(
            days=days_ahead)
        start = begin.strftime(DATE) if days_ahead else 'now'
        end = (begin + datetime.timedelta(hours=hours)).strftime(DATE)
        return (client or self.demo).lease.create(
            name, start, end, [reservation or {
                'resource_type': 'virtual:instance', 'amount': amount,
                'vcpus': 1, 'memory_mb': 512, 'disk_gb': 1,
                'affinity': affinity, 'resource_properties': ''}], [])

    def server(self, conn, flavor_id=None, zone=None, hints=None):
        """Boot one server (the cloud's small flavor by default), wait:
        (status, compute host, server); deleted at the test's end."""
        image = conn.image.find_image(cloud_fixture.IMAGE,
                                      ignore_missing=False)
        flavor_id = flavor_id or conn.compute.find_flavor(
            cloud_fixture.FLAVOR, ignore_missing=False).id
        attrs = {'name': cloud_fixture.unique_name('srv'),
                 'image_id': image.id, 'flavor_id': flavor_id,
                 'networks': 'none'}
        if zone:
            attrs['availability_zone'] = zone
        if hints:
            attrs['scheduler_hints'] = hints
        server = conn.compute.create_server(**attrs)
        self.addCleanup(self.cloud.admin.compute.delete_server, server,
                        ignore_missing=True)
        server = self.cloud.wait_server(conn, server)
        host = self.cloud.admin.compute.get_server(server.id).compute_host
        return server.status, host, server

    def move_event(self, lease_id, event_type):
        """Blazar runs the lease's ``start_lease`` or ``end_lease`` now."""
        self.blazar_sql(
            "UPDATE events SET time = UTC_TIMESTAMP() - INTERVAL 1 MINUTE "
            "WHERE lease_id = :l AND event_type = :t", l=lease_id,
            t=event_type)

    def expire(self, lease_id):
        """The lease ends now; wait for TERMINATED."""
        self.move_event(lease_id, 'end_lease')
        self.lease_status(lease_id, 'TERMINATED')

    def gone(self, server):
        return self.cloud.admin.compute.find_server(
            server.id, ignore_missing=True, all_projects=True) is None

    def refused(self, *args, **kwargs):
        return self.assertRaises(blazar_exc.BlazarClientException,
                                 self.create_lease, *args, **kwargs)

    def blazar_sql(self, sql, **params):
        with self.blazar_db.begin() as conn:
            return conn.execute(sa.text(sql), params).all() \
                if sql.lstrip().upper().startswith('SELECT') else \
                conn.execute(sa.text(sql), params)

    def pid(self, service):
        """A minicloud process's pid (the first field of its pid file)."""
        return int(pathlib.Path(self.cloud_base(), 'run',
                                f'{service}.pid').read_text().split()[0])

    def kill_manager(self):
        os.killpg(self.pid('blazar-manager'), signal.SIGKILL)

    def cloud_base(self):
        return cloud_fixture.ensure_cloud()['base']

    def restart_manager(self):
        result = cloud_fixture.run_minicloud('addon', 'restart', 'blazar',
                                             'blazar-manager')
        self.assertEqual(0, result.returncode, result.stderr)
        self.wait_for(self._manager_answers, 'blazar-manager answers')

    def manager_plugins(self, plugins):
        """blazar-manager with other ``[manager] plugins`` for a while
        (upstream's, to compare)."""
        return self.manager_conf('upstream',
                                 f'[manager]\nplugins = {plugins}\n')

    @contextlib.contextmanager
    def manager_conf(self, name, text):
        """blazar-manager with ``text`` added to blazar.conf for a while
        (a file of ``blazar.conf.d``)."""
        override = pathlib.Path(self.addon['etc'], 'blazar.conf.d',
                                f'{name}.conf')
        override.write_text(text)
        try:
            self.restart_manager()
            yield
        finally:
            override.unlink()
            self.restart_manager()

    def _manager_answers(self):
        try:
            self.admin.lease.list()
        except Exception:   # noqa: BLE001 - not up yet
            return False
        return True
