"""The event task's rules with a recording workflow (real SQLite rows):
what runs when, what a failure or a take-over leaves behind."""

import datetime

from placement_ext import exception
from placement_ext.manager import events
from placement_ext.objects import event as event_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.unit.objects import test_lease
from placement_ext.vocabulary import states

T0 = test_lease.T0
HOUR = test_lease.HOUR


class FakeLeases:
    def __init__(self):
        self.calls = []
        self.fail = None
        self.during = None

    def _run(self, what, lease, progress):
        self.calls.append((what, lease.id))
        progress()
        if self.during:
            self.during()
        if self.fail:
            raise self.fail

    def start(self, lease, progress):
        self._run('start', lease, progress)

    def end(self, lease, progress):
        self._run('end', lease, progress)


class TestEventRunner(test_lease.LeaseTestCase):

    def setUp(self):
        super().setUp()
        self.now = T0
        self.leases = FakeLeases()
        self.runner = events.EventRunner(self.db, self.leases, 600,
                                         lambda: self.now)
        self.lease = self.create()

    def results(self):
        return [(o.event_type, o.result) for o in self.runner.run_due()]

    def state(self):
        lease = lease_obj.get(self.db, self.lease.id)
        return lease.status, [e.status for e in lease.events]

    def test_start_then_end(self):
        self.assertEqual([('start_lease', 'done')], self.results())
        self.assertEqual((states.LEASE_ACTIVE, ['DONE', 'UNDONE']),
                         self.state())
        self.assertEqual([], self.results())
        self.now = T0 + 2 * HOUR
        self.assertEqual([('end_lease', 'done')], self.results())
        self.assertEqual((states.LEASE_TERMINATED, ['DONE', 'DONE']),
                         self.state())
        self.assertEqual([('start', self.lease.id), ('end', self.lease.id)],
                         self.leases.calls)

    def test_start_of_a_lease_already_over_is_skipped(self):
        self.now = T0 + 3 * HOUR
        self.assertEqual([('start_lease', 'skipped'), ('end_lease', 'done')],
                         self.results())
        self.assertEqual([('end', self.lease.id)], self.leases.calls)

    def test_failure_is_retried_by_the_next_run(self):
        self.leases.fail = exception.ServiceUnavailable(service='Nova',
                                                        reason='down')
        outcomes = self.runner.run_due()
        self.assertEqual('failed', outcomes[0].result)
        self.assertIn('down', outcomes[0].error)
        self.assertEqual((states.LEASE_ERROR, ['UNDONE', 'UNDONE']),
                         self.state())
        self.leases.fail = None
        self.assertEqual([('start_lease', 'done')], self.results())
        self.assertEqual(states.LEASE_ACTIVE, self.state()[0])

    def test_a_bug_is_retried_too(self):
        self.leases.fail = KeyError('bug')
        self.assertEqual([('start_lease', 'failed')], self.results())
        self.assertEqual('UNDONE', self.state()[1][0])

    def test_taken_over_event_is_left_to_its_new_owner(self):
        def steal():
            event_obj.claim(self.db, self.lease.events[0].id,
                            T0 + HOUR, T0 + 2 * HOUR)
        self.leases.during = steal
        self.assertEqual([('start_lease', 'taken over')], self.results())
        self.assertEqual((states.LEASE_PENDING, ['IN_PROGRESS', 'UNDONE']),
                         self.state())

    def test_conflict_from_elsewhere_is_a_failure(self):
        self.leases.fail = exception.ConcurrentUpdate(kind='computehosts',
                                                      id=1)
        self.assertEqual([('start_lease', 'failed')], self.results())

    def test_end_now(self):
        self.runner.end_now(self.lease)
        self.assertEqual((states.LEASE_TERMINATED, ['UNDONE', 'DONE']),
                         self.state())
        # done already: nothing to do
        self.runner.end_now(lease_obj.get(self.db, self.lease.id))
        self.assertEqual(1, len(self.leases.calls))

    def test_end_now_refused_while_another_event_runs(self):
        event_obj.claim(self.db, self.lease.events[0].id, T0,
                        T0 - datetime.timedelta(hours=1))
        exc = self.assertRaises(exception.Conflict, self.runner.end_now,
                                self.lease)
        self.assertIn('being started or ended', exc.detail)

    def test_end_now_failure_is_raised_and_left_for_retry(self):
        self.leases.fail = exception.ServiceError(service='Nova',
                                                  reason='boom')
        self.assertRaises(exception.ServiceError, self.runner.end_now,
                          self.lease)
        self.assertEqual((states.LEASE_ERROR, ['UNDONE', 'UNDONE']),
                         self.state())
