"""The spec "Filter Allocation Candidates by Provider Tree" on real Placement.

Topology (nova-specs stein alloc-candidates-in-tree)::

    ss1 (DISK_GB 1000)   ss2 (DISK_GB 1000)     both MISC_SHARES_VIA_AGGREGATE
            \\               /
             one aggregate with cn1, cn2, ss1, ss2
            /               \\
    cn1 (DISK_GB 1000)    cn2 (DISK_GB 1000)
     numa1_1, numa1_2      numa2_1, numa2_2      (VCPU 4 each)

Each query of results A to E must return exactly the spec's candidates,
at microversion 1.31 and at the latest one, over HTTP and in-process.
"""

import uuid

import testtools

from placement_ext import exception
from placement_ext.drivers.placement import candidates as ac
from placement_ext.drivers.placement import client as pclient
from placement_ext.drivers.placement import driver as pdriver
from placement_ext.tests.fixtures import placement as placement_fixture
from placement_ext.tests.functional.placement import base

RG = ac.RequestGroup
REQ = ac.AllocationCandidatesRequest
AGGREGATE = str(uuid.uuid4())

# result -> candidates as sorted ((provider, class), ...) by name
EXPECTED = {
    'A': [(('cn1', 'DISK_GB'), ('numa1_1', 'VCPU')),
          (('cn1', 'DISK_GB'), ('numa1_2', 'VCPU'))],
    'C': [(('cn1', 'DISK_GB'), ('numa1_1', 'VCPU')),
          (('cn1', 'DISK_GB'), ('numa1_2', 'VCPU')),
          (('numa1_1', 'VCPU'), ('ss1', 'DISK_GB')),
          (('numa1_1', 'VCPU'), ('ss2', 'DISK_GB')),
          (('numa1_2', 'VCPU'), ('ss1', 'DISK_GB')),
          (('numa1_2', 'VCPU'), ('ss2', 'DISK_GB'))],
    'D': [(('numa1_1', 'VCPU'), ('ss1', 'DISK_GB')),
          (('numa1_2', 'VCPU'), ('ss1', 'DISK_GB')),
          (('numa2_1', 'VCPU'), ('ss1', 'DISK_GB')),
          (('numa2_2', 'VCPU'), ('ss1', 'DISK_GB'))],
    'E': [(('numa1_1', 'VCPU'), ('ss1', 'DISK_GB')),
          (('numa1_2', 'VCPU'), ('ss1', 'DISK_GB'))],
}
EXPECTED['B'] = EXPECTED['A']


def build_spec_topology(client: pclient.PlacementClient) -> dict[str, str]:
    """The spec's providers; returns name -> UUID."""
    rps = {}
    for n in (1, 2):
        cn = rps[f'cn{n}'] = base.create_provider(client, f'cn{n}')
        base.set_inventory(client, cn, DISK_GB=1000)
        for m in (1, 2):
            numa = rps[f'numa{n}_{m}'] = base.create_provider(
                client, f'numa{n}_{m}', parent=cn)
            base.set_inventory(client, numa, VCPU=4)
    for name in ('ss1', 'ss2'):
        ss = rps[name] = base.create_provider(client, name)
        base.set_inventory(client, ss, DISK_GB=1000)
        base.set_traits(client, ss, ac.SHARING_TRAIT)
    for name in ('cn1', 'cn2', 'ss1', 'ss2'):
        base.set_aggregates(client, rps[name], AGGREGATE)
    return rps


def spec_requests(rps: dict[str, str]) -> dict[str, REQ]:
    """The five queries of the spec, results A to E."""
    return {
        'A': REQ(group=RG({'VCPU': 1, 'DISK_GB': 50}, in_tree=rps['cn1'])),
        'B': REQ(group=RG({'VCPU': 1, 'DISK_GB': 50},
                          in_tree=rps['numa1_1'])),
        'C': REQ(group=RG({'VCPU': 1}, in_tree=rps['cn1']),
                 numbered={1: RG({'DISK_GB': 10})}),
        'D': REQ(group=RG({'VCPU': 1}),
                 numbered={1: RG({'DISK_GB': 10}, in_tree=rps['ss1'])}),
        'E': REQ(numbered={1: RG({'VCPU': 1}, in_tree=rps['cn1']),
                           2: RG({'DISK_GB': 10}, in_tree=rps['ss1'])},
                 group_policy='isolate'),
    }


class SpecInTreeMixin:
    """Results A-E and the error cases; subclasses choose the fixture."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        server = cls.fixture_class()
        server.setUp()
        cls.addClassCleanup(server.cleanUp)
        cls.rps = build_spec_topology(server.client())
        cls.names = {uuid_: name for name, uuid_ in cls.rps.items()}
        cls.server = server

    def setUp(self):
        super().setUp()
        self.client = self.server.client()
        self.driver = pdriver.PlacementDriver(self.client)

    def named(self, result: ac.AllocationCandidates) -> list[tuple]:
        return sorted(
            tuple(sorted((self.names[a.provider_uuid], a.resource_class)
                         for a in candidate.allocations))
            for candidate in result)

    def _check_spec(self, microversion):
        for name, request in spec_requests(self.rps).items():
            result = self.driver.allocation_candidates(
                request, microversion=microversion)
            self.assertEqual(EXPECTED[name], self.named(result),
                             f'result {name} at {result.microversion}')
            for candidate in result:
                for a in candidate.allocations:
                    self.assertIn(a.provider_uuid, result.provider_summaries)

    def test_spec_results_at_1_31(self):
        self._check_spec('1.31')

    def test_spec_results_at_latest(self):
        self._check_spec(None)
        self.assertEqual(pclient.KNOWN_MAX_VERSION, self.client.max_version)

    def test_latest_maps_groups_to_providers(self):
        result = self.driver.allocation_candidates(
            spec_requests(self.rps)['E'])
        self.assertEqual(
            sorted([{'1': ('numa1_1',), '2': ('ss1',)},
                    {'1': ('numa1_2',), '2': ('ss1',)}],
                   key=str),
            sorted(({k: tuple(self.names[rp] for rp in v)
                     for k, v in c.mappings.items()} for c in result),
                   key=str))

    def test_summaries_show_the_tree(self):
        result = self.driver.candidates_on_host(self.rps['numa1_1'],
                                                {'VCPU': 1})
        numa = result.provider_summaries[self.rps['numa1_2']]
        self.assertEqual(self.rps['cn1'], numa.parent_provider_uuid)
        self.assertEqual(self.rps['cn1'], numa.root_provider_uuid)
        self.assertEqual(4, numa.resources['VCPU'].capacity)
        ss1 = result.provider_summaries.get(self.rps['ss1'])
        self.assertIsNone(ss1, 'in_tree must not bring in sharing providers')

    def test_targeted_queries(self):
        self.assertEqual(8, self.driver.capacity_on_host(
            self.rps['cn1'], {'VCPU': 1, 'DISK_GB': 50}))
        self.assertEqual(4, self.driver.capacity_on_host(
            self.rps['numa2_2'], {'VCPU': 2}))
        zone = self.driver.zone_capacity(AGGREGATE,
                                         {'VCPU': 1, 'DISK_GB': 10})
        self.assertEqual(pdriver.ZoneCapacity(
            16, {self.rps['cn1']: 8, self.rps['cn2']: 8}), zone)
        self.assertEqual(0, self.driver.zone_capacity(
            str(uuid.uuid4()), {'VCPU': 1}).total)

    def test_unknown_in_tree_provider(self):
        unknown = str(uuid.uuid4())
        err = self.assertRaises(exception.NotFound,
                                self.driver.candidates_on_host, unknown,
                                {'VCPU': 1})
        self.assertEqual({'kind': 'resource provider', 'id': unknown},
                         err.kwargs)
        request = REQ(group=RG({'VCPU': 1}),
                      numbered={1: RG({'DISK_GB': 1}, in_tree=unknown)})
        self.assertRaises(exception.NotFound,
                          self.driver.allocation_candidates, request)

    def test_known_host_without_room_is_empty_not_unknown(self):
        self.assertEqual(0, len(self.driver.candidates_on_host(
            self.rps['cn1'], {'VCPU': 5})))
        self.assertEqual(0, self.driver.capacity_on_host(
            self.rps['cn1'], {'VCPU': 5}))

    def test_group_policy_required_before_sending(self):
        request = REQ(numbered={1: RG({'VCPU': 1}, in_tree=self.rps['cn1']),
                                2: RG({'DISK_GB': 10},
                                      in_tree=self.rps['ss1'])})
        err = self.assertRaises(exception.InvalidInput,
                                self.driver.allocation_candidates, request)
        self.assertEqual('group_policy', err.field)
        self.assertNotIn('GET /allocation_candidates', self.client.calls)

    def test_placement_older_than_1_31(self):
        old = pdriver.PlacementDriver(self.server.client(max_version='1.30'))
        err = self.assertRaises(pclient.PlacementTooOld,
                                old.candidates_on_host, self.rps['cn1'],
                                {'VCPU': 1})
        self.assertIn('in_tree', str(err))
        self.assertIn('at most 1.30', str(err))
        self.assertNotIn('GET /allocation_candidates', old.client.calls)
        # without in_tree the same old Placement still answers
        zone = old.zone_capacity(AGGREGATE, {'VCPU': 1})
        self.assertEqual(16, zone.total)

    def test_pinned_microversion_below_1_31(self):
        err = self.assertRaises(exception.InvalidInput,
                                self.driver.allocation_candidates,
                                spec_requests(self.rps)['E'],
                                microversion='1.30')
        self.assertEqual('in_tree1', err.field)

    def test_limit(self):
        result = self.driver.candidates_on_host(
            self.rps['cn1'], {'VCPU': 1, 'DISK_GB': 50}, limit=1)
        self.assertEqual(1, len(result))


class TestSpecInTreeOverHTTP(SpecInTreeMixin, testtools.TestCase):
    fixture_class = placement_fixture.PlacementServer


class TestSpecInTreeInProcess(SpecInTreeMixin, testtools.TestCase):
    fixture_class = placement_fixture.InProcessPlacement
