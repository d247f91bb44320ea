"""TackerApi's waits: each ends on Tacker's answer, or says what it saw."""

from unittest import mock

import testtools

from placement_ext.testing import tacker_api


def api(answers):
    """A TackerApi whose ``call`` gives ``answers`` in turn (an
    exception in the list is raised)."""
    client = tacker_api.TackerApi('http://tacker', conn=None)
    replies = iter(answers)

    def call(*_args, **_kwargs):
        reply = next(replies)
        if isinstance(reply, Exception):
            raise reply
        return 200, {}, reply

    client.call = mock.Mock(side_effect=call)
    return client


class TestWaits(testtools.TestCase):

    def test_a_package_is_onboarded(self):
        client = api([{'id': 'p1'}, None,
                      {'id': 'p1', 'onboardingState': 'PROCESSING'},
                      {'id': 'p1', 'onboardingState': 'ONBOARDED'}])
        self.assertEqual('p1', client.upload_package(b'zip'))

    def test_a_package_put_back_to_created_is_an_error(self):
        client = api([{'id': 'p1'}, None,
                      {'id': 'p1', 'onboardingState': 'CREATED'}])
        self.assertRaises(tacker_api.TackerError, client.upload_package,
                          b'zip')

    def test_delete_waits_out_the_lcm_lock_only(self):
        client = api([tacker_api.TackerError(409, 'locked'), {}])
        client.delete_instance('i1')
        self.assertEqual(2, client.call.call_count)
        client = api([tacker_api.TackerError(404, 'gone')])
        err = self.assertRaises(tacker_api.TackerError,
                                client.delete_instance, 'i1')
        self.assertEqual(404, err.status)

    def test_delete_still_locked_at_the_deadline_raises_tackers_409(self):
        client = api([tacker_api.TackerError(409, 'locked')] * 50)
        err = self.assertRaises(tacker_api.TackerError,
                                client.delete_instance, 'i1', timeout=0)
        self.assertEqual(409, err.status)

    def test_wait_ends_at_a_terminal_state(self):
        client = api([{'operationState': 'PROCESSING'},
                      {'operationState': 'FAILED_TEMP'}])
        self.assertEqual('FAILED_TEMP',
                         client.wait('o1')['operationState'])

    def test_an_action_waits_for_the_occurrence_to_move_on(self):
        before = {'operationState': 'FAILED_TEMP', 'stateEnteredTime': 't0'}
        after = {'operationState': 'ROLLED_BACK', 'stateEnteredTime': 't1'}
        client = api([before, {}, before, after])
        self.assertEqual(after, client.occ_action('o1', 'rollback'))

    def test_a_wait_that_times_out_names_the_state(self):
        client = api([{'operationState': 'PROCESSING'}] * 50)
        err = self.assertRaises(TimeoutError, client.wait, 'o1', timeout=0)
        self.assertIn('still PROCESSING', str(err))
