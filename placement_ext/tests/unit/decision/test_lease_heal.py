"""lease_heal: which reservations a host failure hits, and the outcome."""

import datetime
import itertools

import testtools

from placement_ext.decision import lease_heal

T0 = datetime.datetime(2030, 1, 1)
HOUR = datetime.timedelta(hours=1)


def held(hosts=('cn1',), start=T0, end=T0 + 2 * HOUR, started=False):
    return lease_heal.Held(id='r1', hosts=frozenset(hosts), start=start,
                           end=end, started=started)


class TestHostsToRetire(testtools.TestCase):

    def test_only_reservable_failed_hosts_sorted(self):
        self.assertEqual(['cn1', 'cn3'], lease_heal.hosts_to_retire(
            ['cn3', 'cn2', 'cn1'], {'cn1', 'cn3', 'cn4'}))

    def test_nothing_failed_or_nothing_reservable(self):
        self.assertEqual([], lease_heal.hosts_to_retire(['cn1'], set()))
        self.assertEqual([], lease_heal.hosts_to_retire([], {'cn1'}))


class TestReservabilityChanges(testtools.TestCase):

    def test_withdraw_and_offer_again_on_common_hosts_only(self):
        self.assertEqual(
            (['cn1'], ['cn2']), lease_heal.reservability_changes(
                {'cn1': True, 'cn2': False, 'cn3': True, 'ours': False},
                {'cn1': False, 'cn2': True, 'cn3': True, 'theirs': True}))


class TestIsHit(testtools.TestCase):

    def test_hosts(self):
        cases = [
            # (its hosts, failed, hit)
            (('cn1',), {'cn1'}, True),
            (('cn1', 'cn2'), {'cn2'}, True),
            (('cn1',), {'cn2'}, False),
            ((), {'cn1'}, False),
            (('cn1',), set(), False),
        ]
        for hosts, failed, want in cases:
            self.assertEqual(want, lease_heal.is_hit(
                held(hosts), failed, T0, T0 + HOUR), (hosts, failed))

    def test_period(self):
        # the lease is [T0, T0 + 2h); the failure [begin, end)
        cases = [
            (T0 - HOUR, T0, False),              # ends as the lease starts
            (T0 - HOUR, T0 + HOUR, True),        # overlaps its start
            (T0 + HOUR, T0 + 90 * HOUR / 60, True),   # inside
            (T0 - HOUR, T0 + 3 * HOUR, True),    # covers it
            (T0 + HOUR, T0 + 3 * HOUR, True),    # overlaps its end
            (T0 + 2 * HOUR, T0 + 3 * HOUR, False),   # starts as it ends
            (T0 + 3 * HOUR, T0 + 4 * HOUR, False),   # after
        ]
        for begin, end, want in cases:
            self.assertEqual(want, lease_heal.is_hit(
                held(), {'cn1'}, begin, end), (begin, end))


class TestOutcome(testtools.TestCase):

    def test_every_case(self):
        want = {(True, True): lease_heal.CHANGED,
                (True, False): None,
                (False, True): lease_heal.MISSING,
                (False, False): lease_heal.MISSING}
        for moved, started in itertools.product((True, False), repeat=2):
            self.assertEqual(want[moved, started], lease_heal.outcome(
                held(started=started), moved), (moved, started))
