"""HeatDriver.wait: what counts as the end of an action."""

from unittest import mock

import testtools
from heatclient import exc as heat_exc
from keystoneauth1 import exceptions as ks_exc

from placement_ext import exception
from placement_ext.drivers import heat


class FakeStack:
    def __init__(self, status, reason='', updated=None, stack_id='s1'):
        self._d = {'id': stack_id, 'stack_name': 'vnf-1',
                   'stack_status': status,
                   'stack_status_reason': reason, 'updated_time': updated}

    def to_dict(self):
        return dict(self._d)


class TestWait(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.now = 0.0
        self.driver = heat.HeatDriver(mock.Mock(), sleep=self._sleep,
                                      clock=lambda: self.now)
        self.get = mock.Mock()
        self.driver._client = mock.Mock()
        self.driver._client.stacks.get = self.get

    def _sleep(self, seconds):
        self.now += seconds

    def test_waits_through_in_progress_and_heat_500s(self):
        self.get.side_effect = [
            FakeStack('CREATE_IN_PROGRESS'),
            heat_exc.HTTPInternalServerError('engine busy'),
            ks_exc.ConnectFailure('restarting'),
            FakeStack('CREATE_FAILED', 'No valid host')]
        outcome = self.driver.wait('s1', 'CREATE', 60)
        self.assertEqual(('CREATE_FAILED', 'No valid host'),
                         (outcome.status, outcome.reason))
        self.assertFalse(outcome.succeeded)

    def test_previous_status_is_not_the_updates_result(self):
        self.get.side_effect = [
            FakeStack('CREATE_FAILED', 'old', updated=None),
            FakeStack('UPDATE_IN_PROGRESS', updated='t1'),
            FakeStack('UPDATE_COMPLETE', updated='t1')]
        outcome = self.driver.wait('s1', 'UPDATE', 60, started_after=None)
        self.assertTrue(outcome.succeeded)
        self.assertEqual(3, self.get.call_count)

    def test_client_errors_are_not_retried(self):
        self.get.side_effect = heat_exc.HTTPForbidden('no')
        err = self.assertRaises(exception.ServiceError, self.driver.wait,
                                's1', 'CREATE', 60)
        self.assertIn('show stack', err.detail)

    def test_deadline_is_a_service_error_naming_the_status(self):
        self.get.return_value = FakeStack('UPDATE_IN_PROGRESS', updated='t')
        err = self.assertRaises(exception.ServiceError, self.driver.wait,
                                's1', 'UPDATE', 10)
        self.assertIn('still UPDATE_IN_PROGRESS after 10 s', err.detail)

    def test_looks_at_taskers_interval_then_less_often(self):
        self.get.side_effect = [FakeStack('UPDATE_IN_PROGRESS', updated='t')
                                ] * 13 + [FakeStack('UPDATE_COMPLETE',
                                                    updated='t')]
        sleeps = []
        self.driver._sleep = lambda s: (sleeps.append(s), self._sleep(s))
        self.driver.wait('s1', 'UPDATE', 600)
        # no look at once: one fewer than Tacker's fixed 5 s poll (0, 5,
        # 10, ...) for any duration; every 10 s after a minute
        self.assertEqual([5.0] * 12 + [10.0, 10.0], sleeps)

    def test_the_last_look_is_at_the_deadline(self):
        self.get.return_value = FakeStack('UPDATE_IN_PROGRESS', updated='t')
        self.assertRaises(exception.ServiceError, self.driver.wait,
                          's1', 'UPDATE', 7)
        self.assertEqual(7.0, self.now)
        self.assertEqual(2, self.get.call_count)     # at 5 and 7 s

    def test_looks_by_name_and_id_without_outputs(self):
        self.get.side_effect = [FakeStack('UPDATE_IN_PROGRESS', updated='t'),
                                FakeStack('UPDATE_COMPLETE', updated='t')]
        self.driver.wait('s1', 'UPDATE', 60)
        # a bare id is answered with a redirect to name/id: two requests
        self.assertEqual([mock.call('s1', resolve_outputs=False),
                          mock.call('vnf-1/s1', resolve_outputs=False)],
                         self.get.call_args_list)

    def test_rollback_ends_the_action(self):
        self.get.return_value = FakeStack('ROLLBACK_COMPLETE', 'rolled back')
        outcome = self.driver.wait('s1', 'CREATE', 60)
        self.assertFalse(outcome.succeeded)


class TestWaitSettled(testtools.TestCase):

    def test_waits_until_no_resource_is_in_progress(self):
        now = [0.0]
        driver = heat.HeatDriver(
            mock.Mock(), sleep=lambda s: now.__setitem__(0, now[0] + s),
            clock=lambda: now[0])
        busy = mock.Mock(resource_name='VDU1-0', resource_status='IN_PROGRESS')
        done = mock.Mock(resource_name='VDU1-0', resource_status='COMPLETE')
        driver._client = mock.Mock()
        driver._client.resources.list.side_effect = [[busy], [busy], [done]]
        driver.wait_settled('s1', 60)
        self.assertEqual(3, driver._client.resources.list.call_count)
        self.assertEqual(0.25 + 0.5, now[0])   # soon after they settle

    def test_a_stack_whose_action_completed_is_not_listed(self):
        driver = heat.HeatDriver(mock.Mock())
        driver._client = mock.Mock()
        for status in ('ROLLBACK_COMPLETE', 'UPDATE_COMPLETE'):
            driver.wait_settled('s1', 60, status=status)
        driver._client.resources.list.assert_not_called()
        driver._client.resources.list.return_value = []
        driver.wait_settled('s1', 60, status='UPDATE_FAILED')
        driver._client.resources.list.assert_called_once()


class TestFindAgain(testtools.TestCase):
    """The Tacker adapter reads the failed stack, then the runner does
    just before it sends the retry: one request, not two."""

    def setUp(self):
        super().setUp()
        self.now = 0.0
        self.driver = heat.HeatDriver(mock.Mock(), clock=lambda: self.now)
        self.driver._client = mock.Mock()
        self.get = self.driver._client.stacks.get

    def test_an_ended_stack_read_a_moment_ago_is_not_read_again(self):
        self.get.return_value = FakeStack('ROLLBACK_COMPLETE')
        self.driver.find_stack('vnf-1/s1')
        self.now = heat.ENDED_FRESH_S
        self.assertEqual('ROLLBACK_COMPLETE',
                         self.driver.find_stack('vnf-1')['stack_status'])
        self.assertEqual(1, self.get.call_count)
        self.now += 0.1
        self.driver.find_stack('vnf-1')
        self.assertEqual(2, self.get.call_count)

    def test_a_stack_sent_an_action_is_read_again(self):
        self.get.return_value = FakeStack('UPDATE_FAILED')
        self.driver.find_stack('vnf-1')
        self.driver.update_stack('s1', {})
        self.driver.find_stack('vnf-1')
        self.driver.mark_unhealthy('s1', 'VDU1', 'heal')
        self.driver.find_stack('vnf-1')
        self.assertEqual(3, self.get.call_count)

    def test_a_stack_in_progress_is_read_again(self):
        self.get.return_value = FakeStack('UPDATE_IN_PROGRESS')
        self.driver.find_stack('vnf-1')
        self.driver.find_stack('vnf-1')
        self.assertEqual(2, self.get.call_count)


class TestNotFound(testtools.TestCase):

    def test_names_the_stack_not_a_tuple(self):
        driver = heat.HeatDriver(mock.Mock())
        driver._client = mock.Mock()
        driver._client.stacks.get.side_effect = heat_exc.HTTPNotFound('gone')
        err = self.assertRaises(exception.NotFound, driver._call,
                                'show stack', driver._client.stacks.get, 's1')
        self.assertEqual('s1', err.kwargs['id'])
        self.assertTrue(err.detail.startswith('Heat: show stack s1: '),
                        err.detail)

    def test_find_stack_again_goes_by_name_and_id(self):
        # later than ENDED_FRESH_S: Heat is asked again
        driver = heat.HeatDriver(mock.Mock(), clock=iter(
            range(0, 1000, 60)).__next__)
        driver._client = mock.Mock()
        driver._client.stacks.get.return_value = FakeStack('CREATE_FAILED')
        driver.find_stack('vnf-1')
        driver.find_stack('vnf-1')
        driver.update_stack('s1', {})
        self.assertEqual(['vnf-1', 'vnf-1/s1'],
                         [c.args[0] for c in
                          driver._client.stacks.get.call_args_list])
        self.assertEqual('vnf-1/s1',
                         driver._client.stacks.update.call_args.args[0])

    def test_a_name_given_to_a_new_stack_is_looked_up_again(self):
        driver = heat.HeatDriver(mock.Mock(), clock=iter(
            range(0, 1000, 60)).__next__)
        driver._client = mock.Mock()
        driver._client.stacks.get.side_effect = [
            FakeStack('CREATE_FAILED'), FakeStack('DELETE_COMPLETE'),
            FakeStack('CREATE_COMPLETE', stack_id='s2')]
        driver.find_stack('vnf-1')
        self.assertEqual('s2', driver.find_stack('vnf-1')['id'])
        self.assertEqual('vnf-1', driver._client.stacks.get.call_args.args[0])

    def test_a_deleted_stack_named_by_id_gives_way_to_the_new_one(self):
        # Tacker's heal all=true: the stack is deleted and created again
        # under its name, and the retry names the old stack's id
        driver = heat.HeatDriver(mock.Mock())
        driver._client = mock.Mock()
        driver._client.stacks.get.side_effect = [
            FakeStack('DELETE_COMPLETE'),
            FakeStack('CREATE_FAILED', stack_id='s2')]
        self.assertEqual('s2', driver.find_stack('vnf-1/s1')['id'])
        self.assertEqual(['vnf-1/s1', 'vnf-1'],
                         [c.args[0] for c in
                          driver._client.stacks.get.call_args_list])

    def test_a_deleted_stack_is_none_when_no_other_has_its_name(self):
        driver = heat.HeatDriver(mock.Mock())
        driver._client = mock.Mock()
        driver._client.stacks.get.side_effect = [
            FakeStack('DELETE_COMPLETE'), heat_exc.HTTPNotFound('gone')]
        self.assertIsNone(driver.find_stack('vnf-1/s1'))

    def test_find_stack_of_no_stack_is_none(self):
        driver = heat.HeatDriver(mock.Mock())
        driver._client = mock.Mock()
        driver._client.stacks.get.side_effect = heat_exc.HTTPNotFound('gone')
        self.assertIsNone(driver.find_stack('vnf-1'))
