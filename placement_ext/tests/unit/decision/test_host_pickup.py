import testtools
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from placement_ext import exception
from placement_ext.decision import host_pickup


def pick(capacities, amount, affinity, current=None):
    return host_pickup.pick_hosts(capacities, amount, affinity, current)


def check_cases(test, affinity, cases):
    """Run ``(name, capacities, amount, current, allocations)`` rows."""
    for name, capacities, amount, current, expected in cases:
        result = pick(capacities, amount, affinity, current)
        test.assertEqual((expected, None),
                         (result.allocations, result.reason), name)


class TestAffinityTrue(testtools.TestCase):

    CASES = [
        # (name, capacities, amount, current, allocations)
        ('best fit: the fullest host that holds all',
         {'a': 8, 'b': 3, 'c': 5}, 3, None, (('b', 3),)),
        ('tie on free slots: first name', {'b': 4, 'a': 4}, 2, None,
         (('a', 2),)),
        ('update: stay on the current host even if a fuller one fits',
         {'a': 8, 'b': 3}, 3, {'a': 2}, (('a', 3),)),
        ('update: current host too small, move to the best fit',
         {'a': 2, 'b': 6, 'c': 4}, 3, {'a': 2}, (('c', 3),)),
        ('update: current host gone from the candidates',
         {'b': 6}, 3, {'a': 3}, (('b', 3),)),
        ('update from a mix: the host with most slots first',
         {'a': 5, 'b': 5}, 4, {'a': 1, 'b': 3}, (('b', 4),)),
    ]

    def test_cases(self):
        check_cases(self, True, self.CASES)


class TestAffinityFalse(testtools.TestCase):

    CASES = [
        # (name, capacities, amount, current, allocations)
        ('fullest hosts first, one slot each',
         {'a': 5, 'b': 1, 'c': 2, 'd': 1}, 3, None,
         (('b', 1), ('c', 1), ('d', 1))),
        ('hosts without room are skipped', {'a': 0, 'b': 3, 'c': 1}, 2,
         None, (('b', 1), ('c', 1))),
        ('update: keep current hosts, add the fullest',
         {'a': 9, 'b': 9, 'c': 1}, 3, {'a': 1, 'b': 1},
         (('a', 1), ('b', 1), ('c', 1))),
        ('update shrinking: keep current hosts by name',
         {'a': 9, 'b': 9, 'c': 9}, 2, {'c': 1, 'b': 1, 'a': 1},
         (('a', 1), ('b', 1))),
        ('update: a current host that lost its room is replaced',
         {'a': 0, 'b': 3, 'c': 2}, 2, {'a': 1, 'b': 1},
         (('b', 1), ('c', 1))),
    ]

    def test_cases(self):
        check_cases(self, False, self.CASES)


class TestAffinityNone(testtools.TestCase):

    CASES = [
        # (name, capacities, amount, current, allocations)
        ('more instances than hosts: packed on one host',
         {'a': 4, 'b': 4}, 3, None, (('a', 3),)),
        ('more instances than hosts: spread when needed',
         {'a': 2, 'b': 2, 'c': 2}, 6, None,
         (('a', 2), ('b', 2), ('c', 2))),
        ('one host suffices: the fullest that does',
         {'a': 10, 'b': 6, 'c': 5, 'd': 2}, 5, None, (('c', 5),)),
        ('fewest hosts, and the big host stays whole',
         {'big': 10, 'm': 6, 's': 5}, 11, None, (('m', 6), ('s', 5))),
        ('fewest hosts: small remainder on the fullest host',
         {'a': 5, 'b': 5, 'c': 5, 'd': 1}, 6, None, (('a', 5), ('d', 1))),
        ('fewest hosts: three needed', {'a': 4, 'b': 4, 'c': 4, 'd': 1}, 9,
         None, (('a', 4), ('b', 4), ('d', 1))),
        ('hosts without room are skipped', {'a': 0, 'b': 3}, 2, None,
         (('b', 2),)),
        ('update growing: fill the current host first',
         {'a': 5, 'b': 5}, 4, {'b': 2}, (('b', 4),)),
        ('update growing: existing slots stay where they are',
         {'a': 5, 'b': 5}, 4, {'a': 2, 'b': 1}, (('a', 3), ('b', 1))),
        ('update growing past the current host',
         {'a': 5, 'b': 3, 'c': 2}, 5, {'b': 2}, (('b', 3), ('c', 2))),
        ('update shrinking: remove from the host with fewest slots',
         {'a': 9, 'b': 9}, 3, {'a': 1, 'b': 3}, (('b', 3),)),
        ('update shrinking, tie: keep the first name',
         {'a': 9, 'b': 9}, 2, {'a': 2, 'b': 2}, (('a', 2),)),
        ('update: current host lost room, its slots move',
         {'a': 1, 'b': 9}, 3, {'a': 3}, (('a', 1), ('b', 2))),
        ('update: zero counts in current are ignored',
         {'a': 3, 'b': 3}, 2, {'a': 0, 'b': 1}, (('b', 2),)),
    ]

    def test_cases(self):
        check_cases(self, None, self.CASES)


class TestRefusals(testtools.TestCase):

    CASES = [
        # (capacities, amount, affinity, reason)
        ({'a': 4, 'b': 2, 'c': 4}, 6, True, 'affinity=True needs one host '
         'with 6 free slots; the best host (a) has 4'),
        ({'a': 0}, 1, True, 'affinity=True needs one host with 1 free '
         'slots; no host has a free slot'),
        ({}, 2, True, 'affinity=True needs one host with 2 free slots; '
         'no host has a free slot'),
        ({'a': 5, 'b': 1, 'c': 0}, 3, False, 'affinity=False needs 3 '
         'distinct hosts with a free slot; only 2 have one'),
        ({'a': 2, 'b': 1, 'c': 0}, 4, None, 'affinity=None needs 4 free '
         'slots; the 3 hosts have 3 in total'),
        ({}, 1, None, 'affinity=None needs 1 free slots; the 0 hosts have '
         '0 in total'),
    ]

    def test_refusals(self):
        for capacities, amount, affinity, reason in self.CASES:
            result = pick(capacities, amount, affinity)
            self.assertEqual(((), reason), (result.allocations,
                                            result.reason))
            self.assertFalse(result.ok)


class TestInvalidInput(testtools.TestCase):

    def test_refused(self):
        cases = [
            # (capacities, amount, affinity, current, field)
            ({'a': 1}, 0, None, None, 'amount'),
            ({'a': 1}, True, None, None, 'amount'),
            ({'a': 1}, 1.0, None, None, 'amount'),
            ({'a': 1}, 1, 'True', None, 'affinity'),
            ({'a': 1}, 1, 1, None, 'affinity'),
            ({'a': 1}, 1, 1.0, None, 'affinity'),
            ({'a': -1}, 1, None, None, 'capacities'),
            ({'a': 1.5}, 1, None, None, 'capacities'),
            ({'a': 1}, 1, None, {'a': -2}, 'current'),
        ]
        for capacities, amount, affinity, current, field in cases:
            error = self.assertRaises(exception.InvalidInput, pick,
                                      capacities, amount, affinity, current)
            self.assertEqual(field, error.field)


class TestAllocationChanges(testtools.TestCase):

    def test_changes(self):
        cases = [
            ({}, (('a', 2),), (('a', 2),)),
            ({'a': 2}, (('a', 2),), ()),
            ({'a': 3, 'b': 1}, (('a', 1), ('c', 2)),
             (('a', -2), ('b', -1), ('c', 2))),
        ]
        for current, allocations, expected in cases:
            self.assertEqual(expected, host_pickup.allocation_changes(
                current, allocations))


capacities_strategy = st.dictionaries(
    st.text('abcdefgh', min_size=1, max_size=3), st.integers(0, 6),
    max_size=12)


class TestProperties(testtools.TestCase):

    @settings(max_examples=400, deadline=None)
    @given(capacities=capacities_strategy, amount=st.integers(1, 30),
           affinity=st.sampled_from([True, False, None]),
           current=st.dictionaries(st.text('abcdefgh', min_size=1,
                                           max_size=3),
                                   st.integers(0, 4), max_size=4))
    def test_pickup_invariants(self, capacities, amount, affinity, current):
        result = pick(capacities, amount, affinity, current)
        # Deterministic: same input, same answer, in any dict order.
        again = pick(dict(reversed(capacities.items())), amount, affinity,
                     current)
        self.assertEqual(result, again)
        if not result.ok:
            self.assertEqual((), result.allocations)
            self.assertFalse(self._possible(capacities, amount, affinity))
            return
        self.assertEqual(amount, sum(n for _h, n in result.allocations))
        hosts = [h for h, _n in result.allocations]
        self.assertEqual(sorted(set(hosts)), hosts)
        for host, count in result.allocations:
            self.assertGreaterEqual(count, 1)
            self.assertLessEqual(count, capacities.get(host, 0))
        if affinity is True:
            self.assertEqual(1, len(hosts))
        elif affinity is False:
            self.assertEqual([1] * amount,
                             [n for _h, n in result.allocations])
        elif not any(current.values()):
            self.assertEqual(self._fewest(capacities, amount), len(hosts))

    @staticmethod
    def _possible(capacities, amount, affinity):
        if affinity is True:
            return any(free >= amount for free in capacities.values())
        if affinity is False:
            return sum(1 for free in capacities.values() if free) >= amount
        return sum(capacities.values()) >= amount

    @staticmethod
    def _fewest(capacities, amount):
        total = 0
        for count, free in enumerate(sorted(capacities.values(),
                                            reverse=True), 1):
            total += free
            if total >= amount:
                return count
        raise AssertionError('not possible')
