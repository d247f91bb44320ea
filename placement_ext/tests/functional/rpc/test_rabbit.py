"""RPC over the machine's RabbitMQ, with the real service processes.

Each test uses topics of its own and auto-deleted queues, so runs and
engineers sharing the broker do not see each other's messages and leave
no queues behind.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid

import fixtures
import testtools

from placement_ext import configuration
from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import rpc
from placement_ext import service
from placement_ext.conductor import rpcapi as conductor_rpcapi
from placement_ext.conductor import service as conductor_service
from placement_ext.manager import rpcapi as manager_rpcapi
from placement_ext.manager import service as manager_service
from placement_ext.tests import backends

# generous bound for a process to start or stop and for a call to be
# answered on a loaded machine; a healthy run never gets near it
WAIT = 60
BIN = os.path.dirname(sys.executable)

BAD_CALLS = [
    # (method, arguments, field named in the error)
    ('echo', {'text': 5}, 'text'),                         # wrong type
    ('echo', {}, 'text'),                                  # missing field
    ('echo', {'text': 'a', 'colour': 'red'}, 'colour'),    # unknown arg
    ('ping', {'verbose': True}, 'verbose'),                # unknown arg
]


class RabbitTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        backends.require(self, 'rabbit')
        self.tmp = self.useFixture(fixtures.TempDir()).path
        suffix = uuid.uuid4().hex[:12]
        self.config_path = os.path.join(self.tmp, 'placement_ext.conf')
        with open(self.config_path, 'w') as f:
            f.write(f"""[DEFAULT]
state_path = {self.tmp}
transport_url = {backends.RABBIT_URL}
[conductor]
topic = pe-test-conductor-{suffix}
[manager]
topic = pe-test-manager-{suffix}
[oslo_messaging_rabbit]
amqp_auto_delete = true
""")
        self.conf = configuration.load_config(
            [], default_config_files=[self.config_path])
        self.transport = rpc.get_transport(self.conf)
        self.addCleanup(self.transport.cleanup)
        self.context = pe_context.get_admin_context()

    def assert_bad_calls_refused_then_served(self, api):
        for method, kwargs, field in BAD_CALLS:
            exc = self.assertRaises(
                exception.InvalidInput,
                api.client.prepare(timeout=WAIT).call,
                self.context, method, **kwargs)
            self.assertEqual(field, exc.field)
            # the detail crosses the broker without the remote traceback
            self.assertTrue(exc.detail.startswith(f'Invalid {field}: '))
            self.assertNotIn('\n', exc.detail)
            self.assertEqual('placement_ext.input.invalid', exc.code)
            pong = api.ping(self.context, timeout=WAIT)
            self.assertEqual(self.context.request_id, pong['request_id'])


class TestServiceProcesses(RabbitTestCase):
    """The console scripts, as an operator runs them."""

    def _start(self, script):
        log_path = os.path.join(self.tmp, f'{script}.log')
        with open(os.path.join(self.tmp, f'{script}.err'), 'w') as err:
            proc = subprocess.Popen(
                [os.path.join(BIN, script), '--config-file',
                 self.config_path, '--log-file', log_path],
                stdout=subprocess.DEVNULL, stderr=err)
        self.addCleanup(self._kill, proc)
        self._wait_for_line(proc, log_path, 'listening on topic')
        return proc, log_path

    def _wait_for_line(self, proc, log_path, text):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if os.path.exists(log_path) and text in self._read(log_path):
                return
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        self.fail(f'{text!r} never logged; exit status {proc.poll()}; '
                  f'log:\n{self._read(log_path)}')

    @staticmethod
    def _read(path):
        if not os.path.exists(path):
            return ''
        with open(path) as f:
            return f.read()

    @staticmethod
    def _kill(proc):
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    def _stop(self, proc, log_path):
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(0, proc.wait(timeout=WAIT), self._read(log_path))
        log = self._read(log_path)
        self.assertIn('Caught SIGTERM, stopping gracefully', log)
        self.assertIn('exited', log)
        # contract errors are answered, not logged as crashes
        self.assertNotIn('Traceback', log)
        self.assertNotIn('Exception during message handling', log)

    def test_conductor_process(self):
        proc, log_path = self._start('placement-ext-conductor')
        api = conductor_rpcapi.ConductorAPI(self.conf, self.transport)

        pong = api.ping(self.context, timeout=WAIT)

        self.assertEqual(
            {'service': 'conductor', 'host': socket.gethostname(),
             'version': conductor_rpcapi.ConductorAPI.VERSION,
             'request_id': self.context.request_id},
            pong)
        ping_lines = [line for line in self._read(log_path).splitlines()
                      if 'Ping answered by conductor' in line]
        self.assertEqual(1, len(ping_lines))
        self.assertIn(self.context.request_id, ping_lines[0])

        self.assert_bad_calls_refused_then_served(api)
        self._stop(proc, log_path)

    def test_broker_refusal_stops_the_process_in_one_line(self):
        with open(self.config_path, 'a') as f:
            f.write(f'[DEFAULT]\ntransport_url = '
                    f'{backends.RABBIT_URL}pe-test-no-such-vhost\n')

        result = subprocess.run(
            [os.path.join(BIN, 'placement-ext-conductor'), '--config-file',
             self.config_path, '--log-file',
             os.path.join(self.tmp, 'refused.log')],
            capture_output=True, text=True, timeout=WAIT)

        self.assertEqual(1, result.returncode, result.stderr)
        self.assertEqual(1, len(result.stderr.splitlines()), result.stderr)
        self.assertIn('placement-ext-conductor: could not start: ',
                      result.stderr)
        self.assertIn('pe-test-no-such-vhost', result.stderr)

    def test_cli_status_against_both_processes(self):
        started = [self._start(script) for script in
                   ('placement-ext-conductor', 'placement-ext-manager')]

        result = subprocess.run(
            [os.path.join(BIN, 'placement-ext'), '--config-file',
             self.config_path, 'status', '--timeout', str(WAIT),
             '-f', 'json'],
            capture_output=True, text=True, timeout=3 * WAIT)

        self.assertEqual(0, result.returncode, result.stderr)
        self.assertEqual('', result.stderr)
        rows = json.loads(result.stdout)
        self.assertEqual([('conductor', 'up'), ('manager', 'up')],
                         [(row['Service'], row['Status']) for row in rows])
        request_id = rows[0]['Request ID']
        for proc, log_path in started:
            self.assertIn(request_id, self._read(log_path))
            self._stop(proc, log_path)


class TestInProcessServices(RabbitTestCase):
    """Servers in this process, clients on their own transport."""

    def test_bad_arguments_then_still_serving(self):
        server_transport = rpc.get_transport(self.conf)
        self.addCleanup(server_transport.cleanup)
        services = service.launch(
            self.conf, server_transport,
            [conductor_service.create_service, manager_service.create_service],
            'rabbit-test-host')
        self.addCleanup(service.stop_all, services)

        for api_class in (conductor_rpcapi.ConductorAPI,
                          manager_rpcapi.ManagerAPI):
            api = api_class(self.conf, self.transport)
            self.assertEqual('rabbit-test-host',
                             api.ping(self.context, timeout=WAIT)['host'])
            self.assert_bad_calls_refused_then_served(api)
            self.assert_only_api_methods_callable(api)

    def assert_only_api_methods_callable(self, api):
        # over a real broker, as a hostile client would: attributes and
        # periodic tasks of the endpoint are not part of the API
        for name in ('conf', 'heartbeat', 'adopt_operations', 'host',
                     'target', 'database', 'SERVICE', 'process_events'):
            exc = self.assertRaises(exception.ServiceError, api._call,
                                    self.context, name, timeout=WAIT)
            self.assertIn('NoSuchMethod', exc.detail)
        self.assertEqual(api.SERVICE,
                         api.ping(self.context, timeout=WAIT)['service'])
