import contextlib
import io
import json
import pathlib

import fixtures
import testtools

from demo import cloud
from demo import steps
from demo import tacker_step
from placement_ext.testing import tacker_api


class TestRunAll(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.log = pathlib.Path(self.useFixture(fixtures.TempDir()).path,
                                'steps.log')
        self.done = []

    def _run(self, todo, keep=False):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            outcomes = steps.run_all(todo, keep, self.log)
        return outcomes, out.getvalue()

    def _note(self, what):
        return lambda: self.done.append(what)

    def _fail(self, what, exc):
        def action():
            self.done.append(what)
            raise exc
        return action

    def test_a_failed_step_is_cleaned_up_and_the_next_runs(self):
        todo = [steps.Step('a', self._fail('a', RuntimeError('no room')),
                           clean_up=(self._note('clean a'),)),
                steps.Step('b', self._note('b'))]
        outcomes, out = self._run(todo)
        self.assertEqual(['a', 'clean a', 'b'], self.done)
        self.assertEqual([(steps.FAILED, 'RuntimeError: no room'),
                          (steps.OK, '')],
                         [(o.result, o.cause) for o in outcomes])
        self.assertIn('  FAILED: RuntimeError: no room\n', out)
        self.assertNotIn('Traceback', out)
        self.assertIn('Traceback', self.log.read_text())
        self.assertEqual(1, steps.exit_code(outcomes))

    def test_a_required_step_that_failed_stops_the_rest(self):
        todo = [steps.Step('a', self._fail('a', steps.StepFailed('down')),
                           required=True),
                steps.Step('b', self._note('b'))]
        outcomes, _ = self._run(todo)
        self.assertEqual(['a'], self.done)
        self.assertEqual([steps.FAILED, steps.NOT_RUN],
                         [o.result for o in outcomes])
        self.assertEqual('  1 of 2 steps failed, 1 not run',
                         steps.summary(outcomes)[-1])

    def test_every_clean_up_is_tried_and_a_failed_one_fails_the_step(self):
        todo = [steps.Step('a', self._note('a'), clean_up=(
            self._fail('clean 1', steps.StepFailed('stack left')),
            self._note('clean 2')))]
        outcomes, out = self._run(todo)
        self.assertEqual(['a', 'clean 1', 'clean 2'], self.done)
        self.assertEqual((steps.FAILED, 'clean-up: stack left'),
                         (outcomes[0].result, outcomes[0].cause))
        self.assertIn('  clean-up FAILED: stack left', out)

    def test_keep_leaves_a_kept_step_that_worked(self):
        todo = [steps.Step('a', self._note('a'),
                           clean_up=(self._note('clean a'),), keep=True),
                steps.Step('b', self._fail('b', steps.StepFailed('x')),
                           clean_up=(self._note('clean b'),), keep=True)]
        outcomes, _ = self._run(todo, keep=True)
        self.assertEqual(['a', 'b', 'clean b'], self.done)

    def test_summary_of_steps_that_all_worked(self):
        outcomes = [steps.Outcome('a', steps.OK, seconds=12.3),
                    steps.Outcome('b', steps.OK, seconds=150)]
        self.assertEqual(['  ok        12 s  a', '  ok       150 s  b',
                          '  every step worked (2)'],
                         steps.summary(outcomes))
        self.assertEqual(0, steps.exit_code(outcomes))


class TestDescribe(testtools.TestCase):

    def test_problem_details_of_an_http_error(self):
        exc = tacker_api.TackerError(409, json.dumps({
            'status': 409, 'detail': 'Other LCM operation of vnfInstance '
                                     'x is in progress.'}))
        self.assertEqual('TackerError: HTTP 409: Other LCM operation of '
                         'vnfInstance x is in progress.',
                         steps.describe(exc))

    def test_one_line_and_bounded(self):
        cause = steps.describe(steps.StepFailed('a\n  b\n' + 'c' * 1000))
        self.assertTrue(cause.startswith('a b ccc'))
        self.assertNotIn('\n', cause)
        self.assertEqual(steps.CAUSE_MAX, len(cause))


class TestQuotaToSet(testtools.TestCase):

    def test_only_what_is_short_is_raised_to_fit(self):
        limits = {'instances': 10, 'cores': 20, 'ram': 51200}
        used = {'instances': 4, 'cores': 4, 'ram': 8192}
        need = {'instances': 8, 'cores': 8, 'ram': 16384}
        self.assertEqual({'instances': 12},
                         cloud.quota_to_set(limits, used, need))

    def test_room_or_no_limit_sets_nothing(self):
        self.assertEqual({}, cloud.quota_to_set(
            {'instances': -1, 'cores': 20}, {'instances': 30, 'cores': 4},
            {'instances': 8, 'cores': 8}))


class TestTackerCleanUpActions(testtools.TestCase):

    def test_failed_temp_instantiate_is_rolled_back_before_the_delete(self):
        self.assertEqual(['rollback', 'delete'],
                         tacker_step.clean_up_actions('FAILED_TEMP',
                                                      'NOT_INSTANTIATED'))

    def test_instantiated_vnf_is_terminated_first(self):
        self.assertEqual(['terminate', 'delete'],
                         tacker_step.clean_up_actions('COMPLETED',
                                                      'INSTANTIATED'))

    def test_failed_temp_scale_is_rolled_back_then_terminated(self):
        self.assertEqual(['rollback', 'terminate', 'delete'],
                         tacker_step.clean_up_actions('FAILED_TEMP',
                                                      'INSTANTIATED'))

    def test_a_vnf_never_operated_is_only_deleted(self):
        self.assertEqual(['delete'], tacker_step.clean_up_actions(
            None, 'NOT_INSTANTIATED'))
