"""Round trips over fake:// with the real endpoints, clients and serializer."""

import functools
import logging
import socket
import sys
import time

import fixtures
import oslo_messaging
from oslo_log import formatters
from oslo_messaging._drivers import common as driver_common
from sqlalchemy import exc as sa_exc

from placement_ext import exception
from placement_ext import rpc
from placement_ext import rpc_server
from placement_ext.conductor import rpcapi as conductor_rpcapi
from placement_ext.manager import rpcapi as manager_rpcapi
from placement_ext.tests.unit.rpc import base

APIS = (
    ('conductor', conductor_rpcapi.ConductorAPI),
    ('manager', manager_rpcapi.ManagerAPI),
)


class TestRoundTrip(base.TestCase):

    def setUp(self):
        super().setUp()
        self.transport = self.useFixture(
            base.EmbeddedServices(self.conf)).transport

    def _apis(self):
        for name, api_class in APIS:
            yield name, api_class(self.conf, self.transport)

    def test_ping_each_service(self):
        for name, api in self._apis():
            self.assertEqual(
                {'service': name, 'host': 'test-host',
                 'version': api.VERSION,
                 'request_id': self.context.request_id},
                api.ping(self.context))

    def test_echo_with_valid_arguments(self):
        for _name, api in self._apis():
            self.assertEqual(
                {'echo': ['hi', 'hi'], 'request_id': self.context.request_id},
                api.echo(self.context, 'hi', repeat=2))

    def test_request_id_is_in_the_server_log(self):
        # oslo.log's formatter, as the services use it: the request id
        # comes from the context current in the server's worker thread
        log = self.useFixture(fixtures.FakeLogger(
            name='placement_ext', level=logging.INFO, format='%(message)s',
            formatter=functools.partial(formatters.ContextFormatter,
                                        config=self.conf)))
        for name, api in self._apis():
            api.ping(self.context)
            lines = [line for line in log.output.splitlines()
                     if f'Ping answered by {name}' in line]
            self.assertEqual(1, len(lines), log.output)
            self.assertIn(self.context.request_id, lines[0])

    def test_bad_arguments_then_the_next_call_is_answered(self):
        log = self.useFixture(fixtures.FakeLogger(level=logging.INFO))
        bad_calls = [
            # (method, arguments, field named in the error)
            ('echo', {'text': 5}, 'text'),            # wrong type
            ('echo', {}, 'text'),                     # missing field
            ('echo', {'text': 'a', 'colour': 'red'}, 'colour'),  # unknown
            ('echo', {'text': 'a', 'repeat': 0}, 'repeat'),      # range
            ('ping', {'verbose': True}, 'verbose'),   # unknown argument
        ]
        for name, api in self._apis():
            for method, kwargs, field in bad_calls:
                exc = self.assertRaises(
                    exception.InvalidInput,
                    api.client.call, self.context, method, **kwargs)
                self.assertEqual(field, exc.field)
                self.assertIn(f'Invalid {field}: ', exc.detail)
                self.assertEqual('placement_ext.input.invalid', exc.code)
                self.assertEqual(name, api.ping(self.context)['service'])
        # contract errors are not logged as server crashes
        self.assertNotIn('Exception during message handling', log.output)

    def test_unknown_method_is_a_service_error(self):
        for name, api in self._apis():
            exc = self.assertRaises(exception.ServiceError, api._call,
                                    self.context, 'frobnicate')
            self.assertIn(name, exc.detail)
            self.assertIn('NoSuchMethod', exc.detail)

    def test_only_api_methods_are_callable(self):
        # every non-API attribute of the endpoints, data and methods:
        # calling ``conf`` used to re-parse and wipe the configuration
        not_api = ('conf', 'host', 'database', 'target', 'SERVICE',
                   'heartbeat', 'adopt_operations', 'zone_source',
                   '_drive', '_workflows', 'process_events', '__init__',
                   '__class__', '__repr__', '__getattribute__')
        state_path = self.conf.state_path
        for name, api in self._apis():
            for method in not_api:
                exc = self.assertRaises(exception.ServiceError, api._call,
                                        self.context, method)
                self.assertIn('NoSuchMethod', exc.detail, (name, method))
            # the configuration is intact: the service still answers
            # with its settings
            self.assertEqual('test-host', api.ping(self.context)['host'])
        self.assertEqual(state_path, self.conf.state_path)

    def test_policy_allows_exactly_the_schema_methods(self):
        from placement_ext.conductor import manager as conductor_manager
        from placement_ext.manager import manager as manager_manager
        policy = rpc_server.SchemaAccessPolicy()
        expected = {
            conductor_manager.ConductorManager: {
                'ping', 'echo', 'create_operation', 'run_operation',
                'retry_operation', 'get_operation', 'list_operations',
                'select_cloud', 'realize_intent', 'label_nodes'},
            manager_manager.ReservationManager: {
                'ping', 'echo', 'create_host', 'get_host', 'list_hosts',
                'delete_host', 'create_lease', 'get_lease', 'list_leases',
                'delete_lease', 'reconcile'},
        }
        for endpoint_class, api in expected.items():
            endpoint = endpoint_class.__new__(endpoint_class)
            allowed = {name for name in dir(endpoint_class)
                       if policy.is_allowed(endpoint, name)}
            self.assertEqual(api, allowed)

    def test_database_failure_is_a_short_service_error(self):
        # the statement and its parameters (the request) stay in the log
        def failing(*args, **kwargs):
            raise sa_exc.OperationalError(
                "SELECT * FROM operations WHERE id = 'secret-payload'", {},
                Exception('server has gone away'))
        self.useFixture(fixtures.MonkeyPatch(
            'placement_ext.objects.operation.get', failing))
        api = conductor_rpcapi.ConductorAPI(self.conf, self.transport)
        exc = self.assertRaises(
            exception.ServiceError, api.get_operation, self.context,
            '8b7c1f2e-2f1a-4c9e-9d3b-0a1b2c3d4e5f')
        self.assertEqual(
            'database failed: OperationalError (request '
            f'{self.context.request_id}; the service log has the details)',
            exc.detail)
        self.assertNotIn('secret-payload', exc.detail)

    def test_a_client_capped_at_1_0_still_pings(self):
        api = manager_rpcapi.ManagerAPI(self.conf, self.transport,
                                        version_cap='1.0')
        self.assertEqual('manager', api.ping(self.context)['service'])

    def test_servers_use_the_threading_executor(self):
        server = rpc_server.get_server(self.conf, self.transport,
                                       'executor-check', [], 'test-host')
        self.assertEqual('threading', server.executor_type)


class TestClient(base.TestCase):

    def test_no_server_is_service_unavailable(self):
        transport = rpc.get_transport(self.conf)
        self.addCleanup(transport.cleanup)
        api = conductor_rpcapi.ConductorAPI(self.conf, transport)

        exc = self.assertRaises(exception.ServiceUnavailable, api.ping,
                                self.context, timeout=1)
        self.assertIn(self.conf.conductor.topic, exc.detail)
        self.assertEqual('placement_ext.service.unavailable', exc.code)

    def test_version_cap(self):
        transport = rpc.get_transport(self.conf)
        self.addCleanup(transport.cleanup)
        capped = manager_rpcapi.ManagerAPI(self.conf, transport,
                                           version_cap='1.0')
        uncapped = manager_rpcapi.ManagerAPI(self.conf, transport)

        self.assertTrue(capped.can_send_version('1.0'))
        self.assertFalse(capped.can_send_version('1.1'))
        self.assertTrue(uncapped.can_send_version('1.1'))

    def test_capped_client_refuses_a_newer_method(self):
        transport = rpc.get_transport(self.conf)
        self.addCleanup(transport.cleanup)
        api = manager_rpcapi.ManagerAPI(self.conf, transport,
                                        version_cap='1.0')

        # [upgrade_levels] caps it while old servers run: a method they
        # lack is refused before sending, with the cap named
        exc = self.assertRaises(exception.ServiceError, api._call,
                                self.context, 'ping', version='1.1')
        self.assertIn('ping needs API version 1.1, and [upgrade_levels] '
                      'manager caps this client at 1.0', exc.detail)

    def test_cap_from_upgrade_levels(self):
        transport = rpc.get_transport(self.conf)
        self.addCleanup(transport.cleanup)
        self.conf.set_override('manager', '1.5', 'upgrade_levels')
        self.addCleanup(self.conf.clear_override, 'manager', 'upgrade_levels')
        api = manager_rpcapi.ManagerAPI(self.conf, transport)
        self.assertEqual('1.5', api.version_cap)
        self.assertTrue(api.can_send_version('1.5'))
        self.assertFalse(api.can_send_version('1.6'))

    def test_fake_transport_is_in_process(self):
        self.assertTrue(rpc.is_in_process(self.conf))
        self.conf.set_override('transport_url',
                               'rabbit://guest:guest@localhost:5672/')
        self.assertFalse(rpc.is_in_process(self.conf))


class TestWaitForBroker(base.TestCase):

    def _url(self, port):
        self.conf.set_override('transport_url',
                               f'rabbit://guest:guest@127.0.0.1:{port}/')

    def test_unreachable_broker_is_unavailable_after_the_timeout(self):
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            port = sock.getsockname()[1]
        self._url(port)
        began = time.monotonic()
        exc = self.assertRaises(exception.ServiceUnavailable,
                                rpc.wait_for_broker, self.conf, 1.5)
        self.assertLess(time.monotonic() - began, 5)
        self.assertIn(f'127.0.0.1:{port} did not accept a connection '
                      f'within 1.5 s', exc.detail)

    def test_listening_broker_passes(self):
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            sock.listen()
            self._url(sock.getsockname()[1])
            rpc.wait_for_broker(self.conf, 0)

    def test_in_process_transport_has_no_broker(self):
        rpc.wait_for_broker(self.conf, 0)   # fake://

    def test_client_call_honours_its_timeout(self):
        # was: oslo.messaging's reconnect loop, for ever, timeout or not
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            self._url(sock.getsockname()[1])
        transport = rpc.get_transport(self.conf)
        self.addCleanup(transport.cleanup)
        api = conductor_rpcapi.ConductorAPI(self.conf, transport)
        exc = self.assertRaises(exception.ServiceUnavailable, api.ping,
                                self.context, timeout=1)
        self.assertIn('message broker is unavailable', exc.detail)


class TestRemoteErrors(base.TestCase):
    """What a broker does to an endpoint's exception (fake:// does not).

    fake:// hands the exception object itself to the caller; a real
    broker sends it as JSON and the caller rebuilds it, allowed only for
    the modules in rpc.ALLOWED_EXMODS.
    """

    @staticmethod
    def _over_the_wire(exc, allowed):
        try:
            raise exc
        except Exception:
            data = driver_common.serialize_remote_exception(sys.exc_info())
        return driver_common.deserialize_remote_exception(data, allowed)

    def test_our_errors_come_back_as_the_same_class(self):
        sent = exception.InvalidInput(field='hosts[0].id',
                                      reason='is required')

        received = self._over_the_wire(sent, rpc.ALLOWED_EXMODS)

        self.assertIsInstance(received, exception.InvalidInput)
        self.assertEqual(('hosts[0].id', 'is required', sent.detail,
                          sent.code),
                         (received.field, received.reason, received.detail,
                          received.code))

    def test_other_modules_become_remote_errors(self):
        received = self._over_the_wire(
            exception.NotFound(kind='Lease', id='l1'), [])

        self.assertIsInstance(received, oslo_messaging.RemoteError)
        self.assertEqual('NotFound', received.exc_type)
