"""The host's retry resumes our operation; its rollback or fail ends it."""

import datetime
import re

import sqlalchemy as sa
import testtools

from placement_ext import conf as pe_conf
from placement_ext import errors
from placement_ext.conductor import host_lcm
from placement_ext.conductor import lifecycle
from placement_ext.conductor import ownership
from placement_ext.conf import v2_vnfm
from placement_ext.db import models
from placement_ext.objects import operation as op_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import stacks as fake_stacks
from placement_ext.vocabulary import states

LCM = 'lcmocc-1'


def request(lcm=LCM):
    return {'operation': 'INSTANTIATE', 'vnf_instance_id': 'vnf-1',
            'stack_name': 'vnf-vnf-1',
            'template': {'heat_template_version': '2021-04-16'},
            'placement': {'VDU1-0': 'AZ-1'}, 'targets': ['VDU1-0'],
            'lcm_op_occ_id': lcm}


class TestHostLcm(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database()).db
        self.conf = pe_conf.new_conf([])
        # AZ-1 has the most room now, but ours found it full before
        self.heat = fake_stacks.FakeHeat({'AZ-1': 9, 'AZ-2': 1})
        self.heat.create_stack('vnf-vnf-1', {}, {'nfv': {'VDU': {}}})
        self.runs = 0
        self.now = 0.0
        self.sleeps = []
        self.owner = ownership.Ownership(self.db, 'here',
                                         self.conf.conductor)
        self.host = host_lcm.HostLcm(self.db, self.owner, limit=10,
                                     clock=lambda: self.now,
                                     sleep=self._sleep)

    def _sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds
        if self.on_sleep:
            self.on_sleep()

    on_sleep = None

    def runner(self):
        self.runs += 1
        return lifecycle.LifecycleRunner(
            self.db, self.heat,
            fake_stacks.FakeZones(('AZ-1', 'AZ-2'), self.heat),
            lifecycle.Settings(
                capacity_error=re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR),
                precheck=False))

    def failed_temp(self, lcm=LCM):
        """Ours after AZ-1 was full and Nova failed during reselection."""
        body = request(lcm)
        op = op_obj.create(self.db, vnf_instance_id='vnf-1',
                           operation='INSTANTIATE', params=body,
                           placement=body['placement'])
        op = op_obj.set_state(self.db, op, states.STATE_PROCESSING)
        op = op_obj.start_attempt(self.db, op, vdu_id='VDU1-0', zone='AZ-1',
                                  placement=op.placement, decision={})
        op = op_obj.finish_attempt(
            self.db, op, outcome=states.OUTCOME_INSUFFICIENT_CAPACITY,
            duration_s=1.0, error_text='No valid host was found')
        return op_obj.set_state(self.db, op, states.STATE_FAILED_TEMP,
                                error={'code': 'x', 'title': 'y',
                                       'detail': 'Nova is unavailable'})

    def claimed_by(self, op, owner, age_s=0):
        self.assertTrue(op_obj.claim(self.db, op.id, owner,
                                     models.utcnow()))
        with self.db.writer() as session:
            session.execute(sa.update(models.Operation).where(
                models.Operation.id == op.id).values(
                heartbeat_at=models.utcnow()
                - datetime.timedelta(seconds=age_s)))
        return op_obj.get(self.db, op.id)

    def resume(self):
        return self.host.resume('vnf-1', LCM, self.runner)

    def test_retry_resumes_the_same_operation_without_its_full_zone(self):
        failed = self.failed_temp()
        op = self.resume()
        self.assertEqual((failed.id, states.STATE_COMPLETED),
                         (op.id, op.state))
        self.assertEqual(['AZ-1', 'AZ-2'], [a.zone for a in op.attempts])
        self.assertEqual({'VDU1-0': 'AZ-2'}, op.placement)
        self.assertIsNone(op.owner)  # given up once ended
        self.assertEqual(1, self.runs)

    def test_no_operation_of_the_occurrence_is_nothing_to_resume(self):
        self.failed_temp(lcm='another-occurrence')
        self.assertIsNone(self.resume())
        self.assertEqual(0, self.runs)

    def test_a_completed_one_is_reused_without_running(self):
        op = self.failed_temp()
        op = op_obj.set_state(self.db, op, states.STATE_COMPLETED)
        self.assertEqual(op.id, self.resume().id)
        self.assertEqual(0, self.runs)

    def test_a_failed_one_is_not_resumed(self):
        op = self.failed_temp()
        op_obj.set_state(self.db, op, states.STATE_FAILED)
        self.assertIsNone(self.resume())

    def test_a_superseded_one_is_not_resumed(self):
        self.failed_temp()
        op_obj.create(self.db, vnf_instance_id='vnf-1',
                      operation='INSTANTIATE', params=request('newer'),
                      placement={'VDU1-0': 'AZ-1'})
        self.assertIsNone(self.resume())
        self.assertEqual(0, self.runs)

    def test_a_stale_claim_is_adopted(self):
        op = op_obj.set_state(self.db, self.failed_temp(),
                              states.STATE_PROCESSING)
        op = self.claimed_by(op, 'tacker-conductor@h:1', age_s=3600)
        op = self.resume()
        self.assertEqual(states.STATE_COMPLETED, op.state)
        self.assertEqual(['AZ-1', 'AZ-2'], [a.zone for a in op.attempts])
        self.assertEqual([], self.sleeps)

    def test_a_live_run_elsewhere_is_awaited(self):
        op = op_obj.set_state(self.db, self.failed_temp(),
                              states.STATE_PROCESSING)
        op = self.claimed_by(op, 'tacker-conductor@h:1')

        def other_completes():
            op_obj.set_state(self.db, op_obj.get(self.db, op.id),
                             states.STATE_COMPLETED)
        self.on_sleep = other_completes
        self.assertEqual(states.STATE_COMPLETED, self.resume().state)
        self.assertEqual([host_lcm.POLL_SECONDS], self.sleeps)
        self.assertEqual(0, self.runs)

    def test_a_live_run_that_goes_stale_is_adopted(self):
        op = op_obj.set_state(self.db, self.failed_temp(),
                              states.STATE_PROCESSING)
        op = self.claimed_by(op, 'tacker-conductor@h:1')
        self.on_sleep = lambda: self.claimed_by(op, 'tacker-conductor@h:1',
                                                age_s=3600)
        self.assertEqual(states.STATE_COMPLETED, self.resume().state)
        self.assertEqual(1, self.runs)

    def test_a_live_run_past_the_limit_fails_the_retry_naming_it(self):
        op = op_obj.set_state(self.db, self.failed_temp(),
                              states.STATE_PROCESSING)
        op = self.claimed_by(op, 'tacker-conductor@h:1')
        self.on_sleep = lambda: self.claimed_by(op, 'tacker-conductor@h:1')
        error = self.assertRaises(host_lcm.StillRunning, self.resume)
        self.assertIn(op.id, error.detail)
        self.assertIn('tacker-conductor@h:1', error.detail)
        self.assertEqual(0, self.runs)
        self.assertEqual(states.STATE_PROCESSING,
                         op_obj.get(self.db, op.id).state)

    def test_wait_limit_covers_one_attempt_and_the_takeover(self):
        self.assertEqual(20 * 60 + 90, host_lcm.wait_limit(self.conf))


class TestEndWithHost(TestHostLcm):

    def test_rollback_and_fail_end_ours_the_same_way(self):
        rolled = self.failed_temp()
        failed = self.failed_temp(lcm='lcmocc-2')
        answers = {LCM: 'ROLLED_BACK', 'lcmocc-2': 'FAILED'}
        ended = self.host.end_with_host(answers.get)
        self.assertEqual({rolled.id: states.STATE_ROLLED_BACK,
                          failed.id: states.STATE_FAILED},
                         {op.id: op.state for op in ended})
        op = op_obj.get(self.db, failed.id)
        self.assertEqual(states.STATE_FAILED, op.state)
        # the cause stays, and says who ended it
        self.assertEqual('x', op.error['code'])
        self.assertIn('Nova is unavailable', op.error['detail'])
        self.assertIn('lcmocc-2 FAILED', op.error['detail'])
        self.assertEqual([], self.host.end_with_host(answers.get))

    def test_completed_without_ours_ends_ours_failed_naming_it(self):
        # Tacker's own conductor (swapped in) completed the occurrence
        op = self.failed_temp()
        [ended] = self.host.end_with_host(lambda lcm: 'COMPLETED')
        self.assertEqual((op.id, states.STATE_FAILED),
                         (ended.id, ended.state))
        self.assertIn('Nova is unavailable', ended.error['detail'])
        self.assertIn(f'{LCM} COMPLETED', ended.error['detail'])

    def test_a_stopped_run_ends_a_live_one_is_left(self):
        stopped, live = self.failed_temp(), self.failed_temp('lcmocc-2')
        stopped = self.claimed_by(op_obj.set_state(
            self.db, stopped, states.STATE_PROCESSING), 'gone', age_s=3600)
        live = self.claimed_by(op_obj.set_state(
            self.db, live, states.STATE_PROCESSING), 'alive')
        [ended] = self.host.end_with_host(lambda lcm: 'FAILED')
        self.assertEqual(stopped.id, ended.id)
        self.assertEqual(errors.HOST_ENDED,
                         op_obj.get(self.db, stopped.id).error['code'])
        self.assertEqual(states.STATE_PROCESSING,
                         op_obj.get(self.db, live.id).state)

    def test_unended_or_unknown_occurrences_leave_ours(self):
        op = self.failed_temp()
        for answer in ('FAILED_TEMP', 'PROCESSING', None):
            self.assertEqual([], self.host.end_with_host(
                lambda lcm, answer=answer: answer))
        self.assertEqual(states.STATE_FAILED_TEMP,
                         op_obj.get(self.db, op.id).state)
