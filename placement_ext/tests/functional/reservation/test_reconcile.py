"""Reconcile finds and repairs drift between the database and Placement
(and Nova's flavors and free pool)."""

import uuid

from placement_ext.db import models
from placement_ext.objects import event as event_obj
from placement_ext.objects import host as host_obj
from placement_ext.tests.functional.placement import base as pbase
from placement_ext.tests.functional.reservation import base
from placement_ext.vocabulary import reservation_names as names
from placement_ext.vocabulary import states


def kinds(report):
    return sorted((f['kind'], f['subject']) for f in report['findings'])


class TestReconcile(base.ReservationTestCase):

    def setUp(self):
        super().setUp()
        self.add_compute('cn1')
        self.add_compute('cn2')

    def test_clean_state_has_no_finding(self):
        self.create_lease(name='pending', amount=2, start_in={'days': 1})
        self.create_lease(name='active', amount=3)
        self.run_events()
        report = self.res.reconciler.run()
        self.assertEqual([], report['findings'])
        self.assertEqual({'hosts': 2, 'leases': 2, 'providers': 2,
                          'classes': 2, 'flavors': 2}, report['checked'])

    def _drift(self):
        """Break things the way crashes and manual changes do."""
        active = self.create_lease(name='active', amount=6)
        self.run_events()
        rc = active.reservations[0].resource_class
        placement = self.res.placement
        # an inventory with the wrong total, and one gone missing
        placement.set_inventory(self.provider('cn1').uuid, rc, 1)
        placement.delete_inventory(self.provider('cn2').uuid, rc)
        # a class, flavor and inventory a lost create left behind
        orphan = names.resource_class_for(str(uuid.uuid4()))
        placement.ensure_resource_class(orphan)
        placement.set_inventory(self.provider('cn2').uuid, orphan, 2)
        self.nova.ensure_private_flavor(
            'f-orphan', 'reservation:orphan', vcpus=1, memory_mb=1,
            disk_gb=1, extra_specs={}, project_id='p')
        # a provider of a host that is not enrolled, holding an inventory
        self.add_compute('cn3', enrol=False)
        placement.set_inventory(
            placement.ensure_reservation_provider('cn3').uuid, orphan, 1)
        # an enrolled host that lost its provider and left the pool
        self.add_compute('cn4')
        placement.delete_reservation_provider('cn4')
        self.nova.remove_host_from_aggregate(base.SETTINGS.freepool, 'cn4')
        return active, rc, orphan

    def test_report_then_repair(self):
        active, rc, orphan = self._drift()
        expected = [
            ('missing_inventory', f'cn2/{rc}'),
            ('missing_pool_member', 'cn4'),
            ('missing_provider', 'cn4'),
            ('orphan_class', orphan),
            ('orphan_flavor', 'f-orphan'),
            ('orphan_inventory', f'cn2/{orphan}'),
            ('orphan_inventory', f'cn3/{orphan}'),
            ('wrong_inventory', f'cn1/{rc}'),
        ]
        report = self.res.reconciler.run()
        self.assertEqual(expected, kinds(report))
        self.assertFalse(report['repair'])
        self.assertNotIn('repaired', report['findings'][0])
        # reporting changed nothing
        self.assertEqual(expected, kinds(self.res.reconciler.run()))

        repaired = self.res.reconciler.run(repair=True)
        self.assertEqual(expected, kinds(repaired))
        self.assertEqual([True] * len(expected),
                         [f['repaired'] for f in repaired['findings']])
        self.assertEqual([], self.res.reconciler.run()['findings'])
        self.assertEqual({rc: 4}, self.reservation_inventory('cn1'))
        self.assertEqual({rc: 2}, self.reservation_inventory('cn2'))
        # kept, empty: nova-compute may have it cached
        self.assertEqual({}, self.reservation_inventory('cn3'))
        self.assertEqual(self.provider('cn4').uuid, host_obj.find(
            self.db, 'cn4').reservation_provider_uuid)
        self.assertIn('cn4', self.nova.aggregates[
            base.SETTINGS.freepool].hosts)
        self.assertEqual({rc}, self.classes())

    def test_ended_lease_leftovers_are_removed(self):
        lease = self.create_lease(amount=2, hours=1)
        self.run_events()
        rc = lease.reservations[0].resource_class
        provider = self.provider('cn1').uuid
        self.clock.advance(hours=1)
        self.run_events()
        # someone put the class and flavor back after the end
        self.res.placement.ensure_resource_class(rc)
        self.res.placement.set_inventory(provider, rc, 2)
        self.res.leases.provision(self.lease(lease.id),
                                  self.lease(lease.id).reservations[0])
        self.assertEqual(
            [('orphan_class', rc), ('orphan_flavor', lease.reservations[0]
                                    .flavor_id),
             ('orphan_inventory', f'cn1/{rc}')],
            kinds(self.res.reconciler.run(repair=True)))
        self.assert_nothing_left(lease)

    def test_in_use_inventory_is_reported_not_removed(self):
        lease = self.create_lease(amount=2, hours=1)
        self.run_events()
        self.boot(self.lease(lease.id), 'cn1')
        rc = lease.reservations[0].resource_class
        # the lease's rows vanish while its instance still runs
        with self.db.writer() as session:
            session.execute(models.Reservation.__table__.update().values(
                status=states.RESERVATION_DELETED))
        report = self.res.reconciler.run(repair=True)
        failed = [f for f in report['findings'] if not f['repaired']]
        self.assertEqual([('orphan_inventory', f'cn1/{rc}'),
                          ('orphan_class', rc)],
                         [(f['kind'], f['subject']) for f in failed])
        self.assertIn(rc, self.reservation_inventory('cn1'))

    def test_running_event_is_left_alone(self):
        lease = self.create_lease(amount=6)
        event = next(e for e in lease.events
                     if e.event_type == states.EVENT_START_LEASE)
        now = self.clock()
        event_obj.claim(self.db, event.id, now, now)
        rc = lease.reservations[0].resource_class
        self.res.placement.set_inventory(self.provider('cn1').uuid, rc, 4)
        self.assertEqual([], self.res.reconciler.run()['findings'])

    def test_usage_of_orphan_class_by_real_server(self):
        # a foreign consumer of an orphan class blocks its removal only
        orphan = names.resource_class_for(str(uuid.uuid4()))
        provider = self.provider('cn1').uuid
        self.res.placement.ensure_resource_class(orphan)
        self.res.placement.set_inventory(provider, orphan, 1)
        pbase.allocate(self.client, {provider: {orphan: 1}})
        report = self.res.reconciler.run(repair=True)
        self.assertEqual([False, False],
                         [f['repaired'] for f in report['findings']])
        self.assertIn('in use', report['findings'][0]['error'])
