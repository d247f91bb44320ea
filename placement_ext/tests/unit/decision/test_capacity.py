import datetime

import testtools
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from placement_ext import exception
from placement_ext.decision import capacity
from placement_ext.decision import host_pickup

T0 = datetime.datetime(2030, 1, 1)
ONE_VCPU = capacity.Resources(1, 1024, 10)


def at(hours):
    return T0 + datetime.timedelta(hours=hours)


def cloud_host(name, cpu_ratio=1.0, usage=(0, 0, 0)):
    """A host of the test cloud: nova's SmallFakeDriver, 2 vCPU, 8192 MB
    (512 reserved by reserved_host_memory_mb) and 1028 GB."""
    return capacity.Host(
        name,
        vcpus=capacity.Inventory(2, allocation_ratio=cpu_ratio),
        memory_mb=capacity.Inventory(8192, reserved=512),
        disk_gb=capacity.Inventory(1028),
        usage=capacity.Resources(*usage))


def host(name, vcpus=4, memory_mb=16384, disk_gb=1000, usage=(0, 0, 0)):
    return capacity.Host(name, capacity.Inventory(vcpus),
                         capacity.Inventory(memory_mb),
                         capacity.Inventory(disk_gb),
                         capacity.Resources(*usage))


def held(rid, host_name, start, end, slots, per_instance=ONE_VCPU,
         running=0):
    return capacity.ReservedSlots(rid, host_name, at(start), at(end),
                                  per_instance, slots, running)


def slots(hosts, reservations=(), request=ONE_VCPU, start=0, end=10,
          exclude=None):
    return capacity.slots_by_host(capacity.host_capacities(
        hosts, reservations, request, at(start), at(end), exclude))


class TestHostResources(testtools.TestCase):
    """Capacity from inventories and usage, no reservations."""

    CASES = [
        # (name, host, request, expected slots, limited by)
        ('test cloud host, 1 vCPU flavor', cloud_host('h'),
         ONE_VCPU, 2, 'VCPU'),
        ('test cloud host, 4 GB flavor fits once (512 MB reserved)',
         cloud_host('h'), capacity.Resources(1, 4096, 1), 1,
         'MEMORY_MB'),
        ('cpu ratio 4.0: memory bounds, (8192-512)//1024',
         cloud_host('h', cpu_ratio=4.0), ONE_VCPU, 7, 'MEMORY_MB'),
        ('disk bounds', host('h', disk_gb=25), ONE_VCPU, 2, 'DISK_GB'),
        ('ordinary instances use 3 of 4 vCPUs', host('h', usage=(3, 0, 0)),
         ONE_VCPU, 1, 'VCPU'),
        ('overcommitted host gives 0, not a negative count',
         host('h', usage=(9, 0, 0)), ONE_VCPU, 0, 'VCPU'),
        ('no disk asked: disk ignored', host('h', disk_gb=0),
         capacity.Resources(1, 1024, 0), 4, 'VCPU'),
        ('disk asked but host has none', host('h', disk_gb=0),
         ONE_VCPU, 0, 'DISK_GB'),
        ('flavor larger than the host', host('h'),
         capacity.Resources(8, 1024, 0), 0, 'VCPU'),
    ]

    def test_cases(self):
        for name, one_host, request, expected, bound in self.CASES:
            [result] = capacity.host_capacities(
                [one_host], [], request, at(0), at(1))
            self.assertEqual(('h', expected, bound),
                             (result.host, result.slots, result.limited_by),
                             name)


class TestInventory(testtools.TestCase):

    def test_capacity(self):
        cases = [
            # (total, reserved, ratio, capacity)
            (4, 0, 1.0, 4),
            (3, 0, 1.5, 4),       # 4.5: Placement refuses the 5th unit
            (8192, 512, 1.0, 7680),
            (10, 2, 16.0, 128),
            (2, 4, 1.0, 0),       # reserved above total: no capacity
            (7680, 0, 1.1, 8448),
        ]
        for total, reserved, ratio, expected in cases:
            inventory = capacity.Inventory(total, reserved, ratio)
            self.assertEqual(expected, inventory.capacity,
                             (total, reserved, ratio))

    def test_unit_rules(self):
        cases = [
            # (inventory kwargs, amount, accepted)
            ({}, 0, True),
            ({}, 4, True),
            ({}, 5, False),                  # max_unit defaults to total
            ({'max_unit': 1}, 2, False),
            ({'min_unit': 2}, 1, False),
            ({'step_size': 2}, 3, False),
            ({'step_size': 2}, 4, True),
        ]
        for kwargs, amount, expected in cases:
            inventory = capacity.Inventory(4, **kwargs)
            self.assertEqual(expected, inventory.accepts(amount),
                             (kwargs, amount))

    def test_unit_rules_bound_the_host(self):
        one = capacity.Host('h', capacity.Inventory(8, max_unit=1),
                            capacity.Inventory(8192),
                            capacity.Inventory(100))
        [result] = capacity.host_capacities(
            [one], [], capacity.Resources(2, 1, 1), at(0), at(1))
        self.assertEqual((0, 'VCPU'), (result.slots, result.limited_by))

    def test_from_placement(self):
        inventories = {
            'VCPU': {'total': 2, 'reserved': 0, 'min_unit': 1,
                     'max_unit': 2, 'step_size': 1,
                     'allocation_ratio': 4.0},
            'MEMORY_MB': {'total': 8192, 'reserved': 512,
                          'allocation_ratio': 1.0},
        }
        built = capacity.Host.from_placement(
            'h', inventories, {'VCPU': 1, 'MEMORY_MB': 512})
        self.assertEqual(capacity.Inventory(2, 0, 4.0, 1, 2, 1), built.vcpus)
        self.assertEqual(capacity.Inventory(8192, 512), built.memory_mb)
        self.assertEqual(capacity.Inventory(0), built.disk_gb)
        self.assertEqual(capacity.Resources(1, 512, 0), built.usage)
        # max_unit 2 caps a 3-vCPU flavor even though ratio 4.0 gives 8
        [result] = capacity.host_capacities(
            [built], [], capacity.Resources(3, 1, 0), at(0), at(1))
        self.assertEqual(0, result.slots)
        self.assertEqual(capacity.Resources(),
                         capacity.Host.from_placement('h', {}).usage)


class TestOverlap(testtools.TestCase):
    """Peak concurrent use over the period, slot by slot."""

    def test_upstream_overbooking_regression(self):
        # Blazar counts a reservation once per host: one overlapping
        # reservation holding 3 one-vCPU slots on a 4-vCPU host leaves 1
        # free slot, where Blazar answers 3 and overbooks.
        reservations = [held('a', 'h', 0, 10, slots=3)]
        self.assertEqual({'h': 1}, slots([host('h')], reservations))

    def test_two_reservations_overlapping_at_different_times(self):
        # A holds 2 slots 0-10h and B 2 slots 5-15h on a 4-vCPU host:
        # both coexist 5-10h, so the host is full then.
        reservations = [held('a', 'h', 0, 10, slots=2),
                        held('b', 'h', 5, 15, slots=2)]
        cases = [
            # (start, end, free slots, why)
            (0, 15, 0, 'A and B together from 5h to 10h'),
            (0, 5, 2, 'only A'),
            (10, 20, 2, 'only B'),
            (15, 20, 4, 'neither: B ends at 15h'),
            (4, 6, 0, 'across the moment B starts'),
        ]
        for start, end, expected, why in cases:
            self.assertEqual({'h': expected},
                             slots([host('h')], reservations, start=start,
                                   end=end), why)

    def test_back_to_back_reservations_are_not_summed(self):
        # Summing every overlapping reservation would say 3 + 3 > 4: full.
        reservations = [held('a', 'h', 0, 5, slots=3),
                        held('b', 'h', 5, 10, slots=3)]
        self.assertEqual({'h': 1}, slots([host('h')], reservations))

    def test_touching_periods_do_not_overlap(self):
        reservations = [held('a', 'h', 0, 10, slots=4)]
        self.assertEqual({'h': 4}, slots([host('h')], reservations,
                                         start=10, end=20))
        self.assertEqual({'h': 4}, slots([host('h')], reservations,
                                         start=-5, end=0))

    def test_peak_is_taken_per_resource(self):
        # A is CPU-heavy early, B memory-heavy later: each resource has
        # its own peak and the instance must fit at every moment.
        one = host('h', vcpus=4, memory_mb=4096)
        reservations = [
            held('a', 'h', 0, 5, 2, capacity.Resources(1, 512, 0)),
            held('b', 'h', 5, 10, 1, capacity.Resources(1, 3072, 0)),
        ]
        request = capacity.Resources(1, 512, 0)
        # 0-5h: 2 vCPU and 3072 MB free (2 fit); 5-10h: 3 vCPU, 1024 MB (2)
        self.assertEqual({'h': 2}, slots([one], reservations, request))
        self.assertEqual({'h': 2}, slots([one], reservations[1:], request))

    def test_exclude_the_reservation_being_updated(self):
        reservations = [held('self', 'h', 0, 10, slots=3),
                        held('other', 'h', 0, 10, slots=1)]
        self.assertEqual({'h': 0}, slots([host('h')], reservations))
        self.assertEqual({'h': 3}, slots([host('h')], reservations,
                                         exclude='self'))

    def test_several_hosts_and_unknown_hosts(self):
        reservations = [held('a', 'h1', 0, 10, slots=2),
                        held('a', 'h2', 0, 10, slots=1),
                        held('a', 'gone', 0, 10, slots=4),
                        held('b', 'h2', 2, 3, slots=0)]
        result = capacity.host_capacities(
            [host('h2'), host('h1'), host('h3')], reservations, ONE_VCPU,
            at(0), at(10))
        self.assertEqual(['h1', 'h2', 'h3'], [r.host for r in result])
        self.assertEqual({'h1': 2, 'h2': 3, 'h3': 4},
                         capacity.slots_by_host(result))


class TestPlacementUsage(testtools.TestCase):
    """Running reserved instances are counted once, via their slots."""

    def test_running_reserved_instances_not_counted_twice(self):
        # Placement's usage (2 vCPUs) is the 2 instances of reservation A.
        reservations = [held('a', 'h', 0, 10, slots=2, running=2)]
        one = host('h', usage=(2, 2048, 20))
        self.assertEqual({'h': 2}, slots([one], reservations))

    def test_ordinary_usage_counts_for_the_whole_period(self):
        # 1 vCPU of ordinary instances + reservation A's 2 running ones.
        reservations = [held('a', 'h', 0, 10, slots=2, running=2)]
        one = host('h', usage=(3, 3072, 30))
        self.assertEqual({'h': 1}, slots([one], reservations))
        # A future lease after A ends still sees the ordinary instance.
        self.assertEqual({'h': 3}, slots([one], reservations, start=20,
                                         end=30))

    def test_running_slots_of_an_excluded_reservation(self):
        # Updating A: its running instances are neither ordinary usage nor
        # held slots, so all 4 vCPUs are free for A's new allocation.
        reservations = [held('a', 'h', 0, 10, slots=2, running=2)]
        one = host('h', usage=(2, 2048, 20))
        self.assertEqual({'h': 4}, slots([one], reservations, exclude='a'))

    def test_usage_below_running_is_not_negative(self):
        # A stale usage read must not invent room.
        reservations = [held('a', 'h', 0, 10, slots=2, running=2)]
        self.assertEqual({'h': 2}, slots([host('h')], reservations))


class TestInvalidInput(testtools.TestCase):

    def test_refused(self):
        cases = [
            # (kwargs for slots(), field)
            ({'start': 5, 'end': 5}, 'end_date'),
            ({'start': 6, 'end': 5}, 'end_date'),
            ({'request': capacity.Resources(0, 0, 0)}, 'vcpus'),
            ({'request': capacity.Resources(-1, 1, 1)}, 'vcpus'),
            ({'request': capacity.Resources(1, 1.5, 1)}, 'memory_mb'),
            ({'request': capacity.Resources(1, 1, True)}, 'disk_gb'),
            ({'hosts': [host('h'), host('h')]}, 'hosts'),
        ]
        for kwargs, field in cases:
            kwargs.setdefault('hosts', [host('h')])
            error = self.assertRaises(exception.InvalidInput, slots,
                                      **kwargs)
            self.assertEqual(field, error.field, kwargs)


class TestIssueScenario(testtools.TestCase):
    """Issue 5: 6 one-vCPU instances on hosts of the test cloud."""

    def _pick(self, hosts, affinity):
        capacities = slots(hosts)
        return capacities, host_pickup.pick_hosts(capacities, 6, affinity)

    def test_two_test_cloud_hosts_hold_only_four(self):
        # 2 vCPU each at ratio 1.0: 4 one-vCPU instances, not 6.
        hosts = [cloud_host('c1'), cloud_host('c2')]
        capacities, pickup = self._pick(hosts, None)
        self.assertEqual({'c1': 2, 'c2': 2}, capacities)
        self.assertEqual('affinity=None needs 6 free slots; the 2 hosts '
                         'have 4 in total', pickup.reason)

    def test_three_test_cloud_hosts_more_instances_than_hosts(self):
        hosts = [cloud_host('c%d' % i) for i in (1, 2, 3)]
        capacities, pickup = self._pick(hosts, None)
        self.assertEqual((('c1', 2), ('c2', 2), ('c3', 2)),
                         pickup.allocations)
        self.assertFalse(self._pick(hosts, True)[1].ok)
        self.assertFalse(self._pick(hosts, False)[1].ok)

    def test_two_hosts_with_cpu_ratio_four(self):
        # Nova's default initial_cpu_allocation_ratio (4.0): 7 per host.
        hosts = [cloud_host('c1', 4.0), cloud_host('c2', 4.0)]
        capacities, pickup = self._pick(hosts, None)
        self.assertEqual({'c1': 7, 'c2': 7}, capacities)
        self.assertEqual((('c1', 6),), pickup.allocations)
        self.assertEqual((('c1', 6),), self._pick(hosts, True)[1].allocations)
        self.assertFalse(self._pick(hosts, False)[1].ok)


def brute_force(one_host, reservations, request, start, end, exclude):
    """Reference: try every moment where the use can change."""
    usage = list(one_host.usage.as_tuple())
    for res in reservations:
        for i in range(3):
            usage[i] -= res.running * res.per_instance.as_tuple()[i]
    moments = {start} | {res.start for res in reservations
                         if start < res.start < end}
    best = None
    for moment in moments:
        for i, inventory in enumerate(one_host.inventories()):
            asked = request.as_tuple()[i]
            if not asked:
                continue
            used = max(0, usage[i]) + sum(
                res.slots * res.per_instance.as_tuple()[i]
                for res in reservations
                if res.reservation_id != exclude
                and res.start <= moment < res.end)
            fits = (inventory.capacity - used) // asked \
                if inventory.accepts(asked) else 0
            best = fits if best is None else min(best, fits)
    return max(0, best)


resources = st.builds(capacity.Resources, st.integers(0, 3),
                      st.integers(0, 4096), st.integers(0, 50))
reservation_entries = st.lists(st.tuples(
    # Short times so that periods often touch and overlap.
    st.sampled_from('abcd'), st.integers(0, 10), st.integers(1, 6),
    st.integers(0, 4), st.integers(0, 2), resources), max_size=8)


class TestProperties(testtools.TestCase):

    @settings(max_examples=300, deadline=None)
    @given(vcpus=st.integers(0, 16), memory=st.integers(0, 16384),
           disk=st.integers(0, 200), usage=resources,
           request=resources.filter(lambda r: any(r.as_tuple())),
           entries=reservation_entries, start=st.integers(0, 10),
           length=st.integers(1, 10), exclude=st.sampled_from('ax'))
    def test_matches_brute_force_and_never_negative(
            self, vcpus, memory, disk, usage, request, entries, start,
            length, exclude):
        one = capacity.Host('h', capacity.Inventory(vcpus),
                            capacity.Inventory(memory),
                            capacity.Inventory(disk), usage)
        reservations = [
            capacity.ReservedSlots(rid, 'h', at(begin), at(begin + span),
                                   per_instance, count, min(run, count))
            for rid, begin, span, count, run, per_instance in entries]
        [result] = capacity.host_capacities(
            [one], reservations, request, at(start), at(start + length),
            exclude)
        self.assertGreaterEqual(result.slots, 0)
        self.assertEqual(
            brute_force(one, reservations, request, at(start),
                        at(start + length), exclude), result.slots)
