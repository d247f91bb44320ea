"""Lease create, start, end and delete on a real Placement (Nova faked)."""

import fixtures

from placement_ext import exception
from placement_ext.manager import capacity_inputs
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.functional.placement import base as pbase
from placement_ext.tests.functional.reservation import base
from placement_ext.vocabulary import reservation_names as names
from placement_ext.vocabulary import states


class TestCreate(base.ReservationTestCase):

    def setUp(self):
        super().setUp()
        self.add_compute('cn1')           # 4 vCPU each
        self.add_compute('cn2')

    def test_more_instances_than_hosts_with_no_affinity(self):
        lease = self.create_lease(amount=6, affinity=None)
        res = lease.reservations[0]
        self.assertEqual({'cn1': 4, 'cn2': 2}, res.slots_by_host)
        self.assertEqual(states.LEASE_PENDING, lease.status)
        self.assertIsNone(res.affinity)
        self.assertEqual(names.resource_class_for(res.id), res.resource_class)
        self.assertIn(res.resource_class, self.classes())
        flavor = self.nova.flavors[res.id]
        # the extra spec is what BlazarFilter checks (doc/source/blazar.rst)
        self.assertEqual(
            {f'resources:{res.resource_class}': '1',
             'aggregate_instance_extra_specs:reservation': res.id},
            flavor['specs'])
        self.assertEqual({base.PROJECT}, flavor['access'])
        self.assertEqual((1, 1024, 1),
                         (flavor['vcpus'], flavor['ram'], flavor['disk']))
        self.assertEqual(['end_lease', 'start_lease'],
                         sorted(e.event_type for e in lease.events))

    def test_affinity_true_puts_every_slot_on_one_host(self):
        lease = self.create_lease(amount=3, affinity=True)
        self.assertEqual({'cn1': 3}, lease.reservations[0].slots_by_host)
        exc = self.assertRaises(exception.NoCapacity, self.create_lease,
                                name='big', amount=5, affinity=True)
        self.assertIn('affinity=True needs one host with 5 free slots',
                      exc.detail)

    def test_affinity_false_uses_distinct_hosts(self):
        lease = self.create_lease(amount=2, affinity=False)
        self.assertEqual({'cn1': 1, 'cn2': 1},
                         lease.reservations[0].slots_by_host)
        exc = self.assertRaises(exception.NoCapacity, self.create_lease,
                                name='three', amount=3, affinity=False)
        self.assertIn('3 distinct hosts', exc.detail)

    def test_blazar_cli_strings_for_affinity(self):
        body = self.lease_body(amount=2)
        body['reservations'][0]['affinity'] = 'False'
        lease = self.res.leases.create(body, base.PROJECT, 'u')
        self.assertIs(False, lease.reservations[0].affinity)

    def test_overlapping_reservations_count_slot_by_slot(self):
        # 8 slots in all; the first lease takes 6 for two hours
        self.create_lease(name='a', amount=6, hours=2)
        exc = self.assertRaises(exception.NoCapacity, self.create_lease,
                                name='b', amount=3, hours=1)
        self.assertIn('needs 3 free slots', exc.detail)
        self.create_lease(name='c', amount=2, hours=1)
        # after the first lease ends its slots are free again
        later = self.create_lease(name='d', amount=8,
                                  start_in={'hours': 2}, hours=1)
        self.assertEqual({'cn1': 4, 'cn2': 4},
                         later.reservations[0].slots_by_host)

    def test_real_usage_in_placement_is_counted(self):
        # an ordinary instance using 3 vCPU on cn1
        pbase.allocate(self.client, {self.computes['cn1']: {
            'VCPU': 3, 'MEMORY_MB': 512, 'DISK_GB': 1}})
        lease = self.create_lease(amount=5)
        self.assertEqual({'cn1': 1, 'cn2': 4},
                         lease.reservations[0].slots_by_host)

    def test_kept_views_see_what_changed_in_placement(self):
        self.create_lease(name='a', amount=1)
        calls = self.res.placement.client.calls
        calls.clear()
        self.create_lease(name='b', amount=1)
        # nothing changed: no listing of the pool, the chosen host alone
        # checked in one call, no host read
        self.assertNotIn('GET /resource_providers?member_of', calls)
        self.assertEqual(1, calls['GET /allocation_candidates'])
        self.assertNotIn('GET /resource_providers/{uuid}/usages', calls)
        # an ordinary instance reaches cn1 around the filter: the
        # refusal on the kept views is decided again on the listed pool,
        # where cn1 moved, so it is read again and the instance counted
        pbase.allocate(self.client, {self.computes['cn1']: {
            'VCPU': 3, 'MEMORY_MB': 512, 'DISK_GB': 1}})
        calls.clear()
        exc = self.assertRaises(exception.NoCapacity, self.create_lease,
                                name='c', amount=7)
        # 8 slots - 2 held - 3 vCPU in use on cn1 (which holds both)
        self.assertIn('needs 7 free slots; the 2 hosts have 4', exc.detail)
        # cn1 only: inventories, usages, its reservation provider's usages
        route = 'GET /resource_providers/{uuid}/%s'
        self.assertEqual(1, calls['GET /resource_providers?member_of'])
        self.assertEqual(1, calls[route % 'inventories'])
        self.assertEqual(2, calls[route % 'usages'])

    def test_a_stale_view_of_a_chosen_host_never_becomes_a_slot(self):
        self.create_lease(name='a', amount=1, affinity=True)   # on cn1
        # an ordinary instance reaches cn1 after its view was kept: the
        # kept view still shows 3 free slots there
        pbase.allocate(self.client, {self.computes['cn1']: {
            'VCPU': 3, 'MEMORY_MB': 512, 'DISK_GB': 1}})
        calls = self.res.placement.client.calls
        calls.clear()
        lease = self.create_lease(name='b', amount=3, affinity=True)
        # cn1 was chosen on its kept view, the check saw it changed, the
        # decision was made again with what Placement shows: cn2
        self.assertEqual({'cn2': 3}, lease.reservations[0].slots_by_host)
        self.assertEqual(2, calls['GET /allocation_candidates'])
        self.assertNotIn('GET /resource_providers?member_of', calls)
        exc = self.assertRaises(exception.NoCapacity, self.create_lease,
                                name='c', amount=2, affinity=True)
        self.assertIn('needs one host with 2 free slots; the best host (cn2)'
                      ' has 1', exc.detail)

    def test_a_chosen_host_that_filled_up_is_read_alone(self):
        self.create_lease(name='a', amount=1, affinity=True)   # on cn1
        # cn1 is full now: no candidate there, so it is read alone
        pbase.allocate(self.client, {self.computes['cn1']: {'VCPU': 4}})
        calls = self.res.placement.client.calls
        calls.clear()
        lease = self.create_lease(name='b', amount=2, affinity=True)
        self.assertEqual({'cn2': 2}, lease.reservations[0].slots_by_host)
        self.assertEqual(1, calls['GET /resource_providers/{uuid}/'
                                  'inventories'])

    def test_slots_another_manager_took_are_counted(self):
        other = self.manager()
        self.create_lease(name='a', amount=3)        # holdings kept
        self.create_lease(other, name='b', amount=4)
        # 8 slots - 3 - 4: the kept holdings no longer hold
        exc = self.assertRaises(exception.NoCapacity, self.create_lease,
                                name='c', amount=2)
        self.assertIn('needs 2 free slots; the 2 hosts have 1', exc.detail)

    def test_a_lease_another_manager_moved_is_counted_where_it_is(self):
        other = self.manager()
        lease = self.create_lease(name='a', amount=4, start_in={'hours': 5})
        self.create_lease(name='b', amount=4)        # holdings kept
        # 'a' moves onto the period of 'b' (its slots keep their ids)
        moved = other.leases.update(lease, {
            'start_date': self.clock(), 'end_date': lease.end_date})
        self.assertEqual(8, sum(moved.reservations[0].slots_by_host.values())
                         + 4)
        exc = self.assertRaises(exception.NoCapacity, self.create_lease,
                                name='c', amount=1)
        self.assertIn('needs 1 free slots; the 2 hosts have 0', exc.detail)

    def test_kept_slots_missing_a_lease_never_overbook(self):
        # what a manager keeps after its create may lack a lease another
        # manager committed meanwhile on other hosts, with the
        # fingerprint taken after it: only the chosen hosts' slots, read
        # under their locks, decide
        other = self.manager()
        self.create_lease(name='a', amount=1, affinity=True)
        self.create_lease(other, name='b', amount=4, affinity=True)
        fingerprint = lease_obj.holdings_fingerprint(self.db)
        self.res.leases.holdings.keep((fingerprint, [
            held for held in lease_obj.holdings(self.db, None)
            if held.reservation_id != self._reservation('b')]))
        # as kept, 'b''s host is free for four more: it is not
        self.assertRaises(exception.NoCapacity, self.create_lease,
                          name='c', amount=4, affinity=True)
        self.assertEqual(['a', 'b'], sorted(
            lease.name for lease in lease_obj.list_leases(self.db)))

    def test_a_create_locks_only_the_hosts_it_chose(self):
        locked = self._spy_locks()
        lease = self.create_lease(name='a', amount=2, affinity=True)
        (host_id, _name, _slots), = lease.reservations[0].allocations
        self.assertEqual([[host_id]], locked)

    def test_the_slots_a_create_keeps_match_the_database(self):
        # what one create keeps (its own new slots included) is what the
        # next create reads under the locks: no decision is made twice
        locked = self._spy_locks()
        for name in ('a', 'b', 'c'):
            self.create_lease(name=name, amount=1, affinity=True,
                              start_in={'hours': 1})
        self.assertEqual(3, len(locked), locked)
        self.assertNotIn(None, locked)

    def test_contended_decisions_end_with_every_host_locked(self):
        # the first two decisions find a chosen host retired meanwhile
        locked = self._spy_locks(misses=2)
        lease = self.create_lease(name='a', amount=2)
        self.assertEqual(3, len(locked), locked)
        self.assertEqual(None, locked[-1])
        self.assertEqual(2, sum(lease.reservations[0].slots_by_host.values()))

    def _spy_locks(self, misses: int = 0) -> list:
        """The host ids each lock_reservable call asked for (None: every
        reservable host); the first ``misses`` calls for chosen hosts
        lock none, as if they were retired meanwhile."""
        locked = []
        real = host_obj.lock_reservable

        def spy(database, host_ids=None):
            locked.append(None if host_ids is None else sorted(host_ids))
            if host_ids is not None and len(locked) <= misses:
                return set()
            return real(database, host_ids)

        self.useFixture(fixtures.MockPatchObject(
            host_obj, 'lock_reservable', spy))
        return locked

    def _reservation(self, name: str) -> str:
        (lease,) = [lease for lease in lease_obj.list_leases(self.db)
                    if lease.name == name]
        return lease.reservations[0].id

    def test_a_retired_host_leaves_the_kept_holdings(self):
        self.create_lease(name='a', amount=4, affinity=True)
        host_obj.retire(self.db, host_obj.find(self.db, 'cn2'))
        exc = self.assertRaises(exception.NoCapacity, self.create_lease,
                                name='b', amount=1)
        self.assertIn('the 1 hosts have 0', exc.detail)

    def test_every_write_of_a_holding_moves_the_fingerprint(self):
        seen = [lease_obj.holdings_fingerprint(self.db)]
        lease = self.create_lease(name='a', amount=2, start_in={'hours': 1})
        seen.append(lease_obj.holdings_fingerprint(self.db))
        lease = self.res.leases.update(lease, {'amount': 3})
        seen.append(lease_obj.holdings_fingerprint(self.db))
        lease_obj.set_status(self.db, lease.id, states.LEASE_ACTIVE,
                             states.RESERVATION_ACTIVE)
        seen.append(lease_obj.holdings_fingerprint(self.db))
        lease_obj.drop_allocations(self.db, lease.id)
        seen.append(lease_obj.holdings_fingerprint(self.db))
        lease_obj.delete(self.db, lease.id)
        seen.append(lease_obj.holdings_fingerprint(self.db))
        host_obj.retire(self.db, host_obj.find(self.db, 'cn2'))
        seen.append(lease_obj.holdings_fingerprint(self.db))
        # each write moved it (no write left it where it was before)
        self.assertEqual([], [i for i in range(1, len(seen))
                              if seen[i] == seen[i - 1]], seen)

    def test_a_check_that_never_holds_gives_up(self):
        self.create_lease(name='a', amount=1, affinity=True)
        self.useFixture(fixtures.MockPatchObject(
            capacity_inputs.HostViews, 'stale',
            lambda _self, chosen, *_a: dict.fromkeys(chosen)))
        exc = self.assertRaises(exception.Conflict, self.create_lease,
                                name='b', amount=1)
        self.assertIn('changed in Placement during 4 decisions', exc.detail)
        self.assertEqual(['a'], [lease.name for lease in
                                 lease_obj.list_leases(self.db)])

    def test_changed_hosts_from_one_bulk_read(self):
        # every changed host counts as many: the pool is read in one call
        self.useFixture(fixtures.MockPatchObject(
            capacity_inputs, 'READ_ONE_BY_ONE_MAX', 0))
        calls = self.res.placement.client.calls
        self.create_lease(name='a', amount=1)     # no kept view yet
        pbase.allocate(self.client, {self.computes['cn1']: {
            'VCPU': 3, 'MEMORY_MB': 512, 'DISK_GB': 1}})
        pbase.allocate(self.client, {self.computes['cn2']: {'VCPU': 1}})
        calls.clear()
        exc = self.assertRaises(exception.NoCapacity, self.create_lease,
                                name='c', amount=5)
        # 8 slots - 1 held - 3 vCPU on cn1 - 1 vCPU on cn2
        self.assertIn('needs 5 free slots; the 2 hosts have 3', exc.detail)
        self.assertEqual(1, calls['GET /allocation_candidates?member_of'])
        self.assertNotIn('GET /resource_providers/{uuid}/usages', calls)

    def test_another_manager_uses_the_kept_views(self):
        self.create_lease(name='a', amount=1)
        other = self.manager()
        other.leases.create(self.lease_body(name='b', amount=1),
                            base.PROJECT, 'user')
        self.assertNotIn('GET /resource_providers/{uuid}/inventories',
                         other.placement.client.calls)

    def test_full_host_today_is_still_read(self):
        # cn1 is full now (no allocation candidate, so no summary):
        # its capacity comes from its inventory and usage instead
        pbase.allocate(self.client, {self.computes['cn1']: {'VCPU': 4}})
        exc = self.assertRaises(exception.NoCapacity, self.create_lease,
                                amount=5)
        self.assertIn('needs 5 free slots; the 2 hosts have 4', exc.detail)

    def test_retired_hosts_are_not_offered(self):
        host_obj.retire(self.db, host_obj.find(self.db, 'cn2'))
        lease = self.create_lease(amount=4)
        self.assertEqual({'cn1': 4}, lease.reservations[0].slots_by_host)

    def test_bad_input_names_the_field(self):
        body = self.lease_body()
        body['reservations'][0]['amount'] = 0
        exc = self.assertRaises(exception.InvalidInput,
                                self.res.leases.create, body, 'p', 'u')
        self.assertIn('amount', exc.field)
        body = self.lease_body(start='2001-01-01T00:00')
        exc = self.assertRaises(exception.InvalidInput,
                                self.res.leases.create, body, 'p', 'u')
        self.assertEqual('start_date', exc.field)
        body = self.lease_body()
        body['reservations'][0]['resource_properties'] = '["==", "$a", 1]'
        exc = self.assertRaises(exception.InvalidInput,
                                self.res.leases.create, body, 'p', 'u')
        self.assertEqual('reservations[0].resource_properties', exc.field)

    def test_same_name_in_a_project_is_refused(self):
        self.create_lease(name='x')
        exc = self.assertRaises(exception.Conflict, self.create_lease,
                                name='x')
        self.assertIn("already has a lease named 'x'", exc.detail)

    def test_flavor_failure_removes_the_lease(self):
        self.nova.fail['ensure_private_flavor'] = exception.ServiceError(
            service='Nova', reason='boom')
        self.assertRaises(exception.ServiceError, self.create_lease,
                          amount=2)
        self.assertEqual([], self.res.reconciler.run()['findings'])
        self.assertEqual(set(), self.classes())
        lease = self.create_lease(amount=8)
        self.assertEqual(2, len(lease.reservations[0].slots_by_host))


class TestStartEnd(base.ReservationTestCase):

    def setUp(self):
        super().setUp()
        self.add_compute('cn1')
        self.add_compute('cn2')

    def test_start_puts_one_inventory_per_host(self):
        lease = self.create_lease(amount=6)
        outcomes = self.run_events()
        self.assertEqual(['done'], [o.result for o in outcomes])
        rc = lease.reservations[0].resource_class
        self.assertEqual({rc: 4}, self.reservation_inventory('cn1'))
        self.assertEqual({rc: 2}, self.reservation_inventory('cn2'))
        provider = self.provider('cn1')
        _gen, inventory = self.res.placement.inventories(provider.uuid)
        self.assertEqual({'total': 4, 'reserved': 0, 'min_unit': 1,
                          'max_unit': 1, 'step_size': 1,
                          'allocation_ratio': 1.0}, inventory[rc])
        lease = self.lease(lease.id)
        self.assertEqual(states.LEASE_ACTIVE, lease.status)
        self.assertEqual(states.RESERVATION_ACTIVE,
                         lease.reservations[0].status)
        self.assertEqual([], self.run_events())

    def test_start_keeps_other_reservations_inventories(self):
        first = self.create_lease(name='a', amount=2, affinity=True)
        self.run_events()
        second = self.create_lease(name='b', amount=2, affinity=True)
        self.run_events()
        inventory = self.reservation_inventory('cn1')
        self.assertEqual({first.reservations[0].resource_class: 2,
                          second.reservations[0].resource_class: 2},
                         inventory)

    def test_reserved_instances_count_once(self):
        lease = self.create_lease(amount=4, affinity=True)
        self.run_events()
        for _ in range(3):
            self.boot(self.lease(lease.id), 'cn1')
        # cn1 runs 3 reserved instances inside its 4 slots: still full
        exc = self.assertRaises(exception.Conflict, self.create_lease,
                                name='b', amount=5)
        self.assertIn('the 2 hosts have 4', exc.detail)

    def test_end_deletes_servers_inventory_class_and_flavor(self):
        lease = self.create_lease(amount=3, hours=1)
        self.run_events()
        lease = self.lease(lease.id)
        self.boot(lease, 'cn1')
        self.boot(lease, 'cn1')
        self.clock.advance(hours=1)
        outcomes = self.run_events()
        self.assertEqual([('end_lease', 'done')],
                         [(o.event_type, o.result) for o in outcomes])
        self.assert_nothing_left(lease)
        ended = self.lease(lease.id)
        self.assertEqual(states.LEASE_TERMINATED, ended.status)
        self.assertEqual(states.RESERVATION_DELETED,
                         ended.reservations[0].status)
        self.assertEqual({}, ended.reservations[0].slots_by_host)
        self.assertEqual(0, host_obj.slot_count(
            self.db, host_obj.find(self.db, 'cn1').id))
        self.res.hosts.delete('cn1')

    def test_end_deletes_servers_nova_no_longer_lists(self):
        lease = self.create_lease(amount=1, hours=1)
        self.run_events()
        server = self.boot(self.lease(lease.id), 'cn1')
        # the flavor is gone, so Nova's list by flavor misses the server;
        # its Placement allocation still names it
        self.nova.flavors.pop(lease.reservations[0].flavor_id)
        self.clock.advance(hours=1)
        self.run_events()
        self.assertNotIn(server, self.nova.servers)
        self.assert_nothing_left(lease)

    def test_lease_over_before_it_started_is_never_started(self):
        lease = self.create_lease(amount=2, hours=1)
        self.clock.advance(hours=2)
        outcomes = self.run_events()
        self.assertEqual([('start_lease', 'skipped'), ('end_lease', 'done')],
                         [(o.event_type, o.result) for o in outcomes])
        self.assertEqual({}, self.reservation_inventory('cn1'))
        self.assert_nothing_left(lease)

    def test_back_to_back_leases_reuse_the_slots(self):
        first = self.create_lease(name='a', amount=8, hours=1)
        second = self.create_lease(name='b', amount=8, hours=1,
                                   start_in={'hours': 1})
        self.run_events()
        self.clock.advance(hours=1)
        outcomes = self.run_events()
        # at the shared instant the end runs before the start
        self.assertEqual([('end_lease', first.id), ('start_lease',
                                                     second.id)],
                         [(o.event_type, o.lease_id) for o in outcomes])
        rc = second.reservations[0].resource_class
        self.assertEqual({rc: 4}, self.reservation_inventory('cn1'))

    def test_delete_active_lease(self):
        lease = self.create_lease(amount=2)
        self.run_events()
        self.boot(self.lease(lease.id), 'cn1')
        self.res.delete_lease(lease.name, base.PROJECT)
        self.assert_nothing_left(lease)
        self.assertRaises(exception.NotFound, self.lease, lease.id)
        self.assertEqual([], self.run_events())

    def test_delete_pending_lease(self):
        lease = self.create_lease(amount=2, start_in={'days': 1})
        self.res.delete_lease(lease.id)
        self.assert_nothing_left(lease)
        self.assertRaises(exception.NotFound, self.lease, lease.id)
