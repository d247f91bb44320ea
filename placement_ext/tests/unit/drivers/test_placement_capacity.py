import testtools

from placement_ext.drivers.placement import candidates as ac
from placement_ext.drivers.placement import capacity
from placement_ext.tests.fixtures import placement_api as fakes

SHARES = (ac.SHARING_TRAIT,)


def _result(requests_, summaries):
    return ac.AllocationCandidates.from_json(
        fakes.candidates_body(requests_, summaries), '1.39')


def _req(**by_provider):
    return fakes.allocation_request(None, **by_provider)


class TestInstancesPerTree(testtools.TestCase):

    def test_numa_children_add_up_and_the_scarcest_class_wins(self):
        # 2 NUMA nodes with 3 and 4 free VCPUs; 180 GB free disk
        result = _result(
            [_req(**{fakes.NUMA1_1: {'VCPU': 1}, fakes.CN1: {'DISK_GB': 50}}),
             _req(**{fakes.NUMA1_2: {'VCPU': 1},
                     fakes.CN1: {'DISK_GB': 50}})],
            {fakes.CN1: fakes.summary(fakes.CN1, DISK_GB=(1000, 820)),
             fakes.NUMA1_1: fakes.summary(fakes.CN1, fakes.CN1, VCPU=(4, 1)),
             fakes.NUMA1_2: fakes.summary(fakes.CN1, fakes.CN1,
                                          VCPU=(4, 0))})
        self.assertEqual({fakes.CN1: 7}, capacity.instances_per_tree(
            result, {'VCPU': 1, 'DISK_GB': 10}))
        self.assertEqual({fakes.CN1: 3}, capacity.instances_per_tree(
            result, {'VCPU': 1, 'DISK_GB': 50}))
        # an amount is taken whole from one provider: 3 // 2 + 4 // 2
        self.assertEqual({fakes.CN1: 3}, capacity.instances_per_tree(
            result, {'VCPU': 2, 'DISK_GB': 10}))

    def test_only_offered_providers_count(self):
        # numa1_2 has room but Placement did not offer it (e.g. a trait)
        result = _result(
            [_req(**{fakes.NUMA1_1: {'VCPU': 1}})],
            {fakes.CN1: fakes.summary(fakes.CN1),
             fakes.NUMA1_1: fakes.summary(fakes.CN1, fakes.CN1, VCPU=(4, 2)),
             fakes.NUMA1_2: fakes.summary(fakes.CN1, fakes.CN1,
                                          VCPU=(4, 0))})
        self.assertEqual({fakes.CN1: 2}, capacity.instances_per_tree(
            result, {'VCPU': 1}))

    def test_sharing_pool_is_counted_once_across_trees(self):
        # VCPU on two hosts (5 + 5), DISK only on the sharing ss1 (7)
        result = _result(
            [_req(**{fakes.CN1: {'VCPU': 1}, fakes.SS1: {'DISK_GB': 10}}),
             _req(**{fakes.CN2: {'VCPU': 1}, fakes.SS1: {'DISK_GB': 10}})],
            {fakes.CN1: fakes.summary(fakes.CN1, VCPU=(5, 0)),
             fakes.CN2: fakes.summary(fakes.CN2, VCPU=(5, 0)),
             fakes.SS1: fakes.summary(fakes.SS1, traits=SHARES,
                                      DISK_GB=(70, 0))})
        per_tree = capacity.instances_per_tree(
            result, {'VCPU': 1, 'DISK_GB': 10})
        self.assertEqual({fakes.CN1: 5, fakes.CN2: 2}, per_tree)

    def test_local_disk_first_then_the_pool(self):
        # cn1: 1 VCPU, 10 GB local; cn2: 10 VCPU, no disk; ss1: 1 copy
        result = _result(
            [_req(**{fakes.CN1: {'VCPU': 1, 'DISK_GB': 10}}),
             _req(**{fakes.CN1: {'VCPU': 1}, fakes.SS1: {'DISK_GB': 10}}),
             _req(**{fakes.CN2: {'VCPU': 1}, fakes.SS1: {'DISK_GB': 10}})],
            {fakes.CN1: fakes.summary(fakes.CN1, VCPU=(1, 0),
                                      DISK_GB=(100, 0)),
             fakes.CN2: fakes.summary(fakes.CN2, VCPU=(10, 0)),
             fakes.SS1: fakes.summary(fakes.SS1, traits=SHARES,
                                      DISK_GB=(10, 0))})
        self.assertEqual({fakes.CN1: 1, fakes.CN2: 1},
                         capacity.instances_per_tree(
                             result, {'VCPU': 1, 'DISK_GB': 10}))

    def test_sharing_provider_serving_itself_is_not_counted_twice(self):
        # ss1 gives everything alone (its own tree) and disk to cn1
        result = _result(
            [_req(**{fakes.SS1: {'VCPU': 1, 'DISK_GB': 10}}),
             _req(**{fakes.CN1: {'VCPU': 1}, fakes.SS1: {'DISK_GB': 10}})],
            {fakes.CN1: fakes.summary(fakes.CN1, VCPU=(4, 0)),
             fakes.SS1: fakes.summary(fakes.SS1, traits=SHARES,
                                      VCPU=(4, 0), DISK_GB=(30, 0))})
        per_tree = capacity.instances_per_tree(
            result, {'VCPU': 1, 'DISK_GB': 10})
        self.assertEqual(3, sum(per_tree.values()))

    def test_over_committed_provider_holds_nothing(self):
        result = _result(
            [_req(**{fakes.CN1: {'VCPU': 1}})],
            {fakes.CN1: fakes.summary(fakes.CN1, VCPU=(4, 9))})
        self.assertEqual({fakes.CN1: 0}, capacity.instances_per_tree(
            result, {'VCPU': 1}))

    def test_no_candidates(self):
        self.assertEqual({}, capacity.instances_per_tree(
            _result([], {}), {'VCPU': 1}))
