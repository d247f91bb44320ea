"""Which hosts a lease create reads from Placement again."""

import testtools

from placement_ext.decision import usage_freshness as uf

PROVIDERS = {1: 'rp-1', 2: 'rp-2', 3: 'rp-3'}


class TestPlanReads(testtools.TestCase):

    def plan(self, kept, listed, providers=PROVIDERS):
        return uf.plan_reads(providers, kept, listed)

    def test_nothing_changed_nothing_read(self):
        plan = self.plan({1: 5, 2: 7, 3: 0},
                         {'rp-1': 5, 'rp-2': 7, 'rp-3': 0})
        self.assertEqual(uf.ReadPlan((), ()), plan)

    def test_a_moved_generation_is_read(self):
        plan = self.plan({1: 5, 2: 7, 3: 0},
                         {'rp-1': 6, 'rp-2': 7, 'rp-3': 0})
        self.assertEqual(uf.ReadPlan((1,), ()), plan)

    def test_an_older_listed_generation_is_read_too(self):
        # a provider deleted and made again starts over at 0
        plan = self.plan({1: 5}, {'rp-1': 0}, {1: 'rp-1'})
        self.assertEqual((1,), plan.read)

    def test_never_read_hosts_are_read(self):
        plan = self.plan({2: 7}, {'rp-1': 1, 'rp-2': 7, 'rp-3': 0})
        self.assertEqual(uf.ReadPlan((1, 3), ()), plan)

    def test_hosts_not_listed_are_read_and_marked(self):
        plan = self.plan({1: 5, 2: 7, 3: 0}, {'rp-2': 7})
        self.assertEqual(uf.ReadPlan((1, 3), (1, 3)), plan)

    def test_no_listing_reads_everything(self):
        plan = self.plan({1: 5, 2: 7, 3: 0}, {})
        self.assertEqual(uf.ReadPlan((1, 2, 3), (1, 2, 3)), plan)

    def test_kept_views_of_other_hosts_are_ignored(self):
        plan = self.plan({1: 5, 9: 1}, {'rp-1': 5, 'rp-9': 2}, {1: 'rp-1'})
        self.assertEqual(uf.ReadPlan((), ()), plan)

    def test_no_hosts(self):
        self.assertEqual(uf.ReadPlan((), ()), self.plan({}, {}, {}))
