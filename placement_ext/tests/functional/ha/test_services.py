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
import pathlib
import signal
import threading
import time

import oslo_messaging
import sqlalchemy as sa
import testtools
import testtools.content
from blazarclient import exception as blazar_exc

from placement_ext import configuration
from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import polling
from placement_ext import rpc
from placement_ext.conductor import rpcapi as conductor_rpcapi
from placement_ext.manager import reservations
from placement_ext.manager import rpcapi as manager_rpcapi
from placement_ext.objects import operation as op_obj
from placement_ext.testing import tacker_api
from placement_ext.tests.functional.blazar import base as blazar_base
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.conductor import base as conductor_base
from placement_ext.tests.functional.conductor import (
    fixture as conductor_fixture,
)
from placement_ext.tests.functional.ha import fixture as ha_fixture
from placement_ext.tests.functional.tacker import base as tacker_base
from placement_ext.vocabulary import reservation_names as names
from placement_ext.vocabulary import states

# a call answers within this, or its caller gets ServiceUnavailable
CALL_TIMEOUT = 60
# every request ends, and every lease is started, within this
BOUND = 240
# a conductor cut off from RabbitMQ this long
CUT_SECONDS = 60


class ServicesTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.ha = ha_fixture.use_ha(self)
        # the cloud's capacity is ours while the test runs
        cloud = cloud_fixture.use_cloud(self)
        self.project = cloud.demo.current_project_id
        conf = configuration.load_config(
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
        seen = []

        def all_active():
            seen[:] = [{le['status'] for le in self.api.list_leases(
                self.context, project_id=self.project)}]
            return True if seen[0] == {'ACTIVE'} else None

        polling.until(all_active, timeout=BOUND, interval=2)
        self.assertEqual({'ACTIVE'}, seen[0])
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


class HAConductorTestCase(conductor_base.ConductorCloudTestCase):

    def setUp(self):
        self.ha = ha_fixture.use_ha(self)
        super().setUp()
        # the HA conductors' configuration and database
        self.conf = configuration.load_config(
            [], default_config_files=[self.ha['config_files'][0]])
        self.db = ha_fixture.new_database(self.ha['galera_urls'][2])
        self.addCleanup(self.db.dispose)

    def wait(self, op_id, predicate, owners):
        last = []

        def reached():
            op = op_obj.get(self.db, op_id)
            owners.append(op.owner)
            last[:] = [op]
            return op if predicate(op) else None

        op = polling.until(reached, timeout=BOUND, interval=0.2)
        if op is None:
            self.fail(f'operation {op_id}: not within {BOUND} s ({last})')
        return op

    def api(self):
        transport = rpc.get_transport(self.conf)
        self.addCleanup(transport.cleanup)
        api = conductor_rpcapi.ConductorAPI(self.conf, transport)
        context = pe_context.get_admin_context(self.conf)
        api.wait_until_up(context)
        return api, context

    def reselecting(self):
        """An INSTANTIATE of VDU1-0 into a full AZ-1, waited for until
        AZ-1 failed and the move elsewhere is in flight: the operation's
        id, the operation then, and the owners seen so far."""
        self.cloud.fill_zone('AZ-1')
        api, context = self.api()
        op_id = api.start_operation(context, self.request(
            'INSTANTIATE', {'VDU1-0': 'AZ-1'}, ['VDU1-0']))['id']
        owners = []
        op = self.wait(op_id, lambda op: len(op.attempts) == 2, owners)
        return op_id, op, owners

    def assert_one_owner_at_a_time(self, owners, most):
        """The owners seen, in turn: at most ``most`` of them, none
        twice (an owner never comes back after another took over)."""
        seen = [o for i, o in enumerate(owners)
                if o and (i == 0 or owners[i - 1] != o)]
        self.assertLessEqual(len(seen), most, owners)
        self.assertEqual(len(seen), len(set(seen)), owners)
        return seen


class TestConductorKilled(HAConductorTestCase):

    def test_conductor_killed_the_other_adopts(self):
        # AZ-1 failed, the move elsewhere is in flight: kill its driver
        op_id, op, owners = self.reselecting()
        killed = op.owner
        ha_fixture.kill_service(self, killed.replace('controller',
                                                     'conductor'))
        op = self.wait(op_id, lambda op: op.owner not in (None, killed),
                       owners)
        op = self.wait(op_id,
                       lambda op: op.state not in op_obj.RUNNABLE_STATES,
                       owners)
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertEqual(['AZ-1'], op.failed_zones['VDU1-0'])
        self.assertEqual(2, len(op.attempts))
        self.assertIsNone(op.owner)
        # one owner at a time: the killed one, then the survivor
        seen = self.assert_one_owner_at_a_time(owners, 2)
        self.assertEqual(2, len(seen), owners)
        self.assertEqual(killed, seen[0])


class TestConductorCutOff(HAConductorTestCase):

    def test_conductor_cut_off_from_rabbitmq_for_a_minute(self):
        """The conductor driving an operation loses RabbitMQ for
        ``CUT_SECONDS`` (its database stays): it keeps driving it (its
        heartbeat goes to the database: nobody takes it over), the other
        conductor serves a new operation meanwhile, and the cut one
        answers RPC again afterwards."""
        self.cloud.fill_zone('AZ-1')
        api, context = self.api()
        op_id = api.start_operation(context, self.request(
            'INSTANTIATE', {'VDU1-0': 'AZ-1'}, ['VDU1-0']))['id']
        owners = []
        host = self.wait(op_id, lambda op: op.owner is not None,
                         owners).owner
        closed = []
        in_effect = threading.Event()
        cut = threading.Thread(target=lambda: closed.append(
            ha_fixture.cut_from_rabbit(
                host.replace('controller', 'conductor'), CUT_SECONDS,
                in_effect)))
        cut.start()
        self.addCleanup(cut.join)
        self.assertTrue(in_effect.wait(CUT_SECONDS),
                        f'{host}: no RabbitMQ connection to cut')
        # the other conductor serves (the cut one's queue consumer is
        # gone; what it had unacknowledged is delivered again)
        other_stack = cloud_fixture.unique_name('vnf')
        other_id = api.start_operation(
            context, conductor_fixture.operation_request(
                other_stack, 'INSTANTIATE', {'VDU1-0': 'AZ-2'},
                ['VDU1-0']))['id']
        other_owners = []
        for this, seen in ((op_id, owners), (other_id, other_owners)):
            op = self.wait(this, lambda op: op.state not in
                           op_obj.RUNNABLE_STATES, seen)
            self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
            self.assertIsNone(op.owner)
            self.assert_one_owner_at_a_time(seen, 2)
        self.assertEqual(['AZ-1'], op_obj.get(
            self.db, op_id).failed_zones['VDU1-0'])
        cut.join()
        self.assertGreater(closed[0], 0)
        # back on RabbitMQ: it answers a call sent to it alone (a call
        # that times out raises again once BOUND is over)
        pong = polling.until(
            lambda: api.client.prepare(server=host, timeout=5).call(
                context, 'ping'),
            timeout=BOUND, retry_on=(oslo_messaging.MessagingTimeout,))
        self.assertEqual(host, pong['host'])


class TestBlazarManagerKilled(blazar_base.BlazarTestCase):
    """Two blazar-managers with our plugins (``minicloud ha up --addons
    blazar``: blazar-api on controller 1, a blazar-manager on each, on
    Galera through their HAProxy and the RabbitMQ cluster; our plugin's
    ``[reservation] event_stale_after`` is 60 s)."""

    def use_blazar(self):
        self.ha = ha_fixture.use_ha(self, addons=('blazar',))
        return {'cloud': cloud_fixture.use_cloud(self),
                'etc': os.path.join(self.ha['base'], 'ha', 'controller1',
                                    'blazar')}

    def _client(self, conn, **kwargs):
        return super()._client(conn, endpoint_override=(
            f'http://127.0.0.1:{self.ha["ports"]["blazar"]}/v1'))

    def create(self, name):
        try:
            self.create_lease(name, 1)
            return 'created'
        except blazar_exc.BlazarClientException as exc:
            if exc.code == 409 and 'not enough' in str(exc).lower():
                return 'refused'
            # the call the killed manager had: answered with an error
            return f'lost: {exc.code} {exc}'

    def test_manager_killed_during_lease_creates_and_starts(self):
        slots = sum(h['vcpus'] for h in self.cloud.zones[self.zone]
                    if h['host'] in self.pool)
        names = [cloud_fixture.unique_name('ha') for _ in range(slots + 4)]
        outcomes = {}
        # leases from now: their starts run while the creates go on
        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            futures = {pool.submit(self.create, n): n for n in names}
            for done, future in enumerate(concurrent.futures.as_completed(
                    futures, timeout=BOUND)):
                outcomes[futures[future]] = future.result()
                if done == 2:
                    ha_fixture.kill_service(self, 'blazar-manager1')
        leases = {le['name']: le for le in self.demo.lease.list()
                  if le['name'] in outcomes}
        for name, outcome in outcomes.items():
            if outcome == 'created':
                self.assertIn(name, leases)
            elif outcome == 'refused':
                self.assertNotIn(name, leases)
        # every lease ends ACTIVE or ERROR (an interrupted create or
        # start is taken over after event_stale_after, 60 s)
        seen = {}

        def all_ended():
            seen.clear()
            seen.update((le['id'], le['status']) for le in
                        self.admin.lease.list() if le['name'] in outcomes)
            return True if set(seen.values()) <= {'ACTIVE', 'ERROR'} \
                else None

        polling.until(all_ended, timeout=BOUND, interval=2)
        states = dict(seen)
        self.assertLessEqual(set(states.values()), {'ACTIVE', 'ERROR'},
                             states)
        self.assertIn('ACTIVE', states.values())
        self.assert_slots_once(states)

    def test_manager_killed_during_lease_starts(self):
        """Starts hang (Placement stopped) until the manager running them
        is killed; the other one takes them over once they made no
        progress for 60 s and starts them, each once."""
        leases = [self.create_lease(cloud_fixture.unique_name('ha'), 1,
                                    days_ahead=1) for _ in range(3)]
        placement = self.pid('placement')
        os.kill(placement, signal.SIGSTOP)
        self.addCleanup(os.kill, placement, signal.SIGCONT)
        for lease in leases:
            self.blazar_sql(
                "UPDATE events SET time = UTC_TIMESTAMP() - INTERVAL 1 "
                "MINUTE WHERE lease_id = :l AND event_type = 'start_lease'",
                l=lease['id'])
        # a manager takes the due events as one batch, marks them all
        # IN_PROGRESS and runs them one by one: the first one hangs
        hung = self.wait_for(lambda: next(
            (le['id'] for le in leases if self.blazar_sql(
                'SELECT status FROM leases WHERE id = :l', l=le['id']) == [
                    ('STARTING',)]), None), 'a lease STARTING')
        # the manager that runs it: its log line is the only observable
        # (Blazar's event and lease rows record no manager; both managers
        # hold connections to the same Placement)
        logs = {n: pathlib.Path(self.ha['logs'],
                                f'ha-blazar-manager{n}.log')
                for n in (1, 2)}
        running = next(n for n in (1, 2) if any(
            'Trying to execute events' in line and hung in line
            for line in logs[n].read_text().splitlines()))
        survivor = logs[3 - running]
        seen = len(survivor.read_text())
        ha_fixture.kill_service(self, f'blazar-manager{running}')
        os.kill(placement, signal.SIGCONT)
        started = time.monotonic()
        states = {le['id']: self.wait_for(
            lambda le=le: self.admin.lease.get(le['id'])['status'] in (
                'ACTIVE', 'ERROR') and self.admin.lease.get(le['id'])[
                    'status'], f'lease {le["id"]} started', BOUND)
            for le in leases}
        self.assertEqual({'ACTIVE'}, set(states.values()))
        # taken over by the survivor, after event_stale_after (60 s): the
        # state above shows it was taken over (ACTIVE while the manager
        # that ran it is dead; Blazar never runs an IN_PROGRESS event
        # again by itself); the survivor's log line is the only
        # observable that it was the survivor's recovery that did it
        self.assertIn('its start_lease was interrupted',
                      survivor.read_text()[seen:])
        self.addDetail('takeover_seconds', testtools.content.text_content(
            f'{time.monotonic() - started:.0f}'))
        self.assert_slots_once(states)

    def assert_slots_once(self, states):
        """No host holds more slots than it has; each ACTIVE lease has its
        one slot in Placement, the others none; reconcile finds nothing."""
        held = collections.Counter()
        for lease_id, state in states.items():
            (res,) = self.admin.lease.get(lease_id)['reservations']
            rc = names.resource_class_for(res['id'])
            placed = 0
            for host in self.pool:
                provider = self.res.placement.reservation_provider(host)
                _gen, inventories = self.res.placement.inventories(
                    provider.uuid)
                total = inventories.get(rc, {}).get('total', 0)
                held[host] += total
                placed += total
            self.assertEqual(1 if state == 'ACTIVE' else 0, placed,
                             f'{lease_id} {state}')
        vcpus = {h['host']: h['vcpus'] for h in self.cloud.zones[self.zone]}
        for host, count in held.items():
            self.assertLessEqual(count, vcpus[host], host)
        ours = ha_fixture.new_database(sa.make_url(
            self.ha['galera_urls'][2]).set(
                database='blazar_placement_ext').render_as_string(
                    hide_password=False))
        self.addCleanup(ours.dispose)
        conf = self._conf()
        # what the plugin derives from blazar.conf ([nova]
        # aggregate_freepool_name, Blazar's default)
        conf.set_override('freepool_aggregate', 'freepool', 'reservation')
        reconciler = reservations.Reservations.from_conf(conf,
                                                         ours).reconciler
        self.assertEqual([], reconciler.run()['findings'])


class TestTackerConductorKilled(tacker_base.TackerTestCase):
    """Two tacker-conductors with our driver (``minicloud ha up --addons
    tacker``: tacker-server on controller 1, a
    ``placement-ext-tacker-conductor`` on each, on Galera through their
    HAProxy and the RabbitMQ cluster)."""

    def use_tacker(self):
        self.ha = ha_fixture.use_ha(self, addons=('tacker',))
        return {'cloud': cloud_fixture.use_cloud(self),
                'etc': os.path.join(self.ha['base'], 'ha', 'controller1',
                                    'tacker'),
                'venv': self.ha['addon_venvs']['tacker'],
                'urls': {'tacker': 'http://127.0.0.1:'
                                   f'{self.ha["ports"]["tacker"]}'}}

    def test_conductor_killed_the_other_serves(self):
        # one instantiate in flight (on either conductor) when
        # conductor 1 is killed, then another one
        inst_a = self.tacker.create_instance(
            self.vnfd_id, cloud_fixture.unique_name('vnf'))
        occ_a = self.tacker.lcm(inst_a, 'instantiate',
                                tacker_api.instantiate_request(self.vim()))
        ha_fixture.kill_service(self, 'tacker-conductor1')
        inst_b, occ_b = self.instantiate()
        self.assertCompleted(occ_b)
        # conductor 1 back: what it had in flight is FAILED_TEMP with
        # its cause (Tacker fails, at a conductor's start, the
        # operations left PROCESSING); what the other had is COMPLETED
        ha_fixture.start_service(ha_fixture.settings(), 'tacker-conductor1')
        occ_a = self.tacker.wait(occ_a, timeout=BOUND)
        self.assertIn(occ_a['operationState'], ('COMPLETED', 'FAILED_TEMP'))
        if occ_a['operationState'] == 'FAILED_TEMP':
            self.assertTrue(occ_a.get('error'), occ_a)
        # our operations: each ended, none driven twice
        for inst in (inst_a, inst_b):
            for op in self.operations(inst):
                self.assertNotIn(op.state, op_obj.RUNNABLE_STATES,
                                 (inst, op))
