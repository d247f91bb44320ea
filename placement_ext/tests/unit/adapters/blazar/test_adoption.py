"""Reservations of Blazar's own instance plugin adopted by ours: at
start-up and when one of their events reaches us first, once, and never
one of ours; what cannot be adopted is recorded with its reason."""

import datetime

from placement_ext import exception
from placement_ext.adapters.blazar import workflows
from placement_ext.objects import lease as lease_obj
from placement_ext.objects import unadopted
from placement_ext.tests.unit.adapters.blazar import test_workflows as base
from placement_ext.vocabulary import states

UP = 'a9f0e2b4-5c1d-4e6f-8a7b-9c0d1e2f3a4b'
UP2 = 'b9f0e2b4-5c1d-4e6f-8a7b-9c0d1e2f3a4b'
START = base.START
PERIOD = {'start_date': START, 'end_date': START + datetime.timedelta(hours=2)}


class AdoptionTestCase(base.AdapterTestCase):

    def setUp(self):
        super().setUp()
        self.deleted = []
        self.adapter = workflows.BlazarReservations(
            base.FakeReservations(self.db, self.hosts, self.leases),
            self.blazar, delete_aggregate=self.deleted.append)

    def upstream(self, res_id=UP, status='active', lease_status='ACTIVE',
                 slots=None, **fields):
        return self.blazar.add_upstream(
            res_id, status, lease_status,
            slots if slots is not None else [self.h1['id'], self.h2['id']],
            **PERIOD, **fields)


class TestStartUp(AdoptionTestCase):

    def test_active_and_pending_are_adopted_with_their_slots(self):
        self.upstream(affinity=False, server_group_id='g1')
        self.upstream(UP2, 'pending', 'PENDING', [self.h2['id']])
        report = self.adapter.adopt()
        self.assertEqual(((UP, UP2), ()), (report.adopted, report.refused))
        active = lease_obj.find(self.db, UP)
        res, = active.reservations
        self.assertEqual((states.LEASE_ACTIVE, {'cn1': 1, 'cn2': 1}, 'g1',
                          False, 'p1'),
                         (active.status, res.slots_by_host,
                          res.server_group_id, res.affinity,
                          active.project_id))
        pending = lease_obj.find(self.db, UP2)
        self.assertEqual((states.LEASE_PENDING, {'cn2': 1}),
                         (pending.status,
                          pending.reservations[0].slots_by_host))
        # idempotent: nothing new the next time
        self.assertEqual((), self.adapter.adopt().adopted)
        self.assertEqual(2, len(lease_obj.list_leases(self.db)))

    def test_ours_and_ended_ones_are_left_alone(self):
        self.reserve()                       # ours: no aggregate
        lease_obj.delete(self.db, lease_obj.find(self.db, base.RES).id)
        self.upstream(status='deleted', lease_status='TERMINATED')
        self.assertEqual(((), ()), (self.adapter.adopt().adopted,
                                    self.adapter.adopt().refused))
        self.assertEqual([], lease_obj.list_leases(self.db))

    def test_what_cannot_be_adopted_is_recorded_with_why(self):
        self.upstream(lease_status='CREATING')
        self.upstream(UP2, slots=['999'])
        report = self.adapter.adopt()
        self.assertEqual((), report.adopted)
        why = dict(report.refused)
        self.assertIn('CREATING', why[UP])
        self.assertIn('Blazar host 999', why[UP2])
        self.assertEqual([(UP, f'lease-{UP}'), (UP2, f'lease-{UP2}')],
                         [(r.reservation_id, r.lease_id)
                          for r in unadopted.list_all(self.db)])
        # gone from Blazar: no longer reported
        self.blazar.reservations = [r for r in self.blazar.reservations
                                    if r['id'] != UP2]
        self.adapter.adopt()
        self.assertEqual([UP], [r.reservation_id
                                for r in unadopted.list_all(self.db)])


class TestEvents(AdoptionTestCase):

    def test_a_pending_one_starts_then_ends_removing_its_aggregate(self):
        row = self.upstream(status='pending', lease_status='PENDING')
        self.adapter.start(row['id'])            # adopted on the way
        self.assertEqual(states.LEASE_ACTIVE,
                         lease_obj.find(self.db, UP).status)
        self.adapter.end(row['id'])
        self.assertEqual([7], self.deleted)
        self.assertEqual([], lease_obj.list_leases(self.db))
        self.assertIsNone(
            self.blazar.instance_reservation_get(row['id'])['aggregate_id'])
        # an end run again adopts nothing and deletes nothing
        self.adapter.end(row['id'])
        self.assertEqual([7], self.deleted)
        self.assertEqual(['start', 'end'], [c[0] for c in self.leases.calls])

    def test_an_adopted_one_is_updated(self):
        self.upstream()
        self.adapter.adopt()
        self.adapter.update(UP, {'amount': '3', 'start_date': START})
        self.assertEqual(('update', {'start_date': START, 'amount': 3},
                          False), self.leases.calls[-1])
        self.assertEqual(3, self.blazar.instance_reservation_get(
            self.blazar.reservation_get(UP)['resource_id'])['amount'])

    def test_an_unadoptable_one_is_not_ours(self):
        row = self.upstream(lease_status='CREATING')
        self.assertRaises(exception.NotFound, self.adapter.start, row['id'])
        self.assertEqual([UP], [r.reservation_id
                                for r in unadopted.list_all(self.db)])

    def test_an_adopted_one_is_healed(self):
        self.upstream()
        self.adapter.adopt()
        self.h1['reservable'] = False
        flags = self.adapter.heal([{'hypervisor_hostname': 'cn1'}], START,
                                  START + datetime.timedelta(days=1))
        self.assertEqual(('update', {}, True), self.leases.calls[-1])
        self.assertEqual({UP: {'resources_changed': True}}, flags)
