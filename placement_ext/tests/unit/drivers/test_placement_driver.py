import testtools

from placement_ext import exception
from placement_ext.drivers.placement import candidates as ac
from placement_ext.drivers.placement import client as pclient
from placement_ext.drivers.placement import driver as pdriver
from placement_ext.tests.fixtures import placement_api as fakes

AC = '/allocation_candidates'
EMPTY = (200, fakes.candidates_body([], {}))
SPEC_A = ac.AllocationCandidatesRequest(
    group=ac.RequestGroup({'VCPU': 1, 'DISK_GB': 50}, in_tree=fakes.CN1))


def _driver(routes=None, max_version='1.39'):
    adapter = fakes.FakeAdapter(routes, max_version=max_version)
    return pdriver.PlacementDriver(pclient.PlacementClient(adapter)), adapter


def _one_host_body():
    return fakes.candidates_body(
        [fakes.allocation_request(**{fakes.NUMA1_1: {'VCPU': 1},
                                     fakes.CN1: {'DISK_GB': 50}}),
         fakes.allocation_request(**{fakes.NUMA1_2: {'VCPU': 1},
                                     fakes.CN1: {'DISK_GB': 50}})],
        {fakes.CN1: fakes.summary(fakes.CN1, DISK_GB=(1000, 0)),
         fakes.NUMA1_1: fakes.summary(fakes.CN1, fakes.CN1, VCPU=(4, 0)),
         fakes.NUMA1_2: fakes.summary(fakes.CN1, fakes.CN1, VCPU=(4, 2))})


class TestAllocationCandidates(testtools.TestCase):

    def test_in_tree_on_a_placement_below_1_31(self):
        driver, adapter = _driver({('GET', AC): EMPTY}, max_version='1.30')
        err = self.assertRaises(pclient.PlacementTooOld,
                                driver.allocation_candidates, SPEC_A)
        self.assertIn('in_tree', str(err))
        self.assertIn('1.31', str(err))
        self.assertIn('supports at most 1.30', str(err))
        self.assertEqual(['/'], adapter.paths())

    def test_in_tree_at_a_pinned_microversion_below_1_31(self):
        driver, adapter = _driver({('GET', AC): EMPTY})
        err = self.assertRaises(exception.InvalidInput,
                                driver.allocation_candidates, SPEC_A,
                                microversion='1.30')
        self.assertEqual('in_tree', err.field)
        self.assertNotIn(AC, adapter.paths())

    def test_pinned_microversion_above_the_server(self):
        driver, _ = _driver({('GET', AC): EMPTY}, max_version='1.31')
        self.assertRaises(pclient.PlacementTooOld,
                          driver.allocation_candidates, SPEC_A,
                          microversion='1.36')

    def test_group_policy_checked_before_sending(self):
        driver, adapter = _driver({('GET', AC): EMPTY})
        request = ac.AllocationCandidatesRequest(numbered={
            1: ac.RequestGroup({'VCPU': 1}, in_tree=fakes.CN1),
            2: ac.RequestGroup({'DISK_GB': 10}, in_tree=fakes.SS1)})
        err = self.assertRaises(exception.InvalidInput,
                                driver.allocation_candidates, request)
        self.assertEqual('group_policy', err.field)
        self.assertEqual([], adapter.sent)

    def test_unknown_in_tree_provider_is_not_found(self):
        path = f'/resource_providers/{fakes.CN2}'
        driver, adapter = _driver({
            ('GET', AC): EMPTY,
            ('GET', path): (404, fakes.error_body(404, 'No provider'))})
        request = ac.AllocationCandidatesRequest(
            group=ac.RequestGroup({'VCPU': 1}, in_tree=fakes.CN2))
        err = self.assertRaises(exception.NotFound,
                                driver.allocation_candidates, request)
        self.assertEqual({'kind': 'resource provider', 'id': fakes.CN2},
                         err.kwargs)
        self.assertEqual(['/', AC, path], adapter.paths())

    def test_full_known_host_is_an_empty_result(self):
        driver, _ = _driver({
            ('GET', AC): EMPTY,
            ('GET', f'/resource_providers/{fakes.CN1}'): (200, {})})
        self.assertEqual(0, len(driver.allocation_candidates(SPEC_A)))

    def test_default_and_pinned_microversions(self):
        driver, adapter = _driver({('GET', AC): (200, _one_host_body())},
                                  max_version='1.36')
        self.assertEqual('1.36',
                         driver.allocation_candidates(SPEC_A).microversion)
        self.assertEqual('1.36', adapter.sent[-1].microversion)
        driver.allocation_candidates(SPEC_A, microversion='1.31')
        self.assertEqual('1.31', adapter.sent[-1].microversion)


class TestTargetedQueries(testtools.TestCase):

    def test_capacity_on_host_uses_in_tree(self):
        driver, adapter = _driver({('GET', AC): (200, _one_host_body())})
        self.assertEqual(6, driver.capacity_on_host(
            fakes.CN1, {'VCPU': 1, 'DISK_GB': 50}))
        self.assertEqual([('resources', 'DISK_GB:50,VCPU:1'),
                          ('in_tree', fakes.CN1)], adapter.sent[-1].params)

    def test_candidates_on_host_with_traits_and_limit(self):
        driver, adapter = _driver({('GET', AC): (200, _one_host_body())})
        result = driver.candidates_on_host(
            fakes.NUMA1_1, {'VCPU': 1}, required=['HW_NUMA_ROOT'], limit=1)
        self.assertEqual(2, len(result))
        self.assertEqual([('resources', 'VCPU:1'),
                          ('required', 'HW_NUMA_ROOT'),
                          ('in_tree', fakes.NUMA1_1), ('limit', '1')],
                         adapter.sent[-1].params)

    def test_zone_capacity_is_member_of_any_zone_aggregate(self):
        other = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'
        driver, adapter = _driver({('GET', AC): (200, _one_host_body())})
        zone = driver.zone_capacity([fakes.AGG, other], {'VCPU': 1})
        self.assertEqual(pdriver.ZoneCapacity(6, {fakes.CN1: 6}), zone)
        self.assertEqual([('resources', 'VCPU:1'),
                          ('member_of', f'in:{fakes.AGG},{other}')],
                         adapter.sent[-1].params)
        driver.zone_capacity(fakes.AGG, {'VCPU': 1})
        self.assertEqual(('member_of', fakes.AGG), adapter.sent[-1].params[1])
