"""The Blazar adapter's workflows: ids and rows kept in step between
Blazar's tables (a fake ``blazar.db.api``) and ours (SQLite), with our
reservation workflows recorded."""

import datetime
import types

import testtools

from placement_ext import exception
from placement_ext.adapters.blazar import group_owner
from placement_ext.adapters.blazar import workflows
from placement_ext.db import models
from placement_ext.manager import lease_adopt
from placement_ext.manager import reservations
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.unit.adapters.blazar import fakes
from placement_ext.tests.unit.objects import test_host
from placement_ext.vocabulary import states

RES = '4d17d41a-830d-47b2-91c7-4f9fc0ae611e'
START = datetime.datetime(2030, 1, 1, 10, 0)
VALUES = {'resource_type': 'virtual:instance', 'amount': '3', 'vcpus': 1,
          'memory_mb': 512, 'disk_gb': 1, 'affinity': 'None',
          'resource_properties': '', 'lease_id': 'blazar-lease',
          'start_date': START, 'end_date': START + datetime.timedelta(hours=2)}


class FakeHosts:
    def __init__(self, db):
        self.db = db
        self.deleted = []
        self.refuse_delete = None

    def create(self, name):
        return test_host.make_host(self.db, name)

    def delete(self, name):
        if self.refuse_delete is not None:
            raise self.refuse_delete
        self.deleted.append(name)
        host_obj.delete(self.db, host_obj.find(self.db, name))


class FakeLeases:
    """Our lease workflow: create writes a lease (slots round-robin over
    our hosts), start and end record."""

    def __init__(self, db):
        self.db = db
        self.calls = []
        self.refuse_update = None

    def create(self, body, project_id, user_id, reservation_ids=None,
               busy_hosts=frozenset()):
        self.calls.append(('create', body, project_id, reservation_ids))
        self.busy = busy_hosts
        req = body['reservations'][0]
        hosts = sorted(host_obj.list_hosts(self.db),
                       key=lambda h: h.hypervisor_hostname)
        slots = {}
        for index in range(req['amount']):
            host = hosts[index % len(hosts)].id
            slots[host] = slots.get(host, 0) + 1
        new = lease_obj.NewReservation(
            vcpus=req['vcpus'], memory_mb=req['memory_mb'],
            disk_gb=req['disk_gb'], amount=req['amount'], affinity=None,
            slots=slots, id=reservation_ids[0])
        with self.db.writer():
            lease_id = lease_obj.create(
                self.db, name=body['name'], user_id=user_id,
                project_id=project_id, start_date=START,
                end_date=START + datetime.timedelta(hours=2),
                reservations=[new])
        return lease_obj.get(self.db, lease_id)

    def preview(self, body, busy_hosts=frozenset(), lease=None):
        """Slots round-robin over the hosts not busy, in name order
        (an update keeps its amount unless changed)."""
        self.calls.append(('preview', body, lease and lease.id))
        self.busy = busy_hosts
        amount = body.get('amount', lease.reservations[0].amount) \
            if lease else body['reservations'][0]['amount']
        names = sorted(h.hypervisor_hostname
                       for h in host_obj.list_hosts(self.db)
                       if h.hypervisor_hostname not in busy_hosts)
        slots = {}
        for index in range(amount):
            name = names[index % len(names)]
            slots[name] = slots.get(name, 0) + 1
        return [slots]

    def start(self, lease, progress=lambda: None):
        self.calls.append(('start', lease.id))
        progress()

    def update(self, lease, changes, moves=False, busy_hosts=frozenset()):
        self.calls.append(('update', changes, moves))
        self.busy = busy_hosts
        if isinstance(self.refuse_update, Exception):
            raise self.refuse_update
        res = lease.reservations[0]
        amount = changes.get('amount', res.amount)
        new = lease_obj.NewReservation(
            vcpus=res.vcpus, memory_mb=res.memory_mb, disk_gb=res.disk_gb,
            amount=amount, affinity=res.affinity, id=res.id,
            slots={host_obj.find(self.db, 'cn2').id: amount})
        with self.db.writer():
            lease_obj.update(self.db, lease.id, start_date=START,
                             end_date=lease.end_date, reservation=new)
        return lease_obj.get(self.db, lease.id)

    def end(self, lease, progress=lambda: None):
        self.calls.append(('end', lease.id))
        progress()
        return self.kept

    kept = []

    def ensure_server_group(self, lease, res):
        self.calls.append(('group', res.id))
        lease_obj.set_server_group(self.db, res.id, 'g-new')
        return 'g-new'


class FakeReservations(reservations.Reservations):
    """The real facade (every status transition of ours) over the fake
    host and lease workflows."""

    def __init__(self, db, hosts, leases):
        self.database, self.hosts, self.leases = db, hosts, leases
        self.adoption = lease_adopt.Adoption(db)


class AdapterTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = db_fixture.use_database(self).db
        self.blazar = fakes.FakeBlazarDB()
        self.h1 = self.blazar.add_host('cn1')
        self.h2 = self.blazar.add_host('cn2')
        self.leases = FakeLeases(self.db)
        self.hosts = FakeHosts(self.db)
        self.adapter = workflows.BlazarReservations(
            FakeReservations(self.db, self.hosts, self.leases), self.blazar)

    def reserve(self):
        return self.adapter.reserve(RES, dict(VALUES), 'p1', 'u1')


class TestReserve(AdapterTestCase):

    def test_enrols_hosts_and_fills_both_sides(self):
        resource_id = self.reserve()
        self.assertEqual(['cn1', 'cn2'], sorted(
            h.hypervisor_hostname for h in host_obj.list_hosts(self.db)))
        (_what, body, project, ids), = self.leases.calls
        self.assertEqual(('p1', [RES]), (project, ids))
        self.assertEqual(RES, body['name'])
        self.assertEqual('2030-01-01T10:00:00', body['start_date'])
        self.assertEqual(3, body['reservations'][0]['amount'])
        row = self.blazar.instance_reservation_get(resource_id)
        self.assertEqual((RES, RES, 3, None),
                         (row['reservation_id'], row['flavor_id'],
                          row['amount'], row['affinity']))
        # one Blazar allocation per slot, on Blazar's host ids
        self.assertEqual(sorted([self.h1['id'], self.h1['id'],
                                 self.h2['id']]),
                         sorted(a['compute_host_id'] for a in
                                self.blazar.allocations.values()))

    def test_blazar_rows_failing_undoes_our_lease(self):
        self.blazar.fail_allocation = RuntimeError('db down')
        self.assertRaises(RuntimeError, self.reserve)
        self.assertEqual([], lease_obj.list_leases(self.db))
        self.assertEqual('end', self.leases.calls[-1][0])

    def test_hosts_of_overlapping_host_reservations_are_busy(self):
        day = datetime.timedelta(days=1)
        for lease_id, start, host, status in (
                ('hl1', START, self.h1, 'pending'),
                ('hl2', START + day, self.h2, 'pending'),
                ('hl3', START, self.h2, 'deleted')):
            self.blazar.leases[lease_id] = {
                'id': lease_id, 'start_date': start, 'end_date': start + day}
            self.blazar.reservations.append({
                'id': f'r-{lease_id}', 'lease_id': lease_id,
                'resource_type': 'physical:host', 'status': status})
            self.blazar.host_allocation_create({
                'compute_host_id': host['id'],
                'reservation_id': f'r-{lease_id}'})
        self.reserve()
        self.assertEqual(frozenset({'cn1'}), self.leases.busy)

    def test_host_leases_within_cleaning_time_are_busy(self):
        adapter = workflows.BlazarReservations(
            self.adapter.workflows, self.blazar,
            cleaning=datetime.timedelta(minutes=30))
        hour = datetime.timedelta(hours=1)
        for lease_id, start, host in (
                ('near', START - hour - datetime.timedelta(minutes=20),
                 self.h1),
                ('far', START + 2 * hour + datetime.timedelta(minutes=40),
                 self.h2)):
            self.blazar.leases[lease_id] = {
                'id': lease_id, 'start_date': start, 'end_date': start + hour}
            self.blazar.reservations.append({
                'id': f'r-{lease_id}', 'lease_id': lease_id,
                'resource_type': 'physical:host', 'status': 'pending'})
            self.blazar.host_allocation_create({
                'compute_host_id': host['id'],
                'reservation_id': f'r-{lease_id}'})
        self.assertEqual(frozenset({'cn1'}), adapter.host_leases(
            START, START + 2 * hour))
        self.assertEqual(frozenset(), self.adapter.host_leases(
            START, START + 2 * hour))

    def test_a_lease_blazar_rolled_back_is_forgotten(self):
        self.reserve()
        # Blazar's rollback deletes its rows only
        self.blazar.instance_reservations.clear()
        self.adapter.reserve('5d17d41a-830d-47b2-91c7-4f9fc0ae611e',
                             dict(VALUES), 'p1', 'u1')
        self.assertEqual(['5d17d41a-830d-47b2-91c7-4f9fc0ae611e'],
                         [lease.name for lease in
                          lease_obj.list_leases(self.db)])
        self.assertIn('end', [c[0] for c in self.leases.calls])

    def test_candidates_are_the_slots_of_our_pick(self):
        # as upstream's plugin: one Blazar host id per slot
        values = dict(VALUES, resource_properties='["==", "$gpu", "1"]')
        self.blazar.extra[self.h2['id']] = {'gpu': '1'}
        self.assertEqual([self.h2['id']] * 3,
                         self.adapter.allocation_candidates(values))
        self.assertEqual(frozenset({'cn1'}), self.leases.busy)
        what, body, lease = self.leases.calls[-1]
        self.assertEqual(('preview', None, 3),
                         (what, lease, body['reservations'][0]['amount']))

    def test_candidates_of_an_update_are_its_new_pick(self):
        self.reserve()
        lease = lease_obj.find(self.db, RES)
        self.assertEqual(
            sorted([self.h1['id'], self.h1['id'], self.h2['id']]),
            sorted(self.adapter.allocation_candidates(dict(VALUES, id=RES))))
        self.assertEqual(('preview', lease.id), (self.leases.calls[-1][0],
                                                 self.leases.calls[-1][2]))

    def test_host_gone_from_blazar_leaves_ours(self):
        self.adapter.sync_hosts()
        self.blazar.hosts.remove(self.h2)
        self.adapter.sync_hosts()
        self.assertEqual(['cn2'], self.hosts.deleted)

    def test_hosts_follow_blazars_reservable_flag(self):
        self.adapter.sync_hosts()
        self.h1['reservable'] = False      # Blazar's monitor: failed
        self.adapter.sync_hosts()
        self.assertFalse(host_obj.find(self.db, 'cn1').reservable)
        self.h1['reservable'] = True       # and recovered
        self.adapter.follow_monitor()      # the plugin's periodic round
        self.assertTrue(host_obj.find(self.db, 'cn1').reservable)

    def test_host_with_slots_stays_ours(self):
        self.adapter.sync_hosts()
        self.blazar.hosts.remove(self.h2)
        self.hosts.refuse_delete = exception.Conflict(reason='slots')
        self.adapter.sync_hosts()
        self.assertIn('cn2', [h.hypervisor_hostname
                              for h in host_obj.list_hosts(self.db)])


class TestResourceProperties(AdapterTestCase):
    """Blazar's resource_properties choose among its hosts: the others
    are passed to our pick as busy."""

    GPU = '["==", "$gpu", "true"]'

    def setUp(self):
        super().setUp()
        self.blazar.extra[self.h1['id']] = {'gpu': 'true'}

    def reserve(self, properties=GPU):
        return self.adapter.reserve(
            RES, dict(VALUES, resource_properties=properties), 'p1', 'u1')

    def test_hosts_without_the_capability_are_ruled_out(self):
        resource_id = self.reserve()
        self.assertEqual(frozenset({'cn2'}), self.leases.busy)
        self.assertNotIn('resource_properties',
                         self.leases.calls[0][1]['reservations'][0])
        self.assertEqual(self.GPU, self.blazar.instance_reservation_get(
            resource_id)['resource_properties'])

    def test_malformed_or_unknown_names_the_field(self):
        for text, words in (('gpu', 'not JSON'),
                            ('["==", "$fpga", "1"]', "'fpga'")):
            exc = self.assertRaises(exception.InvalidInput, self.reserve,
                                    text)
            self.assertIn('Invalid resource_properties', str(exc))
            self.assertIn(words, str(exc))
        self.assertEqual([], self.leases.calls)

    def test_update_filters_again_and_records_the_text(self):
        resource_id = self.reserve('')
        self.assertEqual(frozenset(), self.leases.busy)
        self.adapter.update(RES, {'resource_properties': self.GPU,
                                  'start_date': START})
        self.assertEqual(('update', {'start_date': START}, False),
                         self.leases.calls[-1])
        self.assertEqual(frozenset({'cn2'}), self.leases.busy)
        self.assertEqual(self.GPU, self.blazar.instance_reservation_get(
            resource_id)['resource_properties'])

    def test_update_without_the_field_keeps_the_filter(self):
        self.reserve()
        self.adapter.update(RES, {'amount': '4'})
        self.assertEqual(frozenset({'cn2'}), self.leases.busy)

    def test_a_started_reservation_keeps_its_filter(self):
        self.reserve()
        self.adapter.start(self.blazar.reservation_get(RES)['resource_id'])
        exc = self.assertRaises(exception.InvalidInput, self.adapter.update,
                                RES, {'resource_properties': ''})
        self.assertIn('resource_properties', str(exc))
        self.adapter.update(RES, {'resource_properties': self.GPU,
                                  'amount': '4'})
        self.assertEqual('update', self.leases.calls[-1][0])

    def test_healing_keeps_to_the_filter(self):
        self.blazar.extra[self.h2['id']] = {'gpu': 'true'}
        self.blazar.add_host('cn3', {'gpu': 'false'})
        self.reserve()
        self.adapter.start(self.blazar.reservation_get(RES)['resource_id'])
        self.h1['reservable'] = False
        self.adapter.heal([{'hypervisor_hostname': 'cn1'}], START,
                          START + datetime.timedelta(days=1))
        self.assertEqual(('update', {}, True), self.leases.calls[-1])
        self.assertEqual(frozenset({'cn3'}), self.leases.busy)


class TestStartEnd(AdapterTestCase):

    def test_start_then_end_then_end_again(self):
        resource_id = self.reserve()
        self.adapter.start(resource_id)
        lease = lease_obj.find(self.db, RES)
        self.assertEqual(states.LEASE_ACTIVE, lease.status)
        self.adapter.end(resource_id)
        self.assertEqual(['create', 'start', 'end'],
                         [c[0] for c in self.leases.calls])
        self.assertEqual([], lease_obj.list_leases(self.db))
        self.assertEqual({}, self.blazar.allocations)
        self.adapter.end(resource_id)       # idempotent: nothing left
        self.assertEqual(3, len(self.leases.calls))

    def test_unknown_resource(self):
        self.assertRaises(exception.NotFound, self.adapter.start, 'ir-x')

    def test_start_mirrors_the_server_group(self):
        resource_id = self.reserve()
        res = lease_obj.find(self.db, RES).reservations[0]
        lease_obj.set_server_group(self.db, res.id, 'g1')
        self.adapter.start(resource_id)
        self.assertEqual('g1', self.blazar.instance_reservation_get(
            resource_id)['server_group_id'])

    def test_end_keeping_servers_marks_the_lease_degraded(self):
        resource_id = self.reserve()
        self.blazar.leases['blazar-lease'] = {'id': 'blazar-lease'}
        self.leases.kept = ['srv-of-another-project']
        self.adapter.end(resource_id)
        self.assertTrue(self.blazar.leases['blazar-lease']['degraded'])

    def test_started_reservations_get_their_group(self):
        resource_id = self.reserve()
        res = lease_obj.find(self.db, RES).reservations[0]
        self.assertEqual([], self.adapter.ensure_server_groups())
        with self.db.writer() as session:
            session.execute(models.InstanceReservation.__table__.update()
                            .values(affinity=False))
        lease_obj.set_status(self.db, res.lease_id, states.LEASE_ACTIVE,
                             states.RESERVATION_ACTIVE)
        self.assertEqual([RES], self.adapter.ensure_server_groups())
        self.assertEqual('g-new', self.blazar.instance_reservation_get(
            resource_id)['server_group_id'])


class TestOwnerNova(testtools.TestCase):

    def test_groups_made_with_the_owners_token(self):
        nova = types.SimpleNamespace(with_token=lambda token: ('as', token))
        tokens = {'l1': 'tok'}
        bind = group_owner.owner_nova(lambda lease: tokens.get(lease.name))
        for_lease = bind(nova)
        self.assertEqual(('as', 'tok'),
                         for_lease(types.SimpleNamespace(name='l1')))
        self.assertIsNone(for_lease(types.SimpleNamespace(name='l2')))


class TestRecovery(AdapterTestCase):

    def lease(self, lease_id, status, event_type, types=('virtual:instance',)):
        self.blazar.leases[lease_id] = {
            'id': lease_id, 'status': status,
            'reservations': [{'resource_type': t} for t in types]}
        self.blazar.events[f'e-{lease_id}'] = {
            'id': f'e-{lease_id}', 'lease_id': lease_id,
            'event_type': event_type, 'status': 'IN_PROGRESS'}

    def test_interrupted_start_and_end_run_again(self):
        self.lease('a', 'STARTING', 'start_lease')
        self.lease('b', 'TERMINATING', 'end_lease')
        self.lease('mixed', 'STARTING', 'start_lease',
                   ('virtual:instance', 'physical:host'))
        self.lease('odd', 'ACTIVE', 'start_lease')
        # marked IN_PROGRESS with its batch, never run: lease PENDING
        self.lease('queued', 'PENDING', 'start_lease')
        self.assertEqual(['a', 'b', 'queued'],
                         self.adapter.recover_interrupted_events())
        self.assertEqual(('PENDING', 'UNDONE'),
                         (self.blazar.leases['queued']['status'],
                          self.blazar.events['e-queued']['status']))
        self.assertEqual(('PENDING', 'UNDONE'),
                         (self.blazar.leases['a']['status'],
                          self.blazar.events['e-a']['status']))
        self.assertEqual('ACTIVE', self.blazar.leases['b']['status'])
        self.assertEqual('IN_PROGRESS',
                         self.blazar.events['e-mixed']['status'])
        self.assertEqual('IN_PROGRESS', self.blazar.events['e-odd']['status'])

    def test_an_event_with_recent_progress_is_left_to_its_manager(self):
        # two blazar-managers: the other one runs 'live' (progress 10 s
        # ago); 'dead' made none for longer than stale_after (600 s)
        now = datetime.datetime(2030, 1, 1, 12)
        self.adapter.clock = lambda: now
        self.lease('live', 'STARTING', 'start_lease')
        self.lease('dead', 'TERMINATING', 'end_lease')
        # as blazar.db.api gives them: ISO strings
        self.blazar.events['e-live']['updated_at'] = str(
            now - datetime.timedelta(seconds=10))
        self.blazar.events['e-dead']['created_at'] = str(
            now - datetime.timedelta(seconds=601))
        self.assertEqual(['dead'], self.adapter.recover_interrupted_events())
        self.assertEqual(('STARTING', 'IN_PROGRESS'),
                         (self.blazar.leases['live']['status'],
                          self.blazar.events['e-live']['status']))
        self.assertEqual('UNDONE', self.blazar.events['e-dead']['status'])

    def test_an_interrupted_create_gives_its_slots_back(self):
        self.reserve()
        now = datetime.datetime(2030, 1, 1, 12)
        self.adapter.clock = lambda: now
        self.blazar.leases['killed'] = {
            'id': 'killed', 'status': 'CREATING',
            'updated_at': str(now - datetime.timedelta(seconds=601)),
            'reservations': [{'id': RES, 'resource_type':
                              'virtual:instance'}]}
        self.blazar.leases['running'] = {
            'id': 'running', 'status': 'CREATING',
            'updated_at': now - datetime.timedelta(seconds=5),
            'reservations': []}
        self.assertEqual(['killed'],
                         self.adapter.recover_interrupted_events())
        self.assertEqual('ERROR', self.blazar.leases['killed']['status'])
        self.assertEqual([], lease_obj.list_leases(self.db))
        self.assertEqual({}, self.blazar.allocations)
        self.assertEqual('CREATING', self.blazar.leases['running']['status'])

    def test_start_and_end_report_progress_on_their_event(self):
        resource_id = self.reserve()
        times = iter([START + datetime.timedelta(seconds=s)
                      for s in (0, 6, 100, 102)])
        self.adapter.clock = lambda: next(times)
        self.blazar.events['e'] = {
            'id': 'e', 'lease_id': 'blazar-lease', 'event_type':
            'start_lease', 'status': 'IN_PROGRESS', 'updated_at': START}
        self.adapter.start(resource_id)
        # a step 6 s after the start: the row moved
        self.assertEqual(START + datetime.timedelta(seconds=6),
                         self.blazar.events['e']['updated_at'])
        self.blazar.events['e'].update(event_type='end_lease')
        self.adapter.end(resource_id)
        # 2 s after the last report: not yet again
        self.assertEqual(START + datetime.timedelta(seconds=6),
                         self.blazar.events['e']['updated_at'])


class TestUpdateAndHeal(AdapterTestCase):

    def test_update_mirrors_into_blazar(self):
        resource_id = self.reserve()
        self.adapter.update(RES, {'amount': '4', 'start_date': START})
        self.assertEqual(('update', {'amount': 4, 'start_date': START},
                          False), self.leases.calls[-1])
        self.assertEqual(4, self.blazar.instance_reservations[
            resource_id]['amount'])
        self.assertEqual([self.h2['id']] * 4, [
            a['compute_host_id'] for a in self.blazar.allocations.values()])

    def test_nothing_changed_is_no_update(self):
        self.reserve()
        self.adapter.update(RES, {'amount': 3, 'start_date': START})
        self.assertEqual('create', self.leases.calls[-1][0])

    def test_bad_affinity(self):
        self.reserve()
        self.assertRaises(exception.InvalidInput, self.adapter.update, RES,
                          {'affinity': 'maybe'})

    def test_heal_moves_or_says_missing(self):
        self.reserve()
        self.adapter.start(self.blazar.reservation_get(RES)['resource_id'])
        failed = [{'hypervisor_hostname': 'cn1'}]
        end = START + datetime.timedelta(days=1)
        # Blazar's monitor marks its hosts before it calls the plugins
        self.h1['reservable'] = self.h2['reservable'] = False
        self.assertEqual({RES: {'resources_changed': True}},
                         self.adapter.heal(failed, START, end))
        self.assertEqual(('update', {}, True), self.leases.calls[-1])
        self.assertFalse(host_obj.find(self.db, 'cn1').reservable)
        self.leases.refuse_update = exception.NoCapacity(reason='full')
        self.assertEqual({RES: {'missing_resources': True}},
                         self.adapter.heal([{'hypervisor_hostname': 'cn2'}],
                                           START, end))
        self.assertEqual({}, self.adapter.heal(
            failed, end, end + datetime.timedelta(days=1)))
