"""Our leases handed back to Blazar's own plugins: Blazar's rows (a fake
``blazar.db.api``), Nova and Placement (recording fakes), ours (SQLite)."""

import datetime
import types

import testtools

from placement_ext.adapters.blazar import handback
from placement_ext.decision import lease_servers
from placement_ext.manager import lease_status
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.unit.adapters.blazar import fakes
from placement_ext.tests.unit.objects import test_host
from placement_ext.vocabulary import reservation_names as names
from placement_ext.vocabulary import states

RES = '4d17d41a-830d-47b2-91c7-4f9fc0ae611e'
START = datetime.datetime(2030, 1, 1, 10, 0)


class FakeNova:
    def __init__(self):
        self.calls = []
        self.servers = []
        self.aggregates = {}

    def servers_with_flavor(self, flavor_id):
        return [s for s in self.servers if s.flavor_name ==
                names.flavor_name_for(flavor_id)]

    def servers_on_host(self, host):
        return [s for s in self.servers if s.host == host]

    def ensure_private_flavor(self, flavor_id, name, **kwargs):
        self.calls.append(('flavor', flavor_id, kwargs['extra_specs'],
                           kwargs['project_id']))

    def revoke_flavor_access(self, flavor_id, project_id):
        self.calls.append(('revoke', flavor_id, project_id))

    def ensure_aggregate(self, name, metadata):
        self.calls.append(('aggregate', name, dict(metadata)))
        return self.aggregates.setdefault(
            name, types.SimpleNamespace(id=7, name=name, hosts=[]))

    def add_host_to_aggregate(self, aggregate, host):
        self.calls.append(('add host', aggregate.name, host))


class FakePlacement:
    def __init__(self):
        self.classes = []

    def ensure_resource_class(self, name):
        self.classes.append(name)


class FakeWorkflows:
    def __init__(self, database):
        self.database = database
        self.nova = FakeNova()
        self.placement = FakePlacement()
        self.forgotten = []

    def forget_orphans(self, exists):
        for lease in lease_obj.list_leases(self.database):
            if lease.status == states.LEASE_PENDING and \
                    not exists(lease.name):
                lease_status.remove(self.database, lease.id)
                self.forgotten.append(lease.id)
        return list(self.forgotten)

    def hand_over(self, lease):
        lease_status.remove(self.database, lease.id)


class TestHandBack(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = db_fixture.use_database(self).db
        self.blazar = fakes.FakeBlazarDB()
        self.blazar.add_host('cn1', service_name='svc1')
        self.blazar.add_host('cn2', service_name='svc2')
        self.blazar.leases['blazar-lease'] = {'id': 'blazar-lease',
                                              'project_id': 'p1'}
        self.row = self.blazar.instance_reservation_create(
            {'reservation_id': RES, 'aggregate_id': None, 'flavor_id': RES,
             'server_group_id': None})
        self.status = states.RESERVATION_PENDING
        self.blazar.reservation_get = lambda rid: rid == RES and {
            'id': RES, 'resource_id': self.row['id'],
            'lease_id': 'blazar-lease', 'status': self.status} or None
        self.workflows = FakeWorkflows(self.db)
        self.nova = self.workflows.nova

    def lease(self, status=states.LEASE_PENDING, group=None):
        hosts = [test_host.make_host(self.db, name)
                 for name in ('cn1', 'cn2')]
        new = lease_obj.NewReservation(
            vcpus=1, memory_mb=512, disk_gb=1, amount=3, affinity=None,
            slots={hosts[0].id: 2, hosts[1].id: 1}, id=RES)
        with self.db.writer():
            lease_id = lease_obj.create(
                self.db, name=RES, user_id='u1', project_id='p1',
                start_date=START, end_date=START + datetime.timedelta(
                    hours=1), reservations=[new])
        lease_obj.set_status(self.db, lease_id, status,
                             states.RESERVATION_ACTIVE
                             if status == states.LEASE_ACTIVE
                             else states.RESERVATION_PENDING)
        if group:
            lease_obj.set_server_group(self.db, RES, group)
        return lease_id

    def run_handback(self):
        return handback.HandBack(self.workflows, self.blazar).run()

    def test_pending_lease_gets_upstreams_form_and_leaves_us(self):
        self.lease()
        outcome, = self.run_handback()
        self.assertEqual(handback.HANDED_BACK, outcome.result, outcome)
        self.assertEqual(('blazar-lease', RES), (outcome.lease,
                                                 outcome.reservation))
        self.assertEqual([names.resource_class_for(RES)],
                         self.workflows.placement.classes)
        self.assertIn(('aggregate', RES, {
            'reservation': RES, 'filter_tenant_id': 'p1',
            'blazar:owner': 'p1'}), self.nova.calls)
        # upstream grants the access at the start; a second grant fails
        self.assertEqual(('revoke', RES, 'p1'), self.nova.calls[-1])
        self.assertNotIn('add host', [c[0] for c in self.nova.calls])
        self.assertEqual({'aggregate_id': 7, 'flavor_id': RES,
                          'server_group_id': None},
                         {k: self.row[k] for k in (
                             'aggregate_id', 'flavor_id',
                             'server_group_id')})
        self.assertEqual(['1', '1', '2'], sorted(
            a['compute_host_id'] for a in self.blazar.allocations.values()))
        self.assertEqual([], lease_obj.list_leases(self.db))
        # again: nothing of ours left
        self.assertEqual([], self.run_handback())

    def test_active_lease_puts_its_hosts_in_the_aggregate(self):
        self.status = states.RESERVATION_ACTIVE
        self.lease(states.LEASE_ACTIVE, group='g1')
        outcome, = self.run_handback()
        self.assertEqual(handback.HANDED_BACK, outcome.result, outcome)
        self.assertIn(('add host', RES, 'svc1'), self.nova.calls)
        self.assertIn(('add host', RES, 'svc2'), self.nova.calls)
        self.assertNotIn('revoke', [c[0] for c in self.nova.calls])
        _what, _id, specs, _project = next(
            c for c in self.nova.calls if c[0] == 'flavor')
        self.assertEqual('g1', specs['affinity_id'])
        self.assertEqual('g1', self.row['server_group_id'])

    def test_another_projects_server_keeps_the_lease_ours(self):
        self.status = states.RESERVATION_ACTIVE
        self.lease(states.LEASE_ACTIVE)
        self.nova.servers = [lease_servers.Server(
            'srv-x', 'p2', names.flavor_name_for(RES), 'cn1')]
        outcome, = self.run_handback()
        self.assertEqual(handback.KEPT, outcome.result)
        self.assertIn('srv-x (project p2)', outcome.detail)
        self.assertEqual([], self.nova.calls)
        self.assertEqual(1, len(lease_obj.list_leases(self.db)))

    def test_statuses_that_differ_keep_the_lease_ours(self):
        self.status = states.RESERVATION_ACTIVE
        self.lease()
        outcome, = self.run_handback()
        self.assertEqual(handback.KEPT, outcome.result)
        self.assertIn('our lease is PENDING, Blazar\'s reservation active',
                      outcome.detail)

    def test_a_pending_lease_blazar_rolled_back_is_forgotten(self):
        self.blazar.reservation_get = lambda rid: None
        lease_id = self.lease()
        outcome, = self.run_handback()
        self.assertEqual((handback.FORGOTTEN, lease_id),
                         (outcome.result, outcome.lease))
        self.assertEqual([lease_id], self.workflows.forgotten)

    def test_an_active_lease_blazar_lacks_is_kept(self):
        self.blazar.reservation_get = lambda rid: None
        self.lease(states.LEASE_ACTIVE)
        outcome, = self.run_handback()
        self.assertEqual(handback.KEPT, outcome.result)
        self.assertIn('Blazar has no such reservation, and ours is ACTIVE',
                      outcome.detail)

    def test_host_lease_with_another_projects_server_is_a_warning(self):
        self.blazar.reservations.append(
            {'id': 'hr', 'lease_id': 'blazar-lease',
             'resource_type': 'physical:host', 'status': 'active'})
        self.blazar.host_allocation_create(
            {'compute_host_id': '1', 'reservation_id': 'hr'})
        self.nova.servers = [lease_servers.Server('mine', 'p1', host='svc1'),
                             lease_servers.Server('srv-y', 'p2',
                                                  host='svc1')]
        outcome, = self.run_handback()
        self.assertEqual((handback.WARNING, 'hr'),
                         (outcome.result, outcome.reservation))
        self.assertIn('srv-y (project p2)', outcome.detail)
        self.assertNotIn('mine', outcome.detail)

    def test_check_changes_nothing(self):
        self.lease()
        outcome, = handback.HandBack(self.workflows, self.blazar).run(
            check=True)
        self.assertEqual(handback.READY, outcome.result, outcome)
        self.assertEqual([], self.nova.calls)
        self.assertIsNone(self.row['aggregate_id'])
        self.assertEqual(1, len(lease_obj.list_leases(self.db)))
