"""What a lease does with Nova server groups and with the servers it
finds at its end (real Placement and database, fake Nova)."""

from placement_ext import exception
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.functional.reservation import base
from placement_ext.vocabulary import states

OTHER = 'e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2'


class TestServerGroups(base.ReservationTestCase):

    def setUp(self):
        super().setUp()
        self.add_compute('cn1')
        self.add_compute('cn2')

    def group_of(self, lease_id):
        res = self.lease(lease_id).reservations[0]
        group = self.nova.server_groups.get(res.server_group_id)
        return res, group

    def test_one_group_per_policy_deleted_at_the_end(self):
        for affinity, policy in ((True, 'affinity'),
                                 (False, 'anti-affinity')):
            lease = self.create_lease(name=f'l-{affinity}', amount=2,
                                      affinity=affinity)
            res, group = self.group_of(lease.id)
            self.assertEqual(res.server_group_id,
                             lease.reservations[0].server_group_id)
            self.assertEqual((f'reservation:{res.id}', policy),
                             (group.name, group.policy))
            self.res.delete_lease(lease.id)
            self.assertNotIn(group.id, self.nova.server_groups)
        lease = self.create_lease(name='none', amount=2)
        self.assertIsNone(lease.reservations[0].server_group_id)
        self.assertEqual({}, self.nova.server_groups)

    def test_made_at_start_for_an_older_lease_or_one_gone(self):
        lease = self.create_lease(amount=2, affinity=False,
                                  start_in={'minutes': 5})
        res = lease.reservations[0]
        # a lease made before server groups, then one deleted by hand
        lease_obj.set_server_group(self.db, res.id, None)
        self.nova.server_groups.clear()
        self.clock.advance(minutes=5)
        self.run_events()
        first, group = self.group_of(lease.id)
        self.assertEqual('anti-affinity', group.policy)
        self.nova.delete_server_group(group.id)
        self.res.leases.start(self.lease(lease.id))
        again, group = self.group_of(lease.id)
        self.assertNotEqual(first.server_group_id, again.server_group_id)
        self.assertIsNotNone(group)
        # idempotent: a valid group stays
        self.res.leases.start(self.lease(lease.id))
        self.assertEqual(again.server_group_id,
                         self.group_of(lease.id)[0].server_group_id)

    def test_reconcile_makes_a_missing_group(self):
        lease = self.create_lease(amount=2, affinity=False)
        self.run_events()
        res = self.lease(lease.id).reservations[0]
        lease_obj.set_server_group(self.db, res.id, None)
        self.nova.server_groups.clear()
        found = self.res.reconciler.run()['findings']
        self.assertEqual([('server group missing', res.id)],
                         [(f['kind'], f['subject']) for f in found])
        repaired = self.res.reconciler.run(repair=True)['findings']
        self.assertTrue(repaired[0]['repaired'])
        self.assertIsNotNone(self.group_of(lease.id)[1])
        self.assertEqual([], self.res.reconciler.run()['findings'])

    def test_update_changes_or_drops_the_group(self):
        lease = self.create_lease(amount=2, start_in={'hours': 1})
        lease = self.res.leases.update(lease, {'affinity': True})
        res, group = self.group_of(lease.id)
        self.assertEqual('affinity', group.policy)
        self.assertEqual(res.server_group_id,
                         lease.reservations[0].server_group_id)
        lease = self.res.leases.update(lease, {'affinity': False})
        _res, new = self.group_of(lease.id)
        self.assertEqual('anti-affinity', new.policy)
        self.assertNotIn(group.id, self.nova.server_groups)
        lease = self.res.leases.update(lease, {'affinity': None})
        self.assertIsNone(lease.reservations[0].server_group_id)
        self.assertEqual({}, self.nova.server_groups)

    def test_affinity_group_with_members_elsewhere_is_replaced(self):
        lease = self.create_lease(amount=2, affinity=True)
        self.run_events()
        res, group = self.group_of(lease.id)
        (host,) = res.slots_by_host
        other = 'cn2' if host == 'cn1' else 'cn1'
        # a member left on a host the reservation no longer holds (as
        # after healing) would pin new members there
        server = self.nova.boot(res.flavor_id, base.PROJECT, other)
        self.nova.add_member(group.id, server)
        self.res.leases.start(self.lease(lease.id))
        again, new = self.group_of(lease.id)
        self.assertNotEqual(group.id, new.id)
        self.assertEqual('affinity', new.policy)


class TestServersAtTheEnd(base.ReservationTestCase):

    def setUp(self):
        super().setUp()
        self.add_compute('cn1')
        self.lease_ = self.create_lease(amount=2)
        self.run_events()
        self.lease_ = self.lease(self.lease_.id)
        res = self.lease_.reservations[0]
        self.nova.flavors[res.flavor_id]['access'].add(OTHER)
        self.ours = self.boot(self.lease_, 'cn1')

    def test_another_projects_server_without_a_slot_is_kept(self):
        res = self.lease_.reservations[0]
        theirs = self.nova.boot(res.flavor_id, OTHER, 'cn1')
        kept = self.res.leases.end(self.lease(self.lease_.id))
        self.assertEqual([theirs], kept)
        self.assertEqual({theirs}, set(self.nova.servers))

    def test_another_projects_server_on_a_slot_stops_the_end(self):
        res = self.lease_.reservations[0]
        theirs = self.nova.boot(res.flavor_id, OTHER, 'cn1',
                                self.computes['cn1'],
                                self.provider('cn1').uuid)
        base.end_now(self.db, self.lease_.id)
        self.assertEqual(['failed'], [o.result for o in self.run_events()])
        self.assertEqual(states.LEASE_ERROR,
                         self.lease(self.lease_.id).status)
        self.assertEqual({theirs}, set(self.nova.servers))
        self.assertIn(res.resource_class, self.reservation_inventory('cn1'))
        # once it is gone, the end finishes
        self.nova.delete_servers([theirs], timeout=1, interval=0)
        self.assertEqual(['done'], [o.result for o in self.run_events()])
        self.assert_nothing_left(self.lease_)

    def test_a_server_of_another_flavor_holding_the_class_is_kept(self):
        res = self.lease_.reservations[0]
        theirs = self.nova.boot(res.flavor_id, base.PROJECT, 'cn1',
                                self.computes['cn1'],
                                self.provider('cn1').uuid)
        self.nova.servers[theirs]['flavor_name'] = 'copy-of-the-flavor'
        self.nova.servers[theirs]['flavor'] = 'copy'
        exc = self.assertRaises(exception.Conflict, self.res.leases.end,
                                self.lease(self.lease_.id))
        self.assertIn(theirs, str(exc))
        self.assertIn('copy-of-the-flavor', str(exc))
        self.assertEqual({theirs}, set(self.nova.servers))
