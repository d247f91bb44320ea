"""manager.heal: failed hosts retired, hit leases moved, outcomes."""

import datetime

import fixtures
import testtools

from placement_ext import exception
from placement_ext.decision import lease_heal
from placement_ext.manager import heal
from placement_ext.manager import lease_status
from placement_ext.manager import reservations
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.unit.objects import test_host
from placement_ext.vocabulary import states

T0 = datetime.datetime(2030, 1, 1)
DAY = datetime.timedelta(days=1)


class FakeLeases:
    """Records the moves; refuses the leases named in ``full``."""

    def __init__(self, db):
        self.db = db
        self.moved = []
        self.full = set()

    def update(self, lease, changes, moves=False, busy_hosts=frozenset()):
        if lease.name in self.full:
            raise exception.NoCapacity(reason='full')
        self.moved.append((lease.name, changes, moves))
        self.busy = busy_hosts
        return lease_obj.get(self.db, lease.id)


class TestHeal(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = db_fixture.use_database(self).db
        self.hosts = {n: test_host.make_host(self.db, n)
                      for n in ('cn1', 'cn2', 'cn3')}
        self.leases = FakeLeases(self.db)
        self.mirrored = []
        self.res_ids = {}

    def lease(self, name, hosts, start=T0, started=False):
        new = lease_obj.NewReservation(
            vcpus=1, memory_mb=512, disk_gb=1, amount=len(hosts),
            affinity=None, slots={self.hosts[h].id: 1 for h in hosts})
        with self.db.writer():
            lease_id = lease_obj.create(
                self.db, name=name, user_id='u', project_id='p',
                start_date=start, end_date=start + DAY, reservations=[new])
        if started:
            lease_status.mark_started(self.db, lease_id)
        self.res_ids[name] = new.id
        return lease_id

    def heal(self, failed, begin=T0, end=T0 + DAY):
        return heal.heal(self.db, self.leases, failed, begin, end,
                         on_moved=lambda lease: self.mirrored.append(
                             lease.name))

    def test_outcomes_and_moves(self):
        self.lease('started', ['cn1'], started=True)
        self.lease('pending', ['cn1', 'cn2'])
        self.lease('full', ['cn1'], started=True)
        self.lease('elsewhere', ['cn3'], started=True)
        self.lease('later', ['cn1'], start=T0 + 2 * DAY)
        self.leases.full = {'full'}
        self.assertEqual({self.res_ids['started']: lease_heal.CHANGED,
                          self.res_ids['full']: lease_heal.MISSING},
                         self.heal({'cn1'}))
        # leases by start date, then name
        self.assertEqual([('pending', {}, True), ('started', {}, True)],
                         self.leases.moved)
        self.assertEqual(['pending', 'started'], self.mirrored)

    def test_failed_hosts_are_no_longer_reservable(self):
        host_obj.set_reservable(self.db, self.hosts['cn2'], False)
        self.heal({'cn1', 'cn2', 'gone'})
        reservable = {h.hypervisor_hostname: h.reservable
                      for h in host_obj.list_hosts(self.db)}
        self.assertEqual({'cn1': False, 'cn2': False, 'cn3': True},
                         reservable)

    def test_moves_avoid_the_busy_hosts_given(self):
        self.lease('started', ['cn1'], started=True)
        heal.heal(self.db, self.leases, {'cn1'}, T0, T0 + DAY,
                  busy_hosts=lambda lease: frozenset({lease.name}))
        self.assertEqual(frozenset({'started'}), self.leases.busy)

    def test_follow_withdraws_and_offers_again_logged(self):
        logs = self.useFixture(fixtures.FakeLogger())
        self.assertEqual((['cn1'], []), heal.follow(
            self.db, {'cn1': False, 'cn2': True, 'unknown': False}))
        self.assertEqual(([], ['cn1']), heal.follow(
            self.db, {'cn1': True, 'cn2': True}))
        self.assertEqual(([], []), heal.follow(self.db, {'cn1': True}))
        self.assertTrue(host_obj.find(self.db, 'cn1').reservable)
        self.assertIn('Host cn1 failed', logs.output)
        self.assertIn('Host cn1 is reservable again', logs.output)

    def test_no_failure_moves_nothing(self):
        self.lease('started', ['cn1'], started=True)
        self.assertEqual({}, self.heal(set()))
        self.assertEqual([], self.leases.moved)


    def test_the_facades_heal_needs_no_callback(self):
        # the RPC endpoint's heal passes none; the Blazar adapter mirrors
        class Facade(reservations.Reservations):
            def __init__(self, db, leases):
                self.database, self.leases = db, leases
        self.lease('started', ['cn1'], started=True)
        self.assertEqual({self.res_ids['started']: lease_heal.CHANGED},
                         Facade(self.db, self.leases).heal({'cn1'}, T0,
                                                           T0 + DAY))

    def test_mark_started_makes_lease_and_reservations_active(self):
        lease = lease_obj.get(self.db, self.lease('l', ['cn1'],
                                                  started=True))
        self.assertEqual(
            (states.LEASE_ACTIVE, [states.RESERVATION_ACTIVE]),
            (lease.status, [r.status for r in lease.reservations]))
