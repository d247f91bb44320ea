"""The manager's RPC API: client -> fake:// -> endpoint, argument
schemas, owner and project scope, errors, and the event task wiring."""

import types

import fixtures

from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import rpc
from placement_ext import service
from placement_ext.conductor import rpcapi as conductor_rpcapi
from placement_ext.manager import manager
from placement_ext.manager import rpcapi
from placement_ext.manager import service as manager_service
from placement_ext.objects import event as event_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.unit.objects import test_lease
from placement_ext.tests.unit.rpc import base
from placement_ext.vocabulary import service_versions


class Recorder:
    """Stands for a workflow: records calls, answers or raises."""

    def __init__(self, answer=None, raises=None):
        self.calls = []
        self.answer = answer
        self.raises = raises

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        if self.raises is not None:
            raise self.raises
        return self.answer


def _dict(value):
    return types.SimpleNamespace(to_dict=lambda: value)


class ManagerTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database(conf=self.conf)).db
        self.workflows = types.SimpleNamespace(
            hosts=types.SimpleNamespace(
                create=Recorder(_dict({'id': 1, 'name': 'cn1'})),
                delete=Recorder()),
            leases=types.SimpleNamespace(create=Recorder(_dict({'id': 'l'}))),
            events=types.SimpleNamespace(run_due=Recorder([])),
            reconciler=types.SimpleNamespace(
                run=Recorder({'findings': [], 'repair': True})),
            delete_lease=Recorder())
        self.endpoint = manager.ReservationManager(
            self.conf, 'test-host', self.db, service=self.workflows)
        transport = rpc.get_transport(self.conf)
        self.addCleanup(transport.cleanup)
        svc = service.for_endpoint(self.conf, transport, 'test-host',
                                   self.endpoint)
        svc.start()
        self.addCleanup(service.stop_all, [svc])
        self.api = rpcapi.ManagerAPI(self.conf, transport)


class TestHostsAndLeases(ManagerTestCase):

    def test_host_calls(self):
        self.assertEqual({'id': 1, 'name': 'cn1'},
                         self.api.create_host(self.context, 'cn1'))
        self.api.delete_host(self.context, 'cn1')
        self.assertEqual([(('cn1',), {})],
                         self.workflows.hosts.delete.calls)
        self.assertEqual([], self.api.list_hosts(self.context))
        self.assertRaises(exception.NotFound, self.api.get_host,
                          self.context, 'cn1')

    def test_errors_cross_rpc_with_their_code(self):
        self.workflows.hosts.create.raises = exception.Conflict(
            reason='host cn1 is already enrolled')
        exc = self.assertRaises(exception.Conflict, self.api.create_host,
                                self.context, 'cn1')
        self.assertEqual('host cn1 is already enrolled', exc.detail)

    def test_bad_arguments_name_the_field(self):
        exc = self.assertRaises(exception.InvalidInput, self.api._call,
                                self.context, 'create_host', name='')
        self.assertIn('name', exc.detail)
        body = dict(self._body(), end_date='tomorrow')
        exc = self.assertRaises(exception.InvalidInput, self.api.create_lease,
                                self.context, body, project_id='p')
        self.assertIn('end_date', exc.detail)

    def _body(self):
        return {'name': 'l', 'start_date': 'now',
                'end_date': '2099-01-01 00:00',
                'reservations': [{'resource_type': 'virtual:instance',
                                  'amount': 1, 'vcpus': 1, 'memory_mb': 1,
                                  'disk_gb': 0}]}

    def test_lease_owner(self):
        self.api.create_lease(self.context, self._body(), project_id='p1',
                              user_id='u1')
        user_ctx = pe_context.RequestContext(project_id='p2', user_id='u2')
        self.api.create_lease(user_ctx, self._body())
        owners = [args[1:] for args, _ in
                  self.workflows.leases.create.calls]
        self.assertEqual([('p1', 'u1'), ('p2', 'u2')], owners)
        exc = self.assertRaises(exception.InvalidInput,
                                self.api.create_lease, self.context,
                                self._body())
        self.assertIn('project_id', exc.detail)

    def test_project_scope(self):
        case = test_lease.LeaseTestCase('run')
        case.db = self.db
        case.cn1 = test_lease.test_host.make_host(self.db, 'cn1')
        case.cn2 = test_lease.test_host.make_host(self.db, 'cn2')
        mine = case.create(project='p1')
        case.create(name='theirs', project='p2')
        admin = self.api.list_leases(self.context)
        self.assertEqual(2, len(admin))
        self.assertEqual(
            ['l1'], [lease['name'] for lease in
                     self.api.list_leases(self.context, project_id='p1')])
        user = pe_context.RequestContext(project_id='p2')
        self.assertEqual(['theirs'], [lease['name'] for lease in
                                      self.api.list_leases(user, 'p1')])
        self.assertEqual(mine.id, self.api.get_lease(self.context,
                                                     'l1')['id'])
        self.assertRaises(exception.NotFound, self.api.get_lease, user,
                          mine.id)
        self.api.delete_lease(user, 'theirs')
        self.assertEqual([(('theirs', 'p2'), {})],
                         self.workflows.delete_lease.calls)

    def test_reconcile(self):
        self.assertEqual({'findings': [], 'repair': True},
                         self.api.reconcile(self.context, repair=True))
        self.assertEqual([((), {'repair': True})],
                         self.workflows.reconciler.run.calls)


class TestEventTask(ManagerTestCase):

    def test_no_due_event_builds_nothing(self):
        endpoint = manager.ReservationManager(self.conf, 'h', self.db)
        endpoint.process_events(self.context)     # no [nova] settings
        self.assertIsNone(endpoint._reservations)

    def test_due_events_are_run(self):
        self.useFixture(fixtures.MockPatchObject(
            event_obj, 'due_events', return_value=['due']))
        self.workflows.events.run_due.answer = [types.SimpleNamespace(
            lease_id='l', event_type='start_lease', result='done')]
        self.endpoint.process_events(self.context)
        self.assertEqual(1, len(self.workflows.events.run_due.calls))

    def test_service_registers_the_event_task(self):
        transport = rpc.get_transport(self.conf)
        self.addCleanup(transport.cleanup)
        svc = manager_service.create_service(self.conf, transport, 'h',
                                             self.db)
        (task,) = svc.periodic_tasks
        self.assertEqual((manager_service.EVENT_TASK,
                          self.conf.manager.event_interval),
                         (task.name, task.interval))


class TestApiVersions(base.TestCase):

    def test_every_method_names_its_version(self):
        self.assertEqual('1.10', rpcapi.ManagerAPI.VERSION)
        self.assertEqual(rpcapi.ManagerAPI.VERSION,
                         manager.ReservationManager.target.version)
        # what a service of this version records and serves
        self.assertEqual(
            {'manager': rpcapi.ManagerAPI.VERSION,
             'conductor': conductor_rpcapi.ConductorAPI.VERSION},
            service_versions.RPC_HISTORY[service_versions.SERVICE_VERSION])
