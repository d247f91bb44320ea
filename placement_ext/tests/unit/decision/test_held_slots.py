"""What a lease decision counts: held slots and pool views, table-driven."""

import datetime
import types

import testtools

from placement_ext.decision import held_slots

RC = 'CUSTOM_RESERVATION_4D17D41A_830D_47B2_91C7_4F9FC0AE611E'
T0 = datetime.datetime(2030, 1, 1)
VCPU = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
        'step_size': 1, 'allocation_ratio': 4.0}


def holding(name, host_id, days=(0, 0), slots=1, rc=RC):
    return types.SimpleNamespace(
        reservation_id=name, host_id=host_id,
        start=T0 + datetime.timedelta(days[0]),
        end=T0 + datetime.timedelta(days[1]), vcpus=1, memory_mb=512,
        disk_gb=1, slots=slots, resource_class=rc)


def usage(inventories=None, usages=None, reserved=None):
    return types.SimpleNamespace(inventories=inventories or {},
                                 usages=usages or {},
                                 reservation_usages=reserved or {})


def tree(capacities, usages=None, reserved=None):
    return types.SimpleNamespace(capacities=capacities, usages=usages or {},
                                 reservation_usages=reserved or {})



class TestWidened(testtools.TestCase):

    def test_cleaning_time_on_each_side(self):
        start = datetime.datetime(2030, 1, 1, 10)
        margin = datetime.timedelta(minutes=30)
        self.assertEqual(
            (start - margin, start + 2 * margin),
            held_slots.widened(start, start + margin, margin))

class TestDuring(testtools.TestCase):

    def test_overlapping_holdings_and_those_running_now(self):
        holdings = [holding('overlaps', 1, (1, 3)),
                    holding('before', 1, (0, 1)),
                    holding('after', 1, (5, 6)),
                    holding('running', 1, (0, 1), rc='RC2')]
        out = held_slots.during(holdings, T0 + datetime.timedelta(1),
                                T0 + datetime.timedelta(5),
                                {1: usage(reserved={'RC2': 1})})
        self.assertEqual(['overlaps', 'running'],
                         [h.reservation_id for h in out])


class TestReservedSlots(testtools.TestCase):

    def test_slots_on_known_hosts_with_their_running_instances(self):
        host = types.SimpleNamespace(hypervisor_hostname='cn1')
        held = [holding('r1', 7, slots=3), holding('r2', 8)]
        (slots,) = held_slots.reserved_slots(
            held, {7: host}, {7: usage(reserved={RC: 2})})
        self.assertEqual(('r1', 'cn1', 3, 2, (1, 512, 1)),
                         (slots.reservation_id, slots.host, slots.slots,
                          slots.running, slots.per_instance.as_tuple()))

    def test_no_usage_means_none_running(self):
        host = types.SimpleNamespace(hypervisor_hostname='cn1')
        (slots,) = held_slots.reserved_slots([holding('r1', 7)], {7: host},
                                             {})
        self.assertEqual(0, slots.running)


class TestViewMatches(testtools.TestCase):

    CASES = [
        # (usage, tree, matches)
        (usage({'VCPU': VCPU}, {'VCPU': 3}, {RC: 1}),
         tree({'VCPU': 32}, {'VCPU': 3}, {RC: 1}), True),
        # zero amounts are the same as absent ones
        (usage({'VCPU': VCPU}, {'VCPU': 3, 'DISK_GB': 0}),
         tree({'VCPU': 32}, {'VCPU': 3}, {RC: 0}), True),
        (usage({'VCPU': VCPU}, {'VCPU': 3}),
         tree({'VCPU': 16}, {'VCPU': 3}), False),
        (usage({'VCPU': VCPU}, {'VCPU': 3}),
         tree({'VCPU': 32}, {'VCPU': 4}), False),
        (usage({'VCPU': VCPU}, {'VCPU': 3}, {RC: 1}),
         tree({'VCPU': 32}, {'VCPU': 3}, {RC: 2}), False),
    ]

    def test_cases(self):
        for i, (seen, listed, expected) in enumerate(self.CASES):
            with self.subTest(i):
                self.assertEqual(expected,
                                 held_slots.view_matches(seen, listed))


class TestPoolView(testtools.TestCase):

    SIZES = (4, 2048, 20)

    def test_no_tree_no_view(self):
        self.assertIsNone(held_slots.pool_view(self.SIZES, None, None))

    def test_kept_inventories_with_the_trees_usages(self):
        view = held_slots.pool_view(
            self.SIZES, tree({'VCPU': 32}, {'VCPU': 2}, {RC: 1}),
            {'VCPU': VCPU})
        self.assertEqual(({'VCPU': VCPU}, {'VCPU': 2}, {RC: 1}), view)

    def test_moved_capacity_means_no_view(self):
        self.assertIsNone(held_slots.pool_view(
            self.SIZES, tree({'VCPU': 16}), {'VCPU': VCPU}))

    def test_without_kept_view_inventories_come_from_capacities(self):
        inventories, _used, _reserved = held_slots.pool_view(
            self.SIZES, tree({'VCPU': 32, 'MEMORY_MB': 1024}), None)
        self.assertEqual(
            {'VCPU': {'total': 32, 'reserved': 0, 'allocation_ratio': 1.0,
                      'min_unit': 1, 'max_unit': 4, 'step_size': 1},
             'MEMORY_MB': {'total': 1024, 'reserved': 0,
                           'allocation_ratio': 1.0, 'min_unit': 1,
                           'max_unit': 1024, 'step_size': 1}},
            inventories)
