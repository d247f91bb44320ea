"""Lease updates (blazar ``update_reservation``) and healing on a real
Placement (Nova faked): slots picked again with the reservation's own
counted as free, kept first; a started one keeps its slots unless
healed."""

import datetime

from placement_ext import exception
from placement_ext.db import models
from placement_ext.decision import lease_heal
from placement_ext.objects import host as host_obj
from placement_ext.tests.functional.reservation import base
from placement_ext.vocabulary import states


class TestUpdate(base.ReservationTestCase):

    def setUp(self):
        super().setUp()
        self.add_compute('cn1')           # 4 vCPU each
        self.add_compute('cn2')

    def test_pending_grows_resizes_and_moves_in_time(self):
        lease = self.create_lease(amount=4, affinity=None,
                                  start_in={'hours': 1})
        old = lease.reservations[0]
        later = lease.start_date + datetime.timedelta(hours=5)
        lease = self.res.leases.update(lease, {
            'amount': 3, 'vcpus': 2, 'start_date': later,
            'end_date': later + datetime.timedelta(hours=1)})
        res = lease.reservations[0]
        self.assertEqual((3, 2, later), (res.amount, res.vcpus,
                                         lease.start_date))
        self.assertEqual(6, 2 * sum(res.slots_by_host.values()))
        self.assertEqual(2, self.nova.flavors[old.flavor_id]['vcpus'])
        self.assertEqual([later], [e.time for e in lease.events
                                   if e.event_type == 'start_lease'])

    def test_refused_growth_says_why(self):
        lease = self.create_lease(amount=4)
        self.create_lease(name='other', amount=4)
        exc = self.assertRaises(exception.NoCapacity,
                                self.res.leases.update, lease,
                                {'amount': 5})
        self.assertIn('not enough capacity', exc.detail)

    def test_started_grows_in_place_and_keeps_its_slots(self):
        lease = self.create_lease(amount=3, affinity=None)
        self.run_events()
        lease = self.lease(lease.id)
        before = lease.reservations[0].slots_by_host
        lease = self.res.leases.update(lease, {'amount': 5})
        res = lease.reservations[0]
        self.assertEqual(5, sum(res.slots_by_host.values()))
        for host, slots in before.items():
            self.assertGreaterEqual(res.slots_by_host[host], slots)
        for host, slots in res.slots_by_host.items():
            self.assertEqual({res.resource_class: slots},
                             self.reservation_inventory(host))
        self.assertRaises(exception.InvalidInput, self.res.leases.update,
                          lease, {'vcpus': 2})
        self.assertRaises(exception.NoCapacity, self.res.leases.update,
                          lease, {'amount': 1})

    def test_heal_moves_slots_off_a_failed_host(self):
        self.add_compute('cn3')
        lease = self.create_lease(amount=2, affinity=False)
        self.run_events()
        lease = self.lease(lease.id)
        failed = sorted(lease.reservations[0].slots_by_host)[0]
        host_obj.set_reservable(self.db, host_obj.find(self.db, failed),
                                False)
        lease = self.res.leases.update(lease, {}, moves=True)
        res = lease.reservations[0]
        self.assertNotIn(failed, res.slots_by_host)
        self.assertEqual(2, len(res.slots_by_host))
        self.assertEqual({}, self.reservation_inventory(failed))
        self.assertEqual(states.RESERVATION_ACTIVE, res.status)

    def test_heal_of_the_manager_retires_the_host_and_says_changed(self):
        self.add_compute('cn3')
        lease = self.create_lease(amount=2, affinity=False)
        self.run_events()
        failed = min(self.lease(lease.id).reservations[0].slots_by_host)
        now = models.utcnow()
        outcomes = self.res.heal({failed}, now,
                                 now + datetime.timedelta(hours=1))
        res = self.lease(lease.id).reservations[0]
        self.assertEqual({res.id: lease_heal.CHANGED}, outcomes)
        self.assertFalse(host_obj.find(self.db, failed).reservable)
        self.assertNotIn(failed, res.slots_by_host)
        self.assertEqual({}, self.reservation_inventory(failed))
