"""Starts and ends interrupted half-way finish on a later run, with no
orphan in Placement or Nova: a step failing, a manager losing its event,
and a real manager process killed with SIGKILL."""

import os
import pathlib
import signal
import subprocess
import sys
import time

import fixtures

from placement_ext import exception
from placement_ext.objects import event as event_obj
from placement_ext.tests.functional.reservation import base
from placement_ext.tests.functional.reservation import stuck_manager
from placement_ext.vocabulary import states


class FailOnce:
    """Wrap ``owner.name`` so its ``call``-th call raises ``exc``."""

    def __init__(self, test, owner, name, call=1, exc=None):
        exc = exc or exception.ServiceUnavailable(service='Placement',
                                                  reason='injected')
        self.calls = 0
        original = getattr(owner, name)

        def wrapper(*args, **kwargs):
            self.calls += 1
            if self.calls == call:
                raise exc
            return original(*args, **kwargs)

        setattr(owner, name, wrapper)
        test.addCleanup(delattr, owner, name)


class TestFailedSteps(base.ReservationTestCase):

    def setUp(self):
        super().setUp()
        self.add_compute('cn1')
        self.add_compute('cn2')

    def test_start_failing_after_the_first_inventory_converges(self):
        lease = self.create_lease(amount=6)
        FailOnce(self, self.res.placement, 'set_inventory', call=2)
        outcomes = self.run_events()
        self.assertEqual(['failed'], [o.result for o in outcomes])
        self.assertIn('injected', outcomes[0].error)
        rc = lease.reservations[0].resource_class
        self.assertEqual({rc: 4}, self.reservation_inventory('cn1'))
        self.assertEqual({}, self.reservation_inventory('cn2'))
        failed = self.lease(lease.id)
        self.assertEqual(states.LEASE_ERROR, failed.status)
        self.assertEqual(states.EVENT_UNDONE, failed.events[0].status)
        # the next run of the event task finishes the start
        self.assertEqual(['done'], [o.result for o in self.run_events()])
        self.assertEqual({rc: 2}, self.reservation_inventory('cn2'))
        self.assertEqual(states.LEASE_ACTIVE, self.lease(lease.id).status)
        self.assertEqual([], self.res.reconciler.run()['findings'])

    def test_end_failing_half_way_converges(self):
        lease = self.create_lease(amount=6, hours=1)
        self.run_events()
        self.boot(self.lease(lease.id), 'cn1')
        self.clock.advance(hours=1)
        FailOnce(self, self.res.placement, 'delete_resource_class')
        self.assertEqual(['failed'], [o.result for o in self.run_events()])
        # servers and inventories went, the class did not
        rc = lease.reservations[0].resource_class
        self.assertEqual({}, self.reservation_inventory('cn1'))
        self.assertIn(rc, self.classes())
        self.assertEqual(states.LEASE_ERROR, self.lease(lease.id).status)
        self.assertEqual(['done'], [o.result for o in self.run_events()])
        self.assert_nothing_left(lease)
        self.assertEqual(states.LEASE_TERMINATED,
                         self.lease(lease.id).status)
        self.assertEqual([], self.res.reconciler.run()['findings'])

    def test_every_end_step_failing_once_still_converges(self):
        lease = self.create_lease(amount=6, hours=1)
        self.run_events()
        self.boot(self.lease(lease.id), 'cn2')
        self.clock.advance(hours=1)
        steps = [(self.nova, 'revoke_flavor_access'),
                 (self.nova, 'servers_with_flavor'),
                 (self.nova, 'delete_servers'),
                 (self.res.placement, 'delete_inventory'),
                 (self.res.placement, 'delete_resource_class'),
                 (self.nova, 'delete_flavor')]
        for owner, name in steps:
            FailOnce(self, owner, name)
        results = [o.result for _ in range(len(steps) + 1)
                   for o in self.run_events()]
        self.assertEqual(['failed'] * len(steps) + ['done'], results)
        self.assert_nothing_left(lease)

    def test_delete_failing_leaves_the_lease_for_a_retry(self):
        lease = self.create_lease(amount=2)
        self.run_events()
        FailOnce(self, self.res.placement, 'delete_inventory')
        self.assertRaises(exception.ServiceUnavailable,
                          self.res.delete_lease, lease.id)
        self.assertEqual(states.LEASE_ERROR, self.lease(lease.id).status)
        self.res.delete_lease(lease.id)
        self.assert_nothing_left(lease)


class TestTakeOver(base.ReservationTestCase):

    def setUp(self):
        super().setUp()
        self.add_compute('cn1')
        self.add_compute('cn2')

    def _claim_start(self, lease):
        now = self.clock()
        event = next(e for e in lease.events
                     if e.event_type == states.EVENT_START_LEASE)
        return event_obj.claim(self.db, event.id, now, now)

    def test_an_event_in_progress_is_not_run_twice(self):
        lease = self.create_lease(amount=6)
        self.assertIsNotNone(self._claim_start(lease))
        other = self.manager()
        self.assertEqual([], self.run_events(other))
        # nor can the lease be deleted meanwhile
        exc = self.assertRaises(exception.Conflict, other.delete_lease,
                                lease.id)
        self.assertIn('being started or ended', exc.detail)

    def test_abandoned_event_is_taken_over_and_finished(self):
        lease = self.create_lease(amount=6)
        claimed = self._claim_start(lease)
        # the first manager did one step, then died
        rc = lease.reservations[0].resource_class
        self.res.placement.set_inventory(self.provider('cn1').uuid, rc, 4)
        self.clock.advance(seconds=base.SETTINGS.event_stale_after + 1)
        other = self.manager()
        self.assertEqual(['done'], [o.result for o in self.run_events(other)])
        self.assertEqual({rc: 2}, self.reservation_inventory('cn2'))
        self.assertEqual(states.LEASE_ACTIVE, self.lease(lease.id).status)
        # the first manager, back to life, finds it is no longer its event
        self.assertRaises(exception.ConcurrentUpdate, event_obj.touch,
                          self.db, claimed)


class TestKilledManager(base.ReservationTestCase):
    """A real manager process killed (SIGKILL) during a start or an end."""

    def setUp(self):
        super().setUp()
        self.add_compute('cn1')
        self.add_compute('cn2')
        self.signal = pathlib.Path(
            self.useFixture(fixtures.TempDir()).path, 'stuck')

    def _run_and_kill(self, step):
        """A manager process runs the due events and hangs at the
        ``step``-th inventory change; kill it there."""
        proc = subprocess.Popen(
            [sys.executable, '-m', stuck_manager.__name__,
             self.database.url, self.placement_server.endpoint,
             str(self.signal), str(step)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(_reap, proc)
        deadline = time.monotonic() + 60
        while not self.signal.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                self.fail('manager process did not reach the step: ' +
                          proc.stderr.read().decode(errors='replace'))
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()

    def _statuses(self, lease):
        return {e.event_type: e.status for e in self.lease(lease.id).events}

    def test_killed_during_start(self):
        lease = self.create_lease(amount=6)
        self._run_and_kill(step=2)          # after cn1's inventory
        rc = lease.reservations[0].resource_class
        self.assertEqual({rc: 4}, self.reservation_inventory('cn1'))
        self.assertEqual({}, self.reservation_inventory('cn2'))
        self.assertEqual(states.EVENT_IN_PROGRESS,
                         self._statuses(lease)['start_lease'])
        # a restarted manager leaves it until it is stale, then finishes
        self.assertEqual([], self.run_events())
        self.clock.advance(seconds=base.SETTINGS.event_stale_after + 1)
        self.assertEqual(['done'], [o.result for o in self.run_events()])
        self.assertEqual({rc: 2}, self.reservation_inventory('cn2'))
        self.assertEqual(states.LEASE_ACTIVE, self.lease(lease.id).status)
        self.assertEqual([], self.res.reconciler.run()['findings'])

    def test_killed_during_end(self):
        lease = self.create_lease(amount=6, hours=1)
        self.run_events()
        self.clock.advance(hours=1)
        # the subprocess runs on real time: move the end event to now
        base.end_now(self.db, lease.id)
        self._run_and_kill(step=2)          # after cn1's inventory
        rc = lease.reservations[0].resource_class
        self.assertEqual({}, self.reservation_inventory('cn1'))
        self.assertEqual({rc: 2}, self.reservation_inventory('cn2'))
        self.clock.advance(seconds=base.SETTINGS.event_stale_after + 1)
        self.assertEqual(['done'], [o.result for o in self.run_events()])
        self.assert_nothing_left(lease)
        self.assertEqual(states.LEASE_TERMINATED,
                         self.lease(lease.id).status)


def _reap(proc):
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    proc.stderr.close()
