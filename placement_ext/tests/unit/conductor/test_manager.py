"""Conductors sharing a database: who drives an operation, and adoption."""

import datetime
import logging
import threading

import fixtures
import sqlalchemy as sa
import testtools

from placement_ext import conf as pe_conf
from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext.conductor import manager
from placement_ext.db import models
from placement_ext.objects import operation as op_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.vocabulary import states


def conf_file(test: testtools.TestCase, text: str) -> str:
    """A configuration file holding ``text``, removed after ``test``."""
    path = test.useFixture(fixtures.TempDir()).join('pe.conf')
    with open(path, 'w', encoding='utf-8') as out:
        out.write(text)
    return path


class BlockingRunner:
    """Completes an operation once ``release`` is set; counts runs."""

    def __init__(self, database):
        self.db = database
        self.release = threading.Event()
        self.entered = threading.Event()
        self.runs = []

    def run(self, operation_id):
        self.runs.append(operation_id)
        self.entered.set()
        self.release.wait(10)
        op = op_obj.get(self.db, operation_id)
        return op_obj.set_state(self.db, op, states.STATE_COMPLETED)


class TestOwnership(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database()).db
        self.conf = pe_conf.new_conf([])
        self.context = pe_context.get_admin_context(self.conf)
        self.runner = BlockingRunner(self.db)
        self.a = manager.ConductorManager(self.conf, 'a', self.db,
                                          self.runner)
        self.b = manager.ConductorManager(self.conf, 'b', self.db,
                                          self.runner)
        self.op = op_obj.create(
            self.db, vnf_instance_id='vnf-1', operation='INSTANTIATE',
            params={}, placement={'VDU1-0': 'AZ-1'})
        self.lost = []   # errors raised to _in_thread's caller
        self.logs = self.useFixture(fixtures.FakeLogger(level=logging.INFO))

    def _in_thread(self, conductor):
        def run():
            try:
                conductor.drive(self.op.id)
            except exception.ConcurrentUpdate as exc:
                self.lost.append(exc)

        thread = threading.Thread(target=run)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.assertTrue(self.runner.entered.wait(10))
        return thread

    def _silence(self, conductor_host):
        """Make ``conductor_host``'s heartbeat look long gone."""
        old = models.utcnow() - datetime.timedelta(hours=1)
        with self.db.writer() as session:
            session.execute(sa.update(models.Operation)
                            .where(models.Operation.owner == conductor_host)
                            .values(heartbeat_at=old, state_entered_at=old))

    def test_run_claims_and_releases(self):
        self.runner.release.set()
        shown = self.a.drive(self.op.id).to_dict()
        self.assertEqual(states.STATE_COMPLETED, shown['state'])
        self.assertIsNone(shown['owner'])
        self.assertEqual([self.op.id], self.runner.runs)

    def test_another_conductor_leaves_a_live_owners_operation(self):
        thread = self._in_thread(self.a)
        shown = self.b.drive(self.op.id).to_dict()
        self.assertEqual('a', shown['owner'])
        self.assertEqual(states.STATE_STARTING, shown['state'])
        self.runner.release.set()
        thread.join(10)
        self.assertEqual([self.op.id], self.runner.runs)

    def test_one_conductor_drives_an_operation_once_at_a_time(self):
        thread = self._in_thread(self.a)
        # a duplicate cast of the same operation
        self.a.drive(self.op.id)
        self.runner.release.set()
        thread.join(10)
        self.assertEqual([self.op.id], self.runner.runs)

    def test_silent_owners_operation_is_adopted(self):
        thread = self._in_thread(self.a)
        self._silence('a')
        self.b.adopt_operations(self.context)
        # b runs it too before a may finish (the generation then decides
        # which of them records the end)
        self._wait_for(lambda: len(self.runner.runs) == 2)
        self.assertEqual('b', op_obj.get(self.db, self.op.id).owner)
        self.runner.release.set()
        thread.join(10)
        # completed and given up, also when the one that recorded the end
        # second was refused (then it said so)
        self._wait_for(lambda: op_obj.get(self.db, self.op.id).owner is None)
        self.assertEqual(states.STATE_COMPLETED,
                         op_obj.get(self.db, self.op.id).state)
        refused = len(self.lost) + self.logs.output.count(
            'updated by another conductor')
        self.assertLessEqual(refused, 1)
        self.assertNotIn('stopped with an error', self.logs.output)
        for error in self.lost:
            self.assertIsInstance(error, exception.ConcurrentUpdate)

    def test_heartbeat_keeps_others_away(self):
        thread = self._in_thread(self.a)
        self._silence('a')
        self.a.heartbeat(self.context)
        self.b.adopt_operations(self.context)
        self.runner.release.set()
        thread.join(10)
        self.assertEqual([self.op.id], self.runner.runs)

    def test_restarted_conductor_resumes_its_own_at_once(self):
        op_obj.claim(self.db, self.op.id, 'a', models.utcnow())
        self.runner.release.set()
        self.a.adopt_operations(self.context)
        # completed, then released
        self._wait_for(lambda: op_obj.get(self.db, self.op.id).owner is None)
        self.assertEqual(states.STATE_COMPLETED,
                         op_obj.get(self.db, self.op.id).state)

    def test_unexpected_error_keeps_the_claim_and_is_not_rerun(self):
        def broken(operation_id):
            self.runner.runs.append(operation_id)
            raise RuntimeError('a bug')

        self.runner.run = broken
        self.a.adopt_operations(self.context)   # a's start-up: nothing yet
        self.assertRaises(RuntimeError, self.a.drive, self.op.id)
        # still a's: b leaves it while a heart-beats ...
        self.assertEqual('a', op_obj.get(self.db, self.op.id).owner)
        self.b.adopt_operations(self.context)
        # ... and a's later adoption runs do not run it again (they would
        # start a thread at once; give one the time to show)
        self.a.adopt_operations(self.context)
        threading.Event().wait(0.5)
        self.assertEqual([self.op.id], self.runner.runs)

    def test_run_operation_hands_it_to_a_worker_and_returns(self):
        shown = self.a.run_operation(self.context, operation_id=self.op.id)
        # returned while the runner still blocks: not on this RPC thread
        self.assertEqual(states.STATE_STARTING, shown['state'])
        self.assertTrue(self.runner.entered.wait(10))
        self.runner.release.set()
        self._wait_for(lambda: op_obj.get(self.db, self.op.id).state ==
                       states.STATE_COMPLETED)

    def test_with_every_worker_busy_an_operation_waits_and_says_so(self):
        self.conf.set_override('operation_workers', 1, 'conductor')
        conductor = manager.ConductorManager(self.conf, 'c', self.db,
                                             self.runner)
        conductor.run_operation(self.context, operation_id=self.op.id)
        self.assertTrue(self.runner.entered.wait(10))
        second = op_obj.create(
            self.db, vnf_instance_id='vnf-2', operation='INSTANTIATE',
            params={}, placement={'VDU1-0': 'AZ-1'})
        shown = conductor.run_operation(self.context,
                                        operation_id=second.id)
        self.assertEqual(states.STATE_STARTING, shown['state'])
        self.assertIn('all 1 are busy', shown['waiting'])
        self.assertIn('waiting', conductor.get_operation(
            self.context, operation_id=second.id))
        self.runner.release.set()
        self._wait_for(lambda: op_obj.get(self.db, second.id).state ==
                       states.STATE_COMPLETED)
        self.assertNotIn('waiting', conductor.get_operation(
            self.context, operation_id=second.id))

    def _wait_for(self, predicate):
        for _ in range(200):
            if predicate():
                return
            threading.Event().wait(0.05)
        self.fail('condition not reached')


class TestServiceCalls(testtools.TestCase):
    """The calls that read other services run on the conductor's
    service-call pool, not on the RPC executor thread."""

    def test_label_nodes_runs_on_the_pool(self):
        conf = pe_conf.new_conf([])
        endpoint = manager.ConductorManager(conf, 'a')
        self.addCleanup(endpoint.stop)
        threads = []

        def label(*args, **kwargs):
            threads.append(threading.current_thread())
            return {'changes': []}

        for name, value in (('cloud_drivers', lambda *a, **k: (None, None)),
                            ('kubernetes', lambda conf: None),
                            ('workers', lambda *a, **k: []),
                            ('label', label)):
            self.useFixture(fixtures.MockPatchObject(
                manager.k8s_labels, name, value))
        context = pe_context.get_admin_context(conf)
        self.assertEqual({'changes': []},
                         endpoint.label_nodes(context, servers=['s1']))
        self.assertIsNot(threading.current_thread(), threads[0])


class TestConfiguration(testtools.TestCase):

    def test_takeover_must_outlast_two_heartbeats(self):
        error = self.assertRaises(
            exception.InvalidInput, pe_conf.new_conf,
            ['--config-file', conf_file(
                self, '[conductor]\noperation_heartbeat_interval = 30\n'
                      'operation_takeover_timeout = 45\n')])
        self.assertIn('[conductor] operation_takeover_timeout',
                      error.detail)
        self.assertIn('twice', error.detail)
