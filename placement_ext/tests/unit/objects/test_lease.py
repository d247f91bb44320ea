"""Lease records: creation with slots and events, holdings, and the
event claim / progress / finish / release protocol."""

import datetime

import testtools

from placement_ext import exception
from placement_ext.objects import event as event_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.unit.objects import test_host
from placement_ext.vocabulary import reservation_names as names
from placement_ext.vocabulary import states

T0 = datetime.datetime(2030, 1, 1, 10, 0)
HOUR = datetime.timedelta(hours=1)


class LeaseTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = test_host.db_fixture.use_database(self).db
        self.cn1 = test_host.make_host(self.db, 'cn1')
        self.cn2 = test_host.make_host(self.db, 'cn2')

    def create(self, name='l1', project='p1', start=T0, hours=2, slots=None,
               amount=3, affinity=None):
        res = lease_obj.NewReservation(
            vcpus=1, memory_mb=512, disk_gb=1, amount=amount,
            affinity=affinity,
            slots=slots or {self.cn1.id: 2, self.cn2.id: 1})
        with self.db.writer():
            lease_id = lease_obj.create(
                self.db, name=name, user_id='u', project_id=project,
                start_date=start, end_date=start + hours * HOUR,
                reservations=[res])
        return lease_obj.get(self.db, lease_id)


class TestLease(LeaseTestCase):

    def test_create_writes_slots_events_and_names(self):
        lease = self.create()
        self.assertEqual(states.LEASE_PENDING, lease.status)
        (res,) = lease.reservations
        self.assertEqual({'cn1': 2, 'cn2': 1}, res.slots_by_host)
        self.assertEqual(names.resource_class_for(res.id), res.resource_class)
        self.assertEqual(res.id, res.flavor_id)
        self.assertEqual(states.RESERVATION_PENDING, res.status)
        self.assertIsNone(res.affinity)
        self.assertEqual([('start_lease', T0), ('end_lease', T0 + 2 * HOUR)],
                         [(e.event_type, e.time) for e in lease.events])
        out = lease.to_dict()
        self.assertEqual({'cn1': 2, 'cn2': 1},
                         out['reservations'][0]['allocations'])
        self.assertEqual(T0.isoformat(), out['start_date'])

    def test_affinity_is_nullable(self):
        for value in (True, False, None):
            lease = self.create(name=f'a{value}', affinity=value)
            self.assertIs(value, lease.reservations[0].affinity)

    def test_names_are_unique_per_project(self):
        self.create()
        self.assertRaises(exception.Conflict, self.create)
        self.create(project='p2')

    def test_find_by_id_or_name(self):
        lease = self.create()
        other = self.create(project='p2')
        self.assertEqual(lease.id, lease_obj.find(self.db, lease.id).id)
        self.assertEqual(other.id, lease_obj.find(self.db, 'l1', 'p2').id)
        exc = self.assertRaises(exception.Conflict, lease_obj.find, self.db,
                                'l1')
        self.assertIn('2 leases are named', exc.detail)
        self.assertRaises(exception.NotFound, lease_obj.find, self.db, 'x')
        self.assertRaises(exception.NotFound, lease_obj.find, self.db,
                          lease.id, 'p2')

    def test_list_by_start_then_name(self):
        self.create(name='late', start=T0 + HOUR)
        self.create(name='b')
        self.create(name='a')
        self.assertEqual(['a', 'b', 'late'],
                         [lease.name for lease in
                          lease_obj.list_leases(self.db)])
        self.assertEqual([], lease_obj.list_leases(self.db, 'nobody'))

    def test_holdings_count_slots_of_live_reservations(self):
        lease = self.create()
        ended = self.create(name='ended', slots={self.cn1.id: 4})
        lease_obj.set_status(self.db, ended.id, states.LEASE_TERMINATED,
                             states.RESERVATION_DELETED)
        held = lease_obj.holdings(self.db, [self.cn1.id, self.cn2.id])
        res = lease.reservations[0]
        self.assertEqual(
            [(res.id, self.cn1.id, 2), (res.id, self.cn2.id, 1)],
            [(h.reservation_id, h.host_id, h.slots) for h in held])
        self.assertEqual((T0, T0 + 2 * HOUR, res.resource_class),
                         (held[0].start, held[0].end, held[0].resource_class))
        self.assertEqual([], lease_obj.holdings(self.db, [999]))

    def test_delete_cascades(self):
        lease = self.create()
        lease_obj.delete(self.db, lease.id)
        self.assertRaises(exception.NotFound, lease_obj.get, self.db,
                          lease.id)
        self.assertEqual([], lease_obj.holdings(self.db, [self.cn1.id]))


class TestEvents(LeaseTestCase):

    def setUp(self):
        super().setUp()
        self.lease = self.create()
        self.start, self.end = self.lease.events
        self.stale_before = T0 - HOUR

    def claim(self, event, now=T0, stale_before=None, early=False):
        return event_obj.claim(self.db, event.id, now,
                               stale_before or self.stale_before, early)

    def test_due_events_in_time_order_ends_first(self):
        self.assertEqual([], event_obj.due_events(self.db, T0 - HOUR,
                                                  self.stale_before))
        nxt = self.create(name='next', start=T0 + 2 * HOUR,
                          slots={self.cn1.id: 1})
        due = event_obj.due_events(self.db, T0 + 2 * HOUR,
                                   self.stale_before)
        self.assertEqual(
            [(self.lease.id, 'start_lease'), (self.lease.id, 'end_lease'),
             (nxt.id, 'start_lease')],
            [(e.lease_id, e.event_type) for e in due])

    def test_claim_once(self):
        claimed = self.claim(self.start)
        self.assertEqual(states.EVENT_IN_PROGRESS, claimed.status)
        self.assertEqual(T0, claimed.updated_at)
        self.assertIsNone(self.claim(self.start))
        # the lease's generation moved: readers know something changed
        self.assertEqual(1, lease_obj.get(self.db, self.lease.id).generation)

    def test_not_before_its_time_unless_early(self):
        self.assertIsNone(self.claim(self.end))
        self.assertIsNotNone(self.claim(self.end, early=True))

    def test_one_event_of_a_lease_at_a_time(self):
        self.claim(self.start)
        self.assertIsNone(self.claim(self.end, now=T0 + 2 * HOUR))

    def test_stale_event_is_taken_over(self):
        mine = self.claim(self.start)
        later = T0 + HOUR
        self.assertIsNone(self.claim(self.start, now=later,
                                     stale_before=T0 - HOUR))
        theirs = self.claim(self.start, now=later, stale_before=T0 + HOUR)
        self.assertEqual(later, theirs.updated_at)
        self.assertRaises(exception.ConcurrentUpdate, event_obj.touch,
                          self.db, mine, later)
        self.assertRaises(exception.ConcurrentUpdate, event_obj.finish,
                          self.db, mine, lease_status='ACTIVE')
        event_obj.finish(self.db, event_obj.touch(self.db, theirs),
                         lease_status=states.LEASE_ACTIVE,
                         reservation_status=states.RESERVATION_ACTIVE)
        lease = lease_obj.get(self.db, self.lease.id)
        self.assertEqual((states.LEASE_ACTIVE, states.EVENT_DONE,
                          states.RESERVATION_ACTIVE),
                         (lease.status, lease.events[0].status,
                          lease.reservations[0].status))

    def test_release_gives_the_event_back_and_shows_error(self):
        claimed = self.claim(self.start)
        event_obj.release(self.db, claimed)
        lease = lease_obj.get(self.db, self.lease.id)
        self.assertEqual((states.LEASE_ERROR, states.EVENT_UNDONE),
                         (lease.status, lease.events[0].status))
        self.assertIsNotNone(self.claim(self.start))

    def test_finish_end_frees_the_slots(self):
        claimed = self.claim(self.end, now=T0 + 2 * HOUR)
        event_obj.finish(self.db, claimed,
                         lease_status=states.LEASE_TERMINATED,
                         reservation_status=states.RESERVATION_DELETED,
                         free_slots=True)
        lease = lease_obj.get(self.db, self.lease.id)
        self.assertEqual({}, lease.reservations[0].slots_by_host)
        self.assertEqual(0, test_host.host_obj.slot_count(self.db,
                                                          self.cn1.id))

    def test_generations(self):
        other = self.create(name='other')
        self.claim(self.start)
        self.assertEqual({self.lease.id: 1, other.id: 0},
                         lease_obj.generations(
                             self.db, [self.lease.id, other.id, 'gone']))
