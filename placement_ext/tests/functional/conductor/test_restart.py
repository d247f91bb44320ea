"""A conductor killed in the middle of an operation: it resumes the
operation when it starts again, or another conductor sharing the database
adopts it once the heartbeat is stale; either way over the machine's
RabbitMQ, without trying a failed zone again."""

import os
import signal
import subprocess
import sys
import time
import uuid

from testtools import content

from placement_ext import conf as pe_conf
from placement_ext import context as pe_context
from placement_ext import rpc
from placement_ext.conductor import rpcapi
from placement_ext.objects import operation as op_obj
from placement_ext.tests import backends
from placement_ext.tests.functional.conductor import base
from placement_ext.vocabulary import states

TAKEOVER = 4
CONDUCTOR = os.path.join(os.path.dirname(sys.executable),
                         'placement-ext-conductor')


class TestConductorRestart(base.ConductorCloudTestCase):

    def setUp(self):
        super().setUp()
        backends.require(self, 'rabbit')
        self.addCleanup(self._attach_logs)
        name = f'placement_ext_test_{uuid.uuid4().hex[:8]}'
        # own exchange, auto-deleted: the shared broker keeps nothing of
        # ours, and other tests' exchange settings cannot clash with it
        with open(self.config_file, 'a', encoding='utf-8') as conf_file:
            conf_file.write(
                f'\n[DEFAULT]\ntransport_url = {backends.RABBIT_URL}\n'
                f'control_exchange = {name}\n'
                f'log_file = {self.config_file}.log\n'
                f'[oslo_messaging_rabbit]\namqp_auto_delete = true\n'
                f'[database]\nconnection = {self.database.url}\n'
                f'[conductor]\ntopic = {name}\n'
                f'operation_heartbeat_interval = 1\n'
                f'operation_takeover_timeout = {TAKEOVER}\n')
        self.conf = pe_conf.new_conf(['--config-file', self.config_file])

    def _attach_logs(self):
        # before the temporary directory goes, so a failure shows them
        for suffix in ('.log', '.out'):
            path = self.config_file + suffix
            if os.path.exists(path):
                with open(path, encoding='utf-8', errors='replace') as log:
                    self.addDetail(f'conductor{suffix}',
                                   content.text_content(log.read()))

    def _start_conductor(self, host='conductor-a'):
        out = open(f'{self.config_file}.out', 'ab')
        self.addCleanup(out.close)
        # the host name is the conductor's identity as an owner
        host_file = f'{self.config_file}.{host}'
        with open(host_file, 'w', encoding='utf-8') as conf_file:
            conf_file.write(f'[DEFAULT]\nhost = {host}\n')
        proc = subprocess.Popen([CONDUCTOR, '--config-file',
                                 self.config_file, '--config-file',
                                 host_file],
                                stdout=out, stderr=subprocess.STDOUT)
        self.addCleanup(self._stop, proc)
        return proc

    @staticmethod
    def _stop(proc):
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)

    def _wait(self, predicate, timeout=300):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            ops = op_obj.list_operations(self.db)
            op = op_obj.get(self.db, ops[0].id) if ops else None
            if op is not None and predicate(op):
                return op
            time.sleep(0.2)
        self.fail('timed out waiting for the operation')

    def _start_operation_and_kill_its_owner(self, conductors):
        """Start an instantiate into full AZ-1; kill -9 whichever conductor
        drives it once AZ-1 failed and the move elsewhere is in flight."""
        self.cloud.fill_zone('AZ-1')
        transport = rpc.get_transport(self.conf)
        self.addCleanup(transport.cleanup)
        api = rpcapi.ConductorAPI(self.conf, transport)
        context = pe_context.get_admin_context(self.conf)
        api.wait_until_up(context)
        api.start_operation(context, self.request(
            'INSTANTIATE', {'VDU1-0': 'AZ-1'}, ['VDU1-0']))
        op = self._wait(lambda op: len(op.attempts) == 2)
        owner = conductors.pop(op.owner)
        owner.kill()
        owner.wait(30)
        return op.owner

    def test_killed_conductor_resumes_without_repeating_a_failed_zone(self):
        conductors = {'conductor-a': self._start_conductor()}
        self._start_operation_and_kill_its_owner(conductors)

        self._start_conductor()
        op = self._wait(lambda op: op.state not in op_obj.RUNNABLE_STATES)
        self._assert_completed_after_one_failure(op)

    def test_other_conductor_adopts_a_killed_owners_operation(self):
        conductors = {host: self._start_conductor(host)
                      for host in ('conductor-a', 'conductor-b')}
        killed = self._start_operation_and_kill_its_owner(conductors)
        (survivor,) = conductors

        op = self._wait(lambda op: op.owner == survivor,
                        timeout=TAKEOVER * 10)
        self.assertNotEqual(killed, op.owner)
        op = self._wait(lambda op: op.state not in op_obj.RUNNABLE_STATES)
        self._assert_completed_after_one_failure(op)
        self.assertIsNone(op.owner)

    def _assert_completed_after_one_failure(self, op):
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertEqual(['AZ-1'], op.failed_zones['VDU1-0'])
        self.assertEqual(2, len(op.attempts))
        self.assertEqual([a.zone for a in op.attempts][1],
                         op.placement['VDU1-0'])
        _, zone = self.server_zones()['VDU1-0']
        self.assertEqual(op.placement['VDU1-0'], zone)
