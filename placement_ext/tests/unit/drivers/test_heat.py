"""HeatDriver.wait: what counts as the end of an action."""

from unittest import mock

import testtools
from heatclient import exc as heat_exc
from keystoneauth1 import exceptions as ks_exc

from placement_ext import exception
from placement_ext.drivers import heat


class FakeStack:
    def __init__(self, status, reason='', updated=None):
        self._d = {'id': 's1', 'stack_status': status,
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

    def test_backoff_doubles_up_to_the_poll_interval(self):
        intervals = heat.backoff(0.25, 2.0)
        self.assertEqual([0.25, 0.5, 1.0, 2.0, 2.0],
                         [next(intervals) for _ in range(5)])


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

    def test_find_stack_of_no_stack_is_none(self):
        driver = heat.HeatDriver(mock.Mock())
        driver._client = mock.Mock()
        driver._client.stacks.get.side_effect = heat_exc.HTTPNotFound('gone')
        self.assertIsNone(driver.find_stack('vnf-1'))
