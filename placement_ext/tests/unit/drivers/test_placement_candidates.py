import testtools

from placement_ext import exception
from placement_ext.drivers.placement import candidates as ac
from placement_ext.tests.fixtures import placement_api as fakes

RG = ac.RequestGroup
REQ = ac.AllocationCandidatesRequest
OTHER_AGG = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'


class TestQueryParams(testtools.TestCase):
    """The spec's five queries, and each group field, as query strings."""

    def test_spec_queries(self):
        table = [
            ('A', REQ(group=RG({'VCPU': 1, 'DISK_GB': 50},
                               in_tree=fakes.CN1)),
             [('resources', 'DISK_GB:50,VCPU:1'), ('in_tree', fakes.CN1)]),
            ('C', REQ(group=RG({'VCPU': 1}, in_tree=fakes.CN1),
                      numbered={1: RG({'DISK_GB': 10})}),
             [('resources', 'VCPU:1'), ('in_tree', fakes.CN1),
              ('resources1', 'DISK_GB:10')]),
            ('D', REQ(group=RG({'VCPU': 1}),
                      numbered={'1': RG({'DISK_GB': 10},
                                        in_tree=fakes.SS1)}),
             [('resources', 'VCPU:1'), ('resources1', 'DISK_GB:10'),
              ('in_tree1', fakes.SS1)]),
            ('E', REQ(numbered={1: RG({'VCPU': 1}, in_tree=fakes.CN1),
                                2: RG({'DISK_GB': 10}, in_tree=fakes.SS1)},
                      group_policy='isolate'),
             [('resources1', 'VCPU:1'), ('in_tree1', fakes.CN1),
              ('resources2', 'DISK_GB:10'), ('in_tree2', fakes.SS1),
              ('group_policy', 'isolate')]),
        ]
        for name, request, params in table:
            request.validate()
            self.assertEqual(params, request.to_params(), name)

    def test_required_member_of_and_limit(self):
        request = REQ(group=RG(
            {'VCPU': 2}, required=['HW_CPU_X86_AVX2', '!CUSTOM_SLOW',
                                   'in:CUSTOM_A,CUSTOM_B'],
            member_of=[fakes.AGG, (fakes.AGG, OTHER_AGG), (OTHER_AGG,),
                       '!' + OTHER_AGG]), limit=5)
        request.validate()
        self.assertEqual(
            [('resources', 'VCPU:2'),
             ('required', 'HW_CPU_X86_AVX2,!CUSTOM_SLOW'),
             ('required', 'in:CUSTOM_A,CUSTOM_B'),
             ('member_of', fakes.AGG),
             ('member_of', f'in:{fakes.AGG},{OTHER_AGG}'),
             ('member_of', OTHER_AGG),
             ('member_of', '!' + OTHER_AGG),
             ('limit', '5')],
            request.to_params())

    def test_in_tree_uuids_are_unique_and_sorted(self):
        request = REQ(group=RG({'VCPU': 1}, in_tree=fakes.SS1),
                      numbered={1: RG({'DISK_GB': 1}, in_tree=fakes.CN1),
                                2: RG({'DISK_GB': 1}, in_tree=fakes.SS1)},
                      group_policy='none')
        self.assertEqual([fakes.CN1, fakes.SS1], request.in_tree_uuids())


class TestValidation(testtools.TestCase):
    """Each mistake is an InvalidInput naming the query parameter."""

    def test_invalid_requests_name_the_field(self):
        table = [
            (REQ(), 'resources'),
            (REQ(group=RG({})), 'resources'),
            (REQ(group=RG({'vcpu': 1})), 'resources'),
            (REQ(group=RG({'VCPU': 0})), 'resources'),
            (REQ(group=RG({'VCPU': -1})), 'resources'),
            (REQ(group=RG({'VCPU': True})), 'resources'),
            (REQ(group=RG({'VCPU': '1'})), 'resources'),
            (REQ(numbered={3: RG({'VCPU': 0})}), 'resources3'),
            (REQ(numbered={'bad suffix': RG({'VCPU': 1})}),
             'resourcesbad suffix'),
            (REQ(group=RG({'VCPU': 1}, required=['avx'])), 'required'),
            (REQ(group=RG({'VCPU': 1}, required=['in:A,b'])), 'required'),
            (REQ(numbered={1: RG({'VCPU': 1}, member_of=['nope'])}),
             'member_of1'),
            (REQ(group=RG({'VCPU': 1}, member_of=[()])), 'member_of'),
            (REQ(group=RG({'VCPU': 1}, in_tree='cn1')), 'in_tree'),
            (REQ(numbered={1: RG({'VCPU': 1}), 2: RG({'DISK_GB': 1})}),
             'group_policy'),
            (REQ(group=RG({'VCPU': 1}), group_policy='spread'),
             'group_policy'),
            (REQ(group=RG({'VCPU': 1}), limit=0), 'limit'),
            (REQ(group=RG({'VCPU': 1}), limit=True), 'limit'),
        ]
        for request, field in table:
            err = self.assertRaises(exception.InvalidInput,
                                    request.validate)
            self.assertEqual(field, err.field, request)

    def test_group_policy_message_says_why(self):
        request = REQ(numbered={1: RG({'VCPU': 1}), 2: RG({'DISK_GB': 1})})
        err = self.assertRaises(exception.InvalidInput, request.validate)
        self.assertIn('more than one numbered group', str(err))
        self.assertIn('1, 2', str(err))

    def test_one_numbered_group_needs_no_policy(self):
        REQ(group=RG({'VCPU': 1}), numbered={1: RG({'DISK_GB': 1})}
            ).validate()

    def test_required_versions(self):
        request = REQ(
            group=RG({'VCPU': 1}, member_of=['!' + fakes.AGG]),
            numbered={'1': RG({'DISK_GB': 1}, in_tree=fakes.SS1),
                      '_NET': RG({'NET_BW_EGR_KILOBIT_PER_SEC': 1},
                                 required=['in:CUSTOM_A,CUSTOM_B'])},
            group_policy='none')
        self.assertEqual(
            [((1, 29), 'allocation_candidates'),
             ((1, 32), 'member_of'),
             ((1, 25), 'resources1'), ((1, 31), 'in_tree1'),
             ((1, 33), 'resources_NET'), ((1, 39), 'required_NET')],
            request.required_versions())


class TestResults(testtools.TestCase):

    def _body(self):
        return fakes.candidates_body(
            [fakes.allocation_request(
                {'': [fakes.NUMA1_1, fakes.CN1]},
                **{fakes.NUMA1_1: {'VCPU': 1}, fakes.CN1: {'DISK_GB': 50}}),
             fakes.allocation_request(
                 None, **{fakes.NUMA1_2: {'VCPU': 1},
                          fakes.CN1: {'DISK_GB': 50}})],
            {fakes.CN1: fakes.summary(fakes.CN1, DISK_GB=(1000, 100)),
             fakes.NUMA1_1: fakes.summary(fakes.CN1, fakes.CN1,
                                          ('HW_NUMA_ROOT',), VCPU=(4, 1)),
             fakes.NUMA1_2: fakes.summary(fakes.CN1, fakes.CN1,
                                          VCPU=(4, 5))})

    def test_candidates_say_which_provider_gives_what(self):
        result = ac.AllocationCandidates.from_json(self._body(), '1.39')
        self.assertEqual(2, len(result))
        first, second = result
        self.assertEqual(
            tuple(sorted([ac.Allocation(fakes.NUMA1_1, 'VCPU', 1),
                          ac.Allocation(fakes.CN1, 'DISK_GB', 50)],
                         key=lambda a: a.provider_uuid)),
            first.allocations)
        self.assertEqual({'': (fakes.NUMA1_1, fakes.CN1)}, first.mappings)
        self.assertEqual({}, second.mappings)
        self.assertEqual((fakes.NUMA1_2,), second.providers('VCPU'))
        self.assertEqual({ac.Allocation(fakes.NUMA1_2, 'VCPU', 1),
                          ac.Allocation(fakes.CN1, 'DISK_GB', 50)},
                         set(second.allocations))

    def test_provider_summaries(self):
        result = ac.AllocationCandidates.from_json(self._body(), '1.31')
        numa = result.provider_summaries[fakes.NUMA1_1]
        self.assertEqual(fakes.CN1, numa.parent_provider_uuid)
        self.assertEqual(fakes.CN1, numa.root_provider_uuid)
        self.assertEqual(frozenset({'HW_NUMA_ROOT'}), numa.traits)
        self.assertEqual(3, numa.resources['VCPU'].free)
        self.assertFalse(numa.sharing)
        # over-committed: no room, never negative
        self.assertEqual(
            0, result.provider_summaries[fakes.NUMA1_2].resources['VCPU']
            .free)
        self.assertEqual('1.31', result.microversion)

    def test_empty_body(self):
        result = ac.AllocationCandidates.from_json(
            fakes.candidates_body([], {}), '1.31')
        self.assertEqual(0, len(result))
        self.assertEqual({}, result.provider_summaries)
