"""Reservation manager tests on a real Placement and a real database.

Placement is the real service (``PlacementServer``: HTTP, its own
database); compute nodes are created in it the way Nova's resource
tracker does. Nova is the in-memory fake of
``placement_ext.tests.fixtures.nova``, which claims and releases
its servers' resources in that Placement. The cloud tests
(``test_cloud.py``) use the real Nova of the embedded cloud instead.
"""

import datetime

import testtools

from placement_ext.db import models
from placement_ext.drivers import placement as placement_driver
from placement_ext.manager import reservations
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import nova as fake_nova
from placement_ext.tests.fixtures import placement as placement_fixture
from placement_ext.tests.functional.placement import base as pbase
from placement_ext.vocabulary import reservation_names as names
from placement_ext.vocabulary import states

PROJECT = 'f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1'
SETTINGS = reservations.Settings(server_poll_interval=0.01,
                                 event_stale_after=60,
                                 inventory_conflict_max_wait=0.05)


def end_now(db, lease_id) -> None:
    """Move the lease's end event to now (the lease is over)."""
    with db.writer() as session:
        session.execute(
            models.Event.__table__.update()
            .where(models.Event.lease_id == lease_id,
                   models.Event.event_type == states.EVENT_END_LEASE)
            .values(time=models.utcnow()))


class Clock:
    """Real UTC time plus an offset the test moves forward."""

    def __init__(self):
        self.offset = datetime.timedelta()

    def __call__(self) -> datetime.datetime:
        return models.utcnow() + self.offset

    def advance(self, **kwargs):
        self.offset += datetime.timedelta(**kwargs)


class ReservationTestCase(testtools.TestCase):
    BACKEND = 'sqlite'
    PLACEMENT_BACKEND = 'sqlite'

    def setUp(self):
        super().setUp()
        self.placement_server = self.useFixture(
            placement_fixture.PlacementServer(self.PLACEMENT_BACKEND))
        self.client = self.placement_server.client()
        self.nova = fake_nova.FakeNova(self.client)
        self.database = self.use_database()
        self.db = self.database.db
        self.clock = Clock()
        self.res = self.manager()
        self.computes = {}

    def use_database(self) -> db_fixture.Database:
        """The managers' database (the HA tests use a Galera cluster)."""
        return db_fixture.use_database(self, self.BACKEND)

    def manager(self, database=None) -> reservations.Reservations:
        """A manager's workflows, with a Placement client of its own."""
        driver = placement_driver.PlacementDriver(
            self.placement_server.client())
        return reservations.Reservations(database or self.db, self.nova,
                                         driver, SETTINGS, self.clock)

    def add_compute(self, name, vcpus=4, memory_mb=8192, disk_gb=100,
                    zone='AZ-1', enrol=True, ratio=1.0):
        """A compute node in Placement and Nova; enrolled by default."""
        rp = pbase.create_provider(self.client, name)
        generation = self.client.request(
            'GET', f'/resource_providers/{rp}', what='setup',
            microversion=pbase.V).json()['generation']
        self.client.request(
            'PUT', f'/resource_providers/{rp}/inventories', what='setup',
            microversion=pbase.V,
            json={'resource_provider_generation': generation,
                  'inventories': {
                      'VCPU': {'total': vcpus, 'allocation_ratio': ratio},
                      'MEMORY_MB': {'total': memory_mb},
                      'DISK_GB': {'total': disk_gb}}})
        self.nova.add_hypervisor(name, zone=zone, vcpus=vcpus,
                                 memory_mb=memory_mb, local_gb=disk_gb)
        self.computes[name] = rp
        if enrol:
            return self.res.hosts.create(name)
        return None

    def lease_body(self, name='lease', amount=1, vcpus=1, memory_mb=1024,
                   disk_gb=1, affinity=None, start=None, hours=2,
                   start_in=None):
        now = self.clock()
        if start is None:
            start = 'now' if start_in is None else (
                now + datetime.timedelta(**start_in)).isoformat()
        begin = now if start == 'now' else datetime.datetime.fromisoformat(
            start)
        end = begin + datetime.timedelta(hours=hours)
        return {'name': name, 'start_date': start,
                'end_date': end.isoformat(),
                'reservations': [{
                    'resource_type': 'virtual:instance', 'amount': amount,
                    'vcpus': vcpus, 'memory_mb': memory_mb,
                    'disk_gb': disk_gb, 'affinity': affinity}]}

    def create_lease(self, manager=None, **kwargs):
        manager = manager or self.res
        return manager.leases.create(self.lease_body(**kwargs), PROJECT,
                                     'user')

    def run_events(self, manager=None):
        return (manager or self.res).events.run_due()

    def lease(self, lease_id):
        return lease_obj.get(self.db, lease_id)

    # -- what Placement holds ------------------------------------------------

    def provider(self, hostname):
        return self.res.placement.reservation_provider(hostname)

    def reservation_inventory(self, hostname):
        """{class: total} of reservation classes on blazar_<host>."""
        provider = self.provider(hostname)
        if provider is None:
            return {}
        _gen, inventories = self.res.placement.inventories(provider.uuid)
        return {rc: inv['total'] for rc, inv in inventories.items()
                if names.reservation_for_resource_class(rc)}

    def classes(self):
        return set(self.res.placement.reservation_classes())

    def boot(self, lease, hostname, reservation=0):
        res = lease.reservations[reservation]
        return self.nova.boot(res.flavor_id, lease.project_id, hostname,
                              self.computes[hostname],
                              self.provider(hostname).uuid)

    def assert_nothing_left(self, lease):
        for res in lease.reservations:
            self.assertNotIn(res.resource_class, self.classes())
            self.assertNotIn(res.flavor_id, self.nova.flavors)
            for hostname in self.computes:
                self.assertNotIn(res.resource_class,
                                 self.reservation_inventory(hostname))
        self.assertEqual([], [s for s in self.nova.servers.values()
                              if s['flavor'] in {r.flavor_id for r in
                                                 lease.reservations}])
