"""Fault injection: services of the embedded cloud hang in the middle of
a lifecycle operation, and every operation still ends or resumes.

A hung service (SIGSTOP: the kernel still accepts connections, nobody
answers) is the hard case: a refused connection fails at once, a hung one
held an operation for ever before ``[heat]``, ``[nova]`` and
``[placement]`` got an HTTP ``timeout`` (keystoneauth has none). Each
test stops one of the cloud's processes while holding the cloud's test
lock (the MiniCloud fixture) and continues it in a cleanup, so the cloud
is whole again for the next test: Keystone, heat-api and Placement hung
before or during the operation, and the cloud's MariaDB (holding our
records too) and RabbitMQ hung while the stack is built. A client that
cannot reach RabbitMQ at all is covered by tests/unit/rpc.
"""

import configparser
import os
import re
import signal
import threading
import time

import fixtures
import sqlalchemy as sa

from placement_ext import errors
from placement_ext import polling
from placement_ext.conductor import manager as conductor_manager
from placement_ext.conductor import wiring
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.conductor import base
from placement_ext.vocabulary import states

HTTP_TIMEOUT = 3


class Paused(fixtures.Fixture):
    """One of the cloud's services stopped (SIGSTOP) until cleanup."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def _setUp(self) -> None:
        detail = next(s['detail'] for s in cloud_fixture._status()['services']
                      if s['name'] == self.service)
        self.pid = int(re.match(r'pid (\d+)', detail).group(1))
        os.kill(self.pid, signal.SIGSTOP)
        self.addCleanup(self.resume)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)


class TestHungServices(base.ConductorCloudTestCase):

    def setUp(self):
        super().setUp()
        for group in ('heat', 'nova', 'placement'):
            self.conf.set_override('timeout', HTTP_TIMEOUT, group=group)

    def _instantiate(self, zone):
        return self.request('INSTANTIATE', {'VDU1-0': zone}, ['VDU1-0'])

    def test_keystone_hung_ends_the_operation_failed_temp(self):
        body = self._instantiate('AZ-1')
        self.useFixture(Paused('keystone'))
        op = self.run_operation(body)
        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        self.assertEqual(errors.SERVICE_UNAVAILABLE, op.error['code'])
        self.assertIn('Heat is unavailable', op.error['detail'])

    def test_heat_hung_ends_the_operation_failed_temp(self):
        body = self._instantiate('AZ-1')
        self.useFixture(Paused('heat-api'))
        op = self.run_operation(body)
        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        self.assertEqual(errors.SERVICE_UNAVAILABLE, op.error['code'])
        self.assertIn('Heat is unavailable', op.error['detail'])

    def test_heat_hung_after_the_create_ends_or_resumes(self):
        # heat-api hangs once the stack exists. During the wait that is
        # "not known yet" and the operation completes when Heat answers;
        # if the hang caught the create's reply, the operation ends
        # FAILED_TEMP and a retry finds the stack and waits for it.
        op = self._with_pause_after_create('heat-api',
                                           self._instantiate('AZ-2'))
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertEqual(1, len(self.server_zones()))

    def test_placement_hung_costs_one_timeout_then_ranks_without(self):
        # the capacity strategy reads Placement before each move; a hung
        # Placement degrades the ranking instead of holding the operation
        source = wiring.build_drivers(self.conf).zone_source()
        zones, _note = source.candidates({}, False)
        self.useFixture(Paused('placement'))
        began = time.monotonic()
        capacity = source.capacity(zones, self._instantiate('AZ-1'),
                                   'VDU1-0')
        self.assertIsNone(capacity)
        self.assertLess(time.monotonic() - began, 10 * HTTP_TIMEOUT)

    def test_database_paused_mid_operation_resumes(self):
        # our records on the cloud's MariaDB, which Heat and Nova use too:
        # it hangs once the stack exists, then comes back
        self.db = self.useFixture(db_fixture.Database(
            self._cloud_database_server(), conf=self.conf)).db
        op = self._with_pause_after_create('mariadb',
                                           self._instantiate('AZ-3'))
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)

    def test_rabbitmq_paused_mid_operation_ends(self):
        # Heat's and Nova's RPC stalls while the stack is built
        op = self._with_pause_after_create('rabbitmq',
                                           self._instantiate('AZ-3'))
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)

    def _with_pause_after_create(self, service, body):
        """Run ``body``; pause ``service`` once its stack exists; the
        operation as it ended (after one retry if it failed retryably)."""
        result = {}
        runner = threading.Thread(
            target=lambda: result.setdefault('op', self.run_operation(body)))
        runner.start()
        self._wait_for_build()
        paused = self.useFixture(Paused(service))
        # the fault itself: the service hangs for three HTTP timeouts
        time.sleep(3 * HTTP_TIMEOUT)
        paused.resume()
        runner.join(300)
        op = result['op']
        if op.state == states.STATE_FAILED_TEMP:
            endpoint = conductor_manager.ConductorManager(self.conf, 'test',
                                                          self.db)
            endpoint.retry_operation(self._context(), operation_id=op.id)
            op = endpoint.drive(op.id)
        return op

    def _cloud_database_server(self):
        """The cloud's MariaDB, as its Heat connects to it, no database."""
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(os.path.join(cloud_fixture._status()['base'], 'etc',
                                 'heat', 'heat.conf'))
        url = sa.make_url(parser['database']['connection'])
        return url.set(database='').render_as_string(hide_password=False)

    def _wait_for_build(self):
        """Until the stack exists and Heat builds it (a resource of it
        left INIT_COMPLETE)."""
        conn = self.cloud.admin

        def building():
            stack = conn.orchestration.find_stack(self.stack_name)
            if stack is None:
                return None
            return True if any(
                r.status not in (None, 'INIT_COMPLETE')
                for r in conn.orchestration.resources(stack)) else None

        if polling.until(building, timeout=60, interval=0.25) is None:
            self.fail('the stack was never built')
