"""The conductor's reselection loop on a real (SQLite) database."""

import dataclasses
import re

import testtools

from placement_ext import errors
from placement_ext import exception
from placement_ext.conductor import lifecycle
from placement_ext.conf import v2_vnfm
from placement_ext.decision import retry_policy
from placement_ext.objects import operation as op_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import stacks as fake_stacks
from placement_ext.vocabulary import states

ZONES = ('AZ-1', 'AZ-2', 'AZ-3', 'AZ-4', 'AZ-5')
ANTI_AFFINITY = {
    'affinityOrAntiAffinity': 'ANTI_AFFINITY', 'scope': 'ZONE',
    'resource': [{'idType': 'GRANT', 'resourceId': 'VDU2-0'},
                 {'idType': 'GRANT', 'resourceId': 'VDU2-1'}]}


def request(**overrides):
    body = {
        'operation': 'INSTANTIATE', 'vnf_instance_id': 'vnf-1',
        'stack_name': 'vnf-1',
        'template': {'heat_template_version': '2021-04-16'},
        'placement': {'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-2'},
        'targets': ['VDU1-0', 'VDU2-0'],
    }
    body.update(overrides)
    return body


class TestLifecycleRunner(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database()).db

    def _run(self, room, body=None, strategy='capacity', retry=0,
             error=None):
        self.heat = fake_stacks.FakeHeat(room, error=error)
        zones = fake_stacks.FakeZones(ZONES, self.heat)
        settings = lifecycle.Settings(
            capacity_error=re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR),
            strategy=strategy,
            limits=retry_policy.RetryLimits(max_reselections=retry))
        self.runner = lifecycle.LifecycleRunner(self.db, self.heat, zones,
                                                settings)
        body = body or request()
        op = op_obj.create(self.db, vnf_instance_id='vnf-1',
                           operation=body['operation'], params=body,
                           placement=body['placement'])
        return self.runner.run(op.id)

    def test_granted_placement_that_fits_is_one_attempt(self):
        op = self._run({zone: 5 for zone in ZONES})
        self.assertEqual(states.STATE_COMPLETED, op.state)
        self.assertEqual([states.OUTCOME_SUCCESS],
                         [a.outcome for a in op.attempts])
        self.assertEqual({'VDU1-0': 'AZ-1', 'VDU2-0': 'AZ-2'}, op.placement)

    def test_full_zone_moves_only_the_failed_vnfc_where_it_fits(self):
        # AZ-2 keeps room for VDU2-0 only; AZ-4 has the most room left
        op = self._run({'AZ-1': 0, 'AZ-2': 1, 'AZ-4': 3})
        self.assertEqual(states.STATE_COMPLETED, op.state)
        self.assertEqual('AZ-4', op.placement['VDU1-0'])
        self.assertEqual('AZ-2', op.placement['VDU2-0'])
        first, second = op.attempts
        self.assertEqual(('VDU1-0', 'AZ-1', 'insufficient_capacity'),
                         (first.vdu_id, first.zone, first.outcome))
        self.assertIn('No valid host was found', first.error_text)
        self.assertEqual(('VDU1-0', 'AZ-4', 'success'),
                         (second.vdu_id, second.zone, second.outcome))
        self.assertEqual({'VDU1-0': ['AZ-1', 'AZ-4']},
                         second.decision['moved'])
        self.assertEqual('capacity', second.decision['strategy'])
        # the failed create settles before the update is sent
        self.assertEqual(['create', 'wait_settled', 'update'],
                         [call[0] for call in self.heat.calls])

    def test_random_strategy_never_repeats_a_failed_zone(self):
        op = self._run({'AZ-5': 1, 'AZ-2': 1}, strategy='random')
        self.assertEqual(states.STATE_COMPLETED, op.state)
        failed = op.failed_zones['VDU1-0']
        self.assertEqual(len(failed), len(set(failed)))
        self.assertNotIn(op.placement['VDU1-0'], failed)

    def test_other_heat_error_fails_at_once_with_heats_text(self):
        text = ('Resource CREATE failed: Forbidden: resources.VDU1-0: '
                'Quota exceeded for cores')
        op = self._run({zone: 5 for zone in ZONES}, error=text)
        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        self.assertEqual(errors.STACK_FAILED, op.error['code'])
        self.assertIn(text, op.error['detail'])
        self.assertEqual([states.OUTCOME_ERROR],
                         [a.outcome for a in op.attempts])

    def test_a_cancelled_sibling_is_not_taken_for_the_cause(self):
        heat = fake_stacks.FakeHeat({'AZ-2': 1, 'AZ-3': 1})  # AZ-1 is full
        wait = heat.wait

        def cancelled_reason(stack_id, *args, **kwargs):
            outcome = wait(stack_id, *args, **kwargs)
            if outcome.succeeded:
                return outcome
            # Heat names the sibling it cancelled; the event has the cause
            return dataclasses.replace(
                outcome, reason='Resource UPDATE failed: resources.VDU1-0: '
                                'Stack UPDATE cancelled')

        heat.wait = cancelled_reason
        op = self._run_on(heat, request())
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertEqual(states.OUTCOME_INSUFFICIENT_CAPACITY,
                         op.attempts[0].outcome)

    def test_all_zones_full_fails_listing_what_was_tried(self):
        op = self._run({'AZ-2': 1})
        self.assertEqual(states.STATE_FAILED, op.state)
        self.assertEqual(errors.ZONES_EXHAUSTED, op.error['code'])
        for zone in ('AZ-1', 'AZ-3', 'AZ-4', 'AZ-5'):
            self.assertIn(zone, op.error['detail'])
        self.assertIn('No valid host was found', op.error['detail'])
        tried = {zone for zones in op.failed_zones.values() for zone in zones}
        self.assertEqual(set(ZONES), tried)

    def test_retry_limit_stops_the_loop(self):
        op = self._run({'AZ-2': 1}, retry=2)
        self.assertEqual(states.STATE_FAILED, op.state)
        self.assertIn('placement_az_select_retry', op.error['detail'])
        self.assertEqual(3, len(op.attempts))

    def test_anti_affinity_peers_end_in_different_zones(self):
        body = request(placement={'VDU2-0': 'AZ-1', 'VDU2-1': 'AZ-2'},
                       targets=['VDU2-0', 'VDU2-1'],
                       constraints=[ANTI_AFFINITY])
        op = self._run({'AZ-1': 0, 'AZ-2': 5, 'AZ-3': 5}, body=body)
        self.assertEqual(states.STATE_COMPLETED, op.state)
        self.assertNotEqual(op.placement['VDU2-0'], op.placement['VDU2-1'])
        self.assertEqual([], op.attempts[-1].decision['broken'])

    def test_heal_moves_only_its_targets_and_marks_them_unhealthy(self):
        body = request(operation='HEAL',
                       placement={'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1'},
                       targets=['VDU1-1'], heal_resources=['VDU1-1'])
        # an existing stack: the heal is an update
        self.heat = fake_stacks.FakeHeat({'AZ-1': 1, 'AZ-3': 1})
        stack_id = self.heat.create_stack('vnf-1', {}, {'nfv': {'VDU': {}}})
        op = self._run_on(self.heat, body)
        self.assertEqual(states.STATE_COMPLETED, op.state)
        self.assertEqual({'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-3'}, op.placement)
        marks = [c for c in self.heat.calls if c[0] == 'mark_unhealthy']
        self.assertEqual([('mark_unhealthy', 'VDU1-1')], marks)
        self.assertEqual(stack_id, self.heat.find_stack('vnf-1')['id'])

    def test_heal_of_a_vanished_stack_ends_failed_temp(self):
        # accepted while the stack existed, deleted before the run: the
        # request has no template to create it from (was KeyError)
        body = request(operation='HEAL', targets=['VDU1-0'])
        del body['template']
        op = self._run_on(fake_stacks.FakeHeat({'AZ-1': 1}), body)
        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        self.assertEqual(errors.NOT_FOUND, op.error['code'])
        self.assertIn('vnf-1', op.error['detail'])

    def test_unexpected_error_ends_failed_temp_with_its_cause(self):
        heat = fake_stacks.FakeHeat({'AZ-1': 1, 'AZ-2': 1})

        def broken(*args, **kwargs):
            raise KeyError('stack_status')
        heat.wait = broken
        op = self._run_on(heat, request())
        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        self.assertEqual(errors.INTERNAL, op.error['code'])
        self.assertEqual("unexpected error: KeyError: 'stack_status'",
                         op.error['detail'])
        # the attempt in flight is closed, so a retry starts cleanly
        self.assertIsNone(op.in_flight)
        self.assertEqual([states.OUTCOME_ERROR],
                         [a.outcome for a in op.attempts])

    def test_retry_after_an_error_sends_the_placement_again(self):
        # a FAILED_TEMP whose attempt was closed with the error, retried
        # (was: Conflict, no attempt in flight, when the retry succeeded)
        heat = fake_stacks.FakeHeat({'AZ-1': 1, 'AZ-2': 1})
        wait = heat.wait

        def unavailable(*args, **kwargs):
            heat.wait = wait
            raise exception.ServiceUnavailable(service='Heat',
                                               reason='timed out')
        heat.wait = unavailable
        op = self._run_on(heat, request())
        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        op = op_obj.set_state(self.db, op, states.STATE_PROCESSING)
        zones = fake_stacks.FakeZones(ZONES, heat)
        runner = lifecycle.LifecycleRunner(self.db, heat, zones,
                                           lifecycle.Settings(
            capacity_error=re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR)))
        op = runner.run(op.id)
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertEqual(
            [(states.OUTCOME_ERROR, 'AZ-1'), (states.OUTCOME_SUCCESS, 'AZ-1')],
            [(a.outcome, a.zone) for a in op.attempts])

    def test_check_stack_exists_refuses_an_unknown_stack(self):
        runner = lifecycle.LifecycleRunner(
            self.db, fake_stacks.FakeHeat({}), None, lifecycle.Settings(
                capacity_error=re.compile('x')))
        exc = self.assertRaises(exception.InvalidInput,
                                runner.check_stack_exists,
                                request(operation='SCALE'))
        self.assertEqual('stack_name', exc.field)

    def _run_on(self, heat, body):
        zones = fake_stacks.FakeZones(ZONES, heat)
        settings = lifecycle.Settings(
            capacity_error=re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR))
        runner = lifecycle.LifecycleRunner(self.db, heat, zones, settings)
        op = op_obj.create(self.db, vnf_instance_id='vnf-1',
                           operation=body['operation'], params=body,
                           placement=body['placement'])
        return runner.run(op.id)

    def test_resumed_operation_does_not_repeat_a_failed_zone(self):
        heat = fake_stacks.FakeHeat({'AZ-1': 0, 'AZ-2': 5, 'AZ-3': 5})
        body = request()
        op = op_obj.create(self.db, vnf_instance_id='vnf-1',
                           operation='INSTANTIATE', params=body,
                           placement=body['placement'])
        # a conductor that stopped after AZ-1 failed and AZ-3 was chosen
        op = op_obj.set_state(self.db, op, states.STATE_PROCESSING)
        op = op_obj.start_attempt(self.db, op, vdu_id='VDU1-0', zone='AZ-1',
                                  placement=body['placement'], decision={})
        op = op_obj.finish_attempt(
            self.db, op, outcome=states.OUTCOME_INSUFFICIENT_CAPACITY,
            duration_s=1.0)
        moved = dict(body['placement'], **{'VDU1-0': 'AZ-3'})
        op_obj.start_attempt(self.db, op, vdu_id='VDU1-0', zone='AZ-3',
                             placement=moved, decision={})

        settings = lifecycle.Settings(
            capacity_error=re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR))
        runner = lifecycle.LifecycleRunner(
            self.db, heat, fake_stacks.FakeZones(ZONES, heat), settings)
        op = runner.run(op.id)

        self.assertEqual(states.STATE_COMPLETED, op.state)
        self.assertEqual('AZ-3', op.placement['VDU1-0'])
        sent = [c[1]['nfv']['VDU']['VDU1-0']['locationConstraints']
                for c in heat.calls if c[0] in ('create', 'update')]
        self.assertEqual(['AZ-3'], sent)    # AZ-1 was not tried again

    def _stopped_after_failures(self, zones, retry):
        """A conductor stopped after recording capacity failures in
        ``zones``, before choosing the next; the runner resumes it."""
        self.heat = fake_stacks.FakeHeat({'AZ-2': 1, 'AZ-4': 5})
        body = request()
        op = op_obj.create(self.db, vnf_instance_id='vnf-1',
                           operation='INSTANTIATE', params=body,
                           placement=body['placement'])
        op = op_obj.set_state(self.db, op, states.STATE_PROCESSING)
        for zone in zones:
            op = op_obj.start_attempt(
                self.db, op, vdu_id='VDU1-0', zone=zone,
                placement=dict(body['placement'], **{'VDU1-0': zone}),
                decision={})
            op = op_obj.finish_attempt(
                self.db, op, outcome=states.OUTCOME_INSUFFICIENT_CAPACITY,
                duration_s=1.0)
        settings = lifecycle.Settings(
            capacity_error=re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR),
            limits=retry_policy.RetryLimits(max_reselections=retry))
        return lifecycle.LifecycleRunner(
            self.db, self.heat, fake_stacks.FakeZones(ZONES, self.heat),
            settings).run(op.id)

    def test_resume_after_a_recorded_failure_moves_without_resending(self):
        op = self._stopped_after_failures(['AZ-1'], retry=0)
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertEqual(['AZ-1', 'AZ-4'], [a.zone for a in op.attempts])

    def test_resume_after_a_recorded_failure_obeys_the_retry_limit(self):
        op = self._stopped_after_failures(['AZ-1', 'AZ-3'], retry=1)
        self.assertEqual(states.STATE_FAILED, op.state)
        self.assertIn('placement_az_select_retry', op.error['detail'])
        self.assertEqual(2, len(op.attempts))
        self.assertEqual([], self.heat.calls)

    def test_terminal_operation_is_left_alone(self):
        op = self._run({zone: 5 for zone in ZONES})
        calls = len(self.heat.calls)
        again = self.runner.run(op.id)
        self.assertEqual(states.STATE_COMPLETED, again.state)
        self.assertEqual(calls, len(self.heat.calls))


class TestSentByTheHostService(testtools.TestCase):
    """tacker-conductor sent the first create itself; its failure is our
    first attempt."""

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database()).db

    def _run(self, reason, room, status=None):
        heat = fake_stacks.FakeHeat(room)
        stack_id = heat.create_stack('vnf-1', {}, {'nfv': {'VDU': {
            'VDU1-0': {'locationConstraints': 'AZ-1'}}}})
        settings = lifecycle.Settings(
            capacity_error=re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR))
        runner = lifecycle.LifecycleRunner(
            self.db, heat, fake_stacks.FakeZones(ZONES, heat), settings)
        body = request(placement={'VDU1-0': 'AZ-1'}, targets=['VDU1-0'])
        op = op_obj.create(self.db, vnf_instance_id='vnf-1',
                           operation='INSTANTIATE', params=body,
                           placement=body['placement'])
        sent = heat.wait(stack_id, 'CREATE', 60)
        if reason:
            sent = dataclasses.replace(sent, reason=reason)
        if status:
            heat.stacks[stack_id]['stack_status'] = status
            sent = dataclasses.replace(sent, status=status)
        return runner.run(op.id, sent=sent), heat

    def test_a_capacity_failure_is_recorded_then_reselected(self):
        op, heat = self._run(None, {'AZ-1': 0, 'AZ-2': 2})
        self.assertEqual(states.STATE_COMPLETED, op.state)
        first, second = op.attempts
        self.assertEqual(('AZ-1', states.OUTCOME_INSUFFICIENT_CAPACITY),
                         (first.zone, first.outcome))
        self.assertIn('sent by the host service',
                      first.decision['reasons'][0])
        self.assertEqual(('AZ-2', states.OUTCOME_SUCCESS),
                         (second.zone, second.outcome))
        # only our move reached Heat after the host service's create
        self.assertEqual(['create', 'update'],
                         [c[0] for c in heat.calls if c[0] != 'wait_settled'])

    def test_a_rolled_back_try_tacker_explained_reads_no_events(self):
        # Tacker read the failed event itself (its stack ROLLBACK_COMPLETE
        # says only "rolled back"): asking Heat again only delays the move
        op, heat = self._run(
            fake_stacks.NO_VALID_HOST.format(vnfc='VDU1-0'),
            {'AZ-1': 0, 'AZ-2': 2}, status='ROLLBACK_COMPLETE')
        self.assertEqual(states.STATE_COMPLETED, op.state)
        self.assertNotIn('latest_failure_reason', [c[0] for c in heat.calls])

    def test_a_rolled_back_try_without_its_reason_reads_the_event(self):
        op, heat = self._run('Stack CREATE rolled back', {'AZ-2': 2},
                             status='ROLLBACK_COMPLETE')
        self.assertIn('latest_failure_reason', [c[0] for c in heat.calls])

    def test_a_stack_that_ended_is_not_listed_before_the_move(self):
        op, heat = self._run(None, {'AZ-1': 0, 'AZ-2': 2})
        # the status is passed, so the driver lists resources only after
        # a FAILED action
        [settled] = [c for c in heat.calls if c[0] == 'wait_settled']
        self.assertEqual('CREATE_FAILED', settled[2])

    def test_another_failure_ends_it_with_heats_text(self):
        op, heat = self._run('Resource CREATE failed: Forbidden: Quota '
                             'exceeded for instances', {'AZ-2': 2})
        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        [attempt] = op.attempts
        self.assertEqual(states.OUTCOME_ERROR, attempt.outcome)
        self.assertIn('Quota exceeded', op.error['detail'])
