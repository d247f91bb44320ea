"""Service lifecycle: periodic tasks, launch, graceful stop on a signal."""

import os
import signal
import threading

import oslo_messaging

from placement_ext import exception
from placement_ext import rpc
from placement_ext import service
from placement_ext.conductor import rpcapi as conductor_rpcapi
from placement_ext.conductor import service as conductor_service
from placement_ext.manager import service as manager_service
from placement_ext.tests.unit.rpc import base

# generous bound for waits on threads; never reached when things work
WAIT = 30


class Recorder:
    """A periodic task body that counts its runs and can fail."""

    def __init__(self, fail_first=False, runs_wanted=1):
        self.contexts = []
        self.fail_first = fail_first
        self.runs_wanted = runs_wanted
        self.enough = threading.Event()

    def __call__(self, context):
        self.contexts.append(context)
        if len(self.contexts) >= self.runs_wanted:
            self.enough.set()
        if self.fail_first and len(self.contexts) == 1:
            raise RuntimeError('first run fails')


class TestPeriodicTask(base.TestCase):

    def test_run_once_gives_each_run_its_own_admin_context(self):
        body = Recorder()
        task = service.PeriodicTask('leases', 10, body, conf=self.conf)

        task.run_once()
        task.run_once()

        first, second = body.contexts
        self.assertTrue(first.is_admin)
        self.assertIs(self.conf, first.config)
        self.assertNotEqual(first.request_id, second.request_id)

    def test_a_failed_run_is_logged_and_the_schedule_goes_on(self):
        body = Recorder(fail_first=True, runs_wanted=3)
        task = service.PeriodicTask('leases', 0.01, body)

        task.start()
        self.assertTrue(body.enough.wait(WAIT))
        task.stop()

        self.assertGreaterEqual(len(body.contexts), 3)
        self.assertIn('Periodic task leases failed', self.log.output)
        self.assertIn('first run fails', self.log.output)

    def test_stop_does_not_wait_for_the_interval(self):
        body = Recorder()
        task = service.PeriodicTask('leases', 3600, body)

        task.start()
        self.assertTrue(body.enough.wait(WAIT))
        task.stop()  # returns at once although the next run is an hour away

        self.assertEqual(1, len(body.contexts))


class TestRPCService(base.TestCase):

    def setUp(self):
        super().setUp()
        self.transport = rpc.get_transport(self.conf)
        self.addCleanup(self.transport.cleanup)

    def test_periodic_tasks_run_while_started(self):
        svc = manager_service.create_service(self.conf, self.transport, 'h')
        body = Recorder()
        svc.add_periodic_task('lease-events', 3600, body)

        svc.start()
        self.assertTrue(body.enough.wait(WAIT))
        service.stop_all([svc])

        self.assertEqual(1, len(body.contexts))

    def test_launch_starts_every_service(self):
        services = service.launch(
            self.conf, self.transport,
            [conductor_service.create_service, manager_service.create_service],
            'h')
        self.addCleanup(service.stop_all, services)

        self.assertEqual(['placement-ext-conductor', 'placement-ext-manager'],
                         [svc.name for svc in services])
        self.assertEqual(['threading', 'threading'],
                         [svc.executor_type for svc in services])
        pong = conductor_rpcapi.ConductorAPI(self.conf, self.transport).ping(
            self.context)
        self.assertEqual('h', pong['host'])

    def test_launch_stops_what_it_started_when_one_fails(self):
        started = []

        def good(conf, transport, host, database):
            svc = conductor_service.create_service(conf, transport, host)
            started.append(svc)
            return svc

        def bad(conf, transport, host, database):
            svc = manager_service.create_service(conf, transport, host)
            svc.start = self._refuse
            return svc

        self.assertRaises(oslo_messaging.MessagingException, service.launch,
                          self.conf, self.transport, [good, bad], 'h')
        api = conductor_rpcapi.ConductorAPI(self.conf, self.transport)
        self.assertRaises(exception.ServiceUnavailable, api.ping,
                          self.context, timeout=1)

    @staticmethod
    def _refuse():
        raise oslo_messaging.MessagingException('broker refused')


class TestServe(base.TestCase):

    def setUp(self):
        super().setUp()
        self.transport = rpc.get_transport(self.conf)
        self.addCleanup(self.transport.cleanup)
        self.services = service.launch(
            self.conf, self.transport, [conductor_service.create_service],
            'h')

    def test_stop_event_stops_the_services(self):
        stop = threading.Event()
        threading.Timer(0.1, stop.set).start()

        service.serve(self.services, stop)

        api = conductor_rpcapi.ConductorAPI(self.conf, self.transport)
        self.assertRaises(exception.ServiceUnavailable, api.ping,
                          self.context, timeout=1)

    def test_sigterm_stops_gracefully_and_restores_handlers(self):
        if threading.current_thread() is not threading.main_thread():
            self.skipTest('signals are only delivered to the main thread')
        before = signal.getsignal(signal.SIGTERM)
        stop = threading.Event()  # backstop: only set if no signal was sent
        sent = threading.Event()

        def send_sigterm_once_serving():
            for _ in range(WAIT * 100):
                if signal.getsignal(signal.SIGTERM) is not before:
                    sent.set()
                    os.kill(os.getpid(), signal.SIGTERM)
                    return
                sent.wait(0.01)
            stop.set()

        threading.Thread(target=send_sigterm_once_serving).start()
        service.serve(self.services, stop)

        self.assertTrue(sent.is_set(), 'SIGTERM was never sent')
        self.assertIs(before, signal.getsignal(signal.SIGTERM))
        self.assertIn('Caught SIGTERM, stopping gracefully', self.log.output)
