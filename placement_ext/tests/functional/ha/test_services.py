"""Our services on the HA topology: two ``placement-ext-manager`` processes
(two controllers, each on its own Galera node through HAProxy) behind a
three-node RabbitMQ cluster with quorum queues, with faults while lease
creates run through them (RPC, as the CLI and the Blazar plugin send
them):

* a RabbitMQ node killed (SIGKILL), and the node that holds the leader of
  the managers' queue killed;
* one manager SIGKILLed while the other keeps serving;
* the conductor driving a lifecycle operation SIGKILLed: the other
  adopts it once its heartbeat is stale (``operation_takeover_timeout``
  30 s) and ends it COMPLETED, never trying the failed zone again and
  never owned by both at once.

For each, every request ends within ``BOUND`` seconds: created, refused
with a reason (NoCapacity), or, for a call whose reply was lost with
the process or node that had it, a MessagingTimeout after
``CALL_TIMEOUT`` (the CLI says ServiceUnavailable), after which the lease
is there once or not at all (names are unique per project). No host
holds more slots than it has; the managers' event tasks start every
lease; then Placement holds exactly our slots (``lease reconcile`` finds
nothing to do). Killed
processes are started again at cleanup.
"""

import collections
import concurrent.futures
import os
import signal
import time

import oslo_messaging
import testtools

from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import rpc
from placement_ext import service
from placement_ext.conductor import rpcapi as conductor_rpcapi
from placement_ext.db import models
from placement_ext.manager import rpcapi as manager_rpcapi
from placement_ext.objects import operation as op_obj
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.conductor import base as conductor_base
from placement_ext.tests.functional.ha import fixture as ha_fixture

# a call answers within this, or its caller gets ServiceUnavailable
CALL_TIMEOUT = 60
# every request ends, and every lease is started, within this
BOUND = 240


class ServicesTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.ha = ha_fixture.use_ha(self)
        # the cloud's capacity is ours while the test runs
        cloud = cloud_fixture.use_cloud(self)
        self.project = cloud.demo.current_project_id
        conf = service.load_config(
            [], default_config_files=[self.ha['config_files'][0]])
        self.transport = rpc.get_transport(conf)
        self.addCleanup(self.transport.cleanup)
        self.api = manager_rpcapi.ManagerAPI(conf, self.transport)
        self.context = pe_context.get_admin_context()
        self.s = ha_fixture.settings()
        self.hosts = [host.name for host in self.s.hosts]
        self.slots = sum(host.vcpus for host in self.s.hosts)
        self.addCleanup(self.forget_everything)
        for name in self.hosts:
            try:
                self.api.create_host(self.context, name)
            except exception.Conflict:
                pass                      # enrolled by an earlier test

    def forget_everything(self) -> None:
        """Leases deleted, hosts unenrolled: the cloud as it was."""
        for lease in self.api.list_leases(self.context):
            self.api.delete_lease(self.context, lease['id'])
        for name in self.hosts:
            try:
                self.api.delete_host(self.context, name)
            except exception.NotFound:
                pass

    def create(self, name: str) -> str:
        body = {'name': name, 'start_date': 'now',
                'end_date': '2099-01-01 00:00',
                'reservations': [{'resource_type': 'virtual:instance',
                                  'amount': 1, 'vcpus': 1, 'memory_mb': 512,
                                  'disk_gb': 1}]}
        try:
            self.api.client.prepare(timeout=CALL_TIMEOUT).call(
                self.context, 'create_lease', lease=body,
                project_id=self.project, user_id='u')
            return 'created'
        except exception.NoCapacity as exc:
            self.assertIn('not enough capacity', exc.detail)
            return 'refused'
        except oslo_messaging.MessagingTimeout as exc:
            # no reply within CALL_TIMEOUT: its lease is checked
            return f'lost: {exc}'
        except Exception as exc:   # noqa: BLE001 - asserted: none
            return f'error: {exc!r}'

    def create_during(self, count: int, fault) -> dict:
        """``count`` creates from 8 client threads; ``fault()`` runs
        once the first few answered."""
        outcomes = {}
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            futures = {pool.submit(self.create, f'l{n}'): f'l{n}'
                       for n in range(count)}
            done = 0
            for future in concurrent.futures.as_completed(futures,
                                                          timeout=BOUND):
                outcomes[futures[future]] = future.result()
                done += 1
                if done == 3:
                    fault()
        return outcomes

    def assert_converged(self, outcomes: dict) -> None:
        self.assertEqual({}, {n: o for n, o in outcomes.items()
                              if o.startswith('error')})
        leases = {le['name']: le for le in
                  self.api.list_leases(self.context, project_id=self.project)}
        for name, outcome in outcomes.items():
            if outcome == 'created':
                self.assertIn(name, leases)
            elif outcome == 'refused':
                self.assertNotIn(name, leases)
        slots = collections.Counter()
        for lease in leases.values():
            (res,) = lease['reservations']
            self.assertEqual(1, sum(res['allocations'].values()))
            slots.update(res['allocations'])
        vcpus = {host.name: host.vcpus for host in self.s.hosts}
        for host, held in slots.items():
            self.assertLessEqual(held, vcpus[host], host)
        self.assertLessEqual(len(leases), self.slots)
        if 'refused' in outcomes.values():
            self.assertEqual(self.slots, len(leases))
        # the managers' event tasks start them all
        deadline = time.monotonic() + BOUND
        while time.monotonic() < deadline:
            states = {le['status'] for le in self.api.list_leases(
                self.context, project_id=self.project)}
            if states == {'ACTIVE'}:
                break
            time.sleep(2)
        self.assertEqual({'ACTIVE'}, states)
        self.assertEqual([], self.api.reconcile(self.context)['findings'])

    def rabbit_pid(self, node: int) -> int:
        return ha_fixture.procs.Proc(self.s.path(), f'ha-rabbit{node}').pid

    def kill_rabbit(self, node: int) -> None:
        os.kill(self.rabbit_pid(node), signal.SIGKILL)
        self.addCleanup(ha_fixture.restart_rabbit_node, self.s, node)


class TestRabbitFaults(ServicesTestCase):

    def test_rabbit_node_killed_while_leases_are_created(self):
        outcomes = self.create_during(self.slots + 4,
                                      lambda: self.kill_rabbit(2))
        self.assert_converged(outcomes)

    def test_queue_leader_node_killed(self):
        leader = ha_fixture.queue_leader(self.s, 'placement_ext_manager')
        outcomes = self.create_during(self.slots + 4,
                                      lambda: self.kill_rabbit(leader))
        self.assert_converged(outcomes)


class TestManagerKilled(ServicesTestCase):

    def test_manager_killed_while_the_other_serves(self):
        outcomes = self.create_during(
            self.slots + 4, lambda: ha_fixture.kill_service(self,
                                                            'manager1'))
        self.assert_converged(outcomes)
        lost = [n for n, o in outcomes.items() if o.startswith('lost')]
        # only calls the killed manager had were lost, never answered
        # twice; the lease of a lost call is there at most once (names
        # are unique per project)
        self.assertLessEqual(len(lost), 8)


class TestConductorKilled(conductor_base.ConductorCloudTestCase):

    def setUp(self):
        self.ha = ha_fixture.use_ha(self)
        super().setUp()
        # the HA conductors' configuration and database
        self.conf = service.load_config(
            [], default_config_files=[self.ha['config_files'][0]])
        self.db = ha_fixture.new_database(self.ha['galera_urls'][2])
        self.addCleanup(self.db.dispose)

    def wait(self, op_id, predicate, owners):
        deadline = time.monotonic() + BOUND
        while time.monotonic() < deadline:
            op = op_obj.get(self.db, op_id)
            owners.append(op.owner)
            if predicate(op):
                return op
            time.sleep(0.2)
        self.fail(f'operation {op_id}: not within {BOUND} s ({op})')

    def test_conductor_killed_the_other_adopts(self):
        self.cloud.fill_zone('AZ-1')
        transport = rpc.get_transport(self.conf)
        self.addCleanup(transport.cleanup)
        api = conductor_rpcapi.ConductorAPI(self.conf, transport)
        context = pe_context.get_admin_context(self.conf)
        api.wait_until_up(context)
        op_id = api.start_operation(context, self.request(
            'INSTANTIATE', {'VDU1-0': 'AZ-1'}, ['VDU1-0']))['id']
        owners = []
        # AZ-1 failed, the move elsewhere is in flight: kill its driver
        op = self.wait(op_id, lambda op: len(op.attempts) == 2, owners)
        killed = op.owner
        ha_fixture.kill_service(self, killed.replace('controller',
                                                     'conductor'))
        op = self.wait(op_id, lambda op: op.owner not in (None, killed),
                       owners)
        op = self.wait(op_id,
                       lambda op: op.state not in op_obj.RUNNABLE_STATES,
                       owners)
        self.assertEqual(models.STATE_COMPLETED, op.state, op.error)
        self.assertEqual(['AZ-1'], op.failed_zones['VDU1-0'])
        self.assertEqual(2, len(op.attempts))
        self.assertIsNone(op.owner)
        # one owner at a time: the killed one, then the survivor
        seen = [o for i, o in enumerate(owners)
                if o and (i == 0 or owners[i - 1] != o)]
        self.assertEqual(2, len(seen), owners)
        self.assertEqual(killed, seen[0])
