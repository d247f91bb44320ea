"""From Placement's answers (read now or kept) to the decision's inputs."""

import datetime
import threading
import types

import fixtures
import testtools

from placement_ext.drivers.placement import client as pclient
from placement_ext.drivers.placement import driver as pdriver
from placement_ext.drivers.placement import reservation_reads as rp
from placement_ext.manager import capacity_inputs as inputs
from placement_ext.objects import host as host_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import placement_api as fakes

RC = 'CUSTOM_RESERVATION_4D17D41A_830D_47B2_91C7_4F9FC0AE611E'
T0 = datetime.datetime(2030, 1, 1)
CHILD = '33333333-3333-4333-8333-333333333333'
VCPU = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
        'step_size': 1, 'allocation_ratio': 4.0}


def _reads(routes):
    adapter = fakes.FakeAdapter(routes)
    client = pclient.PlacementClient(adapter)
    return rp.ReservationPlacement(pdriver.PlacementDriver(client)), adapter


def _host_routes(generation, used):
    cn = f'/resource_providers/{fakes.CN1}'
    return {
        ('GET', f'{cn}/inventories'): (200, {
            'resource_provider_generation': generation,
            'inventories': {'VCPU': VCPU, 'CUSTOM_X': VCPU}}),
        ('GET', f'{cn}/usages'): (200, {
            'resource_provider_generation': generation,
            'usages': {'VCPU': used, 'CUSTOM_X': 1}}),
        ('GET', f'/resource_providers/{CHILD}/usages'): (200, {
            'resource_provider_generation': 1,
            'usages': {RC: 2, 'CUSTOM_OTHER': 1}}),
    }


class TestHostUsage(testtools.TestCase):

    def test_inventories_usages_and_reserved_usage(self):
        reads, adapter = _reads(_host_routes(9, 2))
        generation, usage = reads.host_usage(fakes.CN1, CHILD)
        self.assertEqual(9, generation)
        self.assertEqual({'VCPU': VCPU}, usage.inventories)
        self.assertEqual({'VCPU': 2}, usage.usages)
        self.assertEqual({RC: 2}, usage.reservation_usages)
        self.assertEqual(3, len(adapter.paths()) - 1)  # - version discovery

    def test_an_idle_host_needs_no_reservation_provider_read(self):
        reads, adapter = _reads(_host_routes(9, 0))
        _generation, usage = reads.host_usage(fakes.CN1, CHILD)
        self.assertEqual({}, usage.reservation_usages)
        self.assertEqual(2, len(adapter.paths()) - 1)

    def test_pool_generations_in_one_call(self):
        reads, adapter = _reads({('GET', '/resource_providers'): (200, {
            'resource_providers': [{'uuid': 'a', 'generation': 3},
                                   {'uuid': 'b', 'generation': 0}]})})
        self.assertEqual({'a': 3, 'b': 0}, reads.pool_generations('agg'))
        self.assertEqual({'member_of': 'agg'}, adapter.sent[-1].params)


def enrol(db, count, first=0):
    """Hosts cn<first>.. with compute node providers rp-<first>.."""
    return [host_obj.create(
        db, hypervisor_hostname=f'cn{i}', service_name=f'cn{i}',
        availability_zone='nova', vcpus=8, memory_mb=1024, local_gb=10,
        compute_provider_uuid=f'rp-{i}') for i in range(first, first + count)]


class FakeReads:
    """The two reads current_usages makes, counted."""

    def __init__(self, generations):
        self.generations = generations
        self.read = []

    def pool_generations(self, aggregate_uuid):
        return dict(self.generations)

    def host_usage(self, compute_uuid, reservation_uuid):
        self.read.append(compute_uuid)
        return self.generations.get(compute_uuid, 0), rp.HostUsage(
            {'VCPU': VCPU}, {'VCPU': 1}, {}, 'inventories')


class TestCurrentUsages(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database()).db
        self.hosts = enrol(self.db, 3)
        self.views = {}

    def usages(self, reads, views=None):
        views = views or self.views.setdefault(
            id(reads), inputs.HostViews(reads, self.db))
        seen = views.current('agg')
        self.assertEqual([h.id for h in self.hosts],
                         [h.id for h in seen.hosts])
        return seen.usages, seen.plan

    def test_hosts_are_read_once_then_kept_until_they_change(self):
        reads = FakeReads({'rp-0': 1, 'rp-1': 1, 'rp-2': 1})
        usages, plan = self.usages(reads)
        self.assertEqual(['rp-0', 'rp-1', 'rp-2'], reads.read)
        self.assertEqual({'inventories'}, {u.source for u in usages.values()})
        reads.read.clear()
        usages, plan = self.usages(reads)
        self.assertEqual([], reads.read)
        self.assertEqual({'kept'}, {u.source for u in usages.values()})
        self.assertEqual({'VCPU': 1}, usages[self.hosts[0].id].usages)
        reads.generations['rp-1'] = 2
        _usages, plan = self.usages(reads)
        self.assertEqual(['rp-1'], reads.read)
        self.assertEqual((self.hosts[1].id,), plan.read)

    def test_unlisted_hosts_are_read_every_time(self):
        reads = FakeReads({'rp-0': 1, 'rp-1': 1})
        self.usages(reads)
        reads.read.clear()
        _usages, plan = self.usages(reads)
        self.assertEqual(['rp-2'], reads.read)
        self.assertEqual((self.hosts[2].id,), plan.unlisted)

    def test_forgotten_hosts_are_read_again(self):
        reads = FakeReads({'rp-0': 1, 'rp-1': 1, 'rp-2': 1})
        self.usages(reads)
        host_obj.forget_usages(self.db, [self.hosts[0].id])
        reads.read.clear()
        self.usages(reads)
        self.assertEqual(['rp-0'], reads.read)

    def test_another_manager_uses_the_views_kept_by_the_first(self):
        reads = FakeReads({'rp-0': 1, 'rp-1': 1, 'rp-2': 1})
        self.usages(reads)
        reads.read.clear()
        other = inputs.HostViews(reads, self.db)
        usages, _plan = self.usages(reads, other)
        self.assertEqual([], reads.read)
        self.assertEqual({'kept'}, {u.source for u in usages.values()})
        hosts = other.decision_hosts(self.hosts, usages)
        self.assertEqual([8 * 4] * 3, [h.vcpus.capacity for h in hosts])

    def test_a_view_stored_again_is_loaded_again(self):
        reads = FakeReads({'rp-0': 1, 'rp-1': 1, 'rp-2': 1})
        views = inputs.HostViews(reads, self.db)
        self.usages(reads, views)
        self.usages(reads, views)
        # a lease ended: forgotten, read again at the same generation
        # with less in use
        host_obj.forget_usages(self.db, [self.hosts[0].id])
        host_obj.remember_usages(self.db, {self.hosts[0].id: (
            host_obj.KnownUsage(1, {'VCPU': VCPU}, {'VCPU': 0}, {}))})
        usages, _plan = self.usages(reads, views)
        self.assertEqual({'VCPU': 0}, usages[self.hosts[0].id].usages)
        (host, *_rest) = views.decision_hosts(self.hosts, usages)
        self.assertEqual(0, host.usage.vcpus)

    def test_hosts_are_loaded_once_then_only_when_they_change(self):
        reads = FakeReads({'rp-0': 1, 'rp-1': 1, 'rp-2': 1})
        views = inputs.HostViews(reads, self.db)
        self.usages(reads, views)
        loaded = []
        real_get_many = host_obj.get_many

        def get_many(database, host_ids):
            loaded.append(sorted(host_ids))
            return real_get_many(database, host_ids)

        self.patch(host_obj, 'get_many', get_many)
        self.assertEqual(self.hosts, views.current('agg').hosts)
        self.assertEqual([], loaded)
        changed = host_obj.set_reservation_provider(self.db, self.hosts[1],
                                                    CHILD)
        self.hosts[1] = changed
        self.assertEqual(self.hosts, views.current('agg').hosts)
        self.assertEqual([[changed.id]], loaded)

    def test_retired_and_new_hosts(self):
        reads = FakeReads({'rp-0': 1, 'rp-1': 1, 'rp-2': 1, 'rp-3': 1})
        views = inputs.HostViews(reads, self.db)
        self.usages(reads, views)
        host_obj.retire(self.db, self.hosts[0])
        new = host_obj.create(
            self.db, hypervisor_hostname='cn3', service_name='cn3',
            availability_zone='nova', vcpus=8, memory_mb=1024, local_gb=10,
            compute_provider_uuid='rp-3')
        seen = views.current('agg')
        self.assertEqual([self.hosts[1].id, self.hosts[2].id, new.id],
                         [h.id for h in seen.hosts])
        self.assertEqual({h.id for h in seen.hosts}, set(seen.usages))

    def test_concurrent_creates_of_one_manager_see_every_host(self):
        """A manager serves several lease creates at once (RPC threads):
        each sees every reservable host, however the loads interleave
        (one saw none, "no reservable host", under 8 threads).

        The interleavings are forced: every thread loads the hosts from
        the same empty cache (all eight are inside ``get_many`` before
        any returns), and the first thread to load kept views finishes
        that load last, after every other thread is done (its copy
        replaces the caches they filled)."""
        count = 8
        reads = FakeReads({'rp-0': 1, 'rp-1': 1, 'rp-2': 1})
        views = inputs.HostViews(reads, self.db)
        real_get_many = host_obj.get_many
        real_known = host_obj.known_usages
        # a broken barrier or a missed event fails the test, not hangs it
        loading = threading.Barrier(count, timeout=30)
        others_done = threading.Event()
        lock = threading.Lock()
        calls = {'get_many': 0, 'known_usages': 0}
        finished = []

        def first_calls(name):
            with lock:
                calls[name] += 1
                return calls[name]

        def get_many(*args, **kwargs):
            if first_calls('get_many') <= count:
                loading.wait()
            return real_get_many(*args, **kwargs)

        def known_usages(*args, **kwargs):
            if first_calls('known_usages') == 1:
                self.assertTrue(others_done.wait(30))
            return real_known(*args, **kwargs)

        self.patch(host_obj, 'get_many', get_many)
        self.patch(host_obj, 'known_usages', known_usages)
        seen, errors = [], []

        def create():
            try:
                for _ in range(5):
                    current = views.current('agg')
                    seen.append(([h.id for h in current.hosts],
                                 sorted(current.usages)))
            except Exception as exc:   # noqa: BLE001 - asserted below
                errors.append(repr(exc))
            finally:
                with lock:
                    finished.append(threading.get_ident())
                    if len(finished) == count - 1:
                        # all but the one held in known_usages, if any
                        others_done.set()

        threads = [threading.Thread(target=create) for _ in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([], errors)
        # both interleavings happened: eight loads of one empty cache, and
        # a kept-view load held until the others were done
        self.assertEqual(count, calls['get_many'])
        self.assertGreater(calls['known_usages'], 0)
        ids = [h.id for h in self.hosts]
        self.assertEqual([(ids, ids)] * 5 * count, seen)

    def test_decision_inputs(self):
        host = types.SimpleNamespace(id=7, hypervisor_hostname='cn1')
        usage = rp.HostUsage({'VCPU': {'total': 4}}, {'VCPU': 3}, {RC: 2},
                             'inventories')
        decision_host = inputs._decision_host(host, usage)
        self.assertEqual(('cn1', 4, 3), (decision_host.name,
                                         decision_host.vcpus.total,
                                         decision_host.usage.vcpus))


class TestPoolUsages(testtools.TestCase):

    def test_compute_nodes_and_their_reservation_usage_in_one_call(self):
        summary = {
            fakes.CN1: {'resources': {
                'VCPU': {'capacity': 32, 'used': 3},
                'CUSTOM_X': {'capacity': 1, 'used': 1}},
                'root_provider_uuid': fakes.CN1},
            CHILD: {'resources': {RC: {'capacity': 4, 'used': 2},
                                  'VCPU': {'capacity': 9, 'used': 9}},
                    'root_provider_uuid': fakes.CN1,
                    'parent_provider_uuid': fakes.CN1}}
        reads, adapter = _reads({('GET', '/allocation_candidates'): (200, {
            'allocation_requests': [], 'provider_summaries': summary})})
        self.assertEqual(
            {fakes.CN1: rp.PoolUsage({'VCPU': 32}, {'VCPU': 3}, {RC: 2})},
            reads.pool_usages('agg'))
        self.assertEqual({'resources': 'MEMORY_MB:1', 'member_of': 'agg'},
                         adapter.sent[-1].params)


class BulkReads(FakeReads):
    """FakeReads with the bulk read: ``pool`` compute UUID -> tree."""

    def __init__(self, generations, pool):
        super().__init__(generations)
        self.pool = pool
        self.bulk = 0

    def pool_usages(self, aggregate_uuid):
        self.bulk += 1
        return dict(self.pool)


class TestManyChangedHosts(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database()).db
        self.hosts = enrol(self.db, 3)
        tree = rp.PoolUsage({'VCPU': 32}, {'VCPU': 5}, {RC: 1})
        self.reads = BulkReads({f'rp-{i}': 1 for i in range(3)},
                               {f'rp-{i}': tree for i in range(3)})
        self.views = inputs.HostViews(self.reads, self.db)
        self.views.current('agg')           # every view kept, read alone
        self.reads.read.clear()
        self.useFixture(fixtures.MockPatchObject(
            inputs, 'READ_ONE_BY_ONE_MAX', 1))

    def test_changed_hosts_come_from_one_bulk_read(self):
        self.reads.generations = {f'rp-{i}': 2 for i in range(3)}
        seen = self.views.current('agg')
        self.assertEqual(([], 1), (self.reads.read, self.reads.bulk))
        usage = seen.usages[self.hosts[0].id]
        self.assertEqual(({'VCPU': VCPU}, {'VCPU': 5}, {RC: 1}),
                         (usage.inventories, usage.usages,
                          usage.reservation_usages))
        # stored at the listed generation: the next lease reads nothing
        self.views.current('agg')
        self.assertEqual(([], 1), (self.reads.read, self.reads.bulk))

    def test_a_moved_capacity_or_a_missing_tree_is_read_alone(self):
        self.reads.generations = {f'rp-{i}': 2 for i in range(3)}
        self.reads.pool['rp-1'] = rp.PoolUsage({'VCPU': 64}, {}, {})
        del self.reads.pool['rp-2']
        self.views.current('agg')
        self.assertEqual((['rp-1', 'rp-2'], 1),
                         (self.reads.read, self.reads.bulk))

    def test_hosts_without_a_kept_view_get_inventories_from_capacities(
            self):
        host_obj.forget_usages(self.db, [h.id for h in self.hosts])
        seen = self.views.current('agg')
        self.assertEqual(([], 1), (self.reads.read, self.reads.bulk))
        usage = seen.usages[self.hosts[0].id]
        # capacity 32 as Placement says; at most the host's 8 vCPUs each
        self.assertEqual({'VCPU': {
            'total': 32, 'reserved': 0, 'allocation_ratio': 1.0,
            'min_unit': 1, 'max_unit': 8, 'step_size': 1}},
            usage.inventories)
        (host, *_rest) = self.views.decision_hosts(self.hosts, seen.usages)
        self.assertEqual((32, False, True),
                         (host.vcpus.capacity, host.vcpus.accepts(9),
                          host.vcpus.accepts(8)))

    def test_few_changed_hosts_are_read_alone(self):
        self.reads.generations['rp-0'] = 2
        self.views.current('agg')
        self.assertEqual((['rp-0'], 0), (self.reads.read, self.reads.bulk))


class TestStampsFingerprint(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database()).db
        (self.host,) = enrol(self.db, 1)

    def moved(self, change):
        before = host_obj.stamps_fingerprint(self.db)
        change()
        return before != host_obj.stamps_fingerprint(self.db)

    def test_nothing_changed(self):
        self.assertFalse(self.moved(lambda: None))

    def test_every_change_of_a_stamp_moves_it(self):
        view = host_obj.KnownUsage(1, {'VCPU': VCPU}, {}, {})
        for change in (
                lambda: host_obj.set_reservation_provider(
                    self.db, self.host, CHILD),
                lambda: host_obj.remember_usages(self.db,
                                                 {self.host.id: view}),
                lambda: host_obj.forget_usages(self.db, [self.host.id]),
                lambda: enrol(self.db, 1, first=1),
                lambda: host_obj.retire(self.db,
                                        host_obj.get(self.db, self.host.id))):
            self.assertTrue(self.moved(change))

    def test_stamps_are_read_again_only_when_it_moved(self):
        reads = FakeReads({'rp-0': 1})
        views = inputs.HostViews(reads, self.db)
        real = host_obj.reservable_stamps
        calls = []

        def counted(database):
            calls.append(1)
            return real(database)

        self.patch(host_obj, 'reservable_stamps', counted)
        views.current('agg')    # first read, then the view is stored
        views.current('agg')    # the view stored moved it
        views.current('agg')
        self.assertEqual(2, len(calls))
