"""Reselection limits: attempts and deadline, with times passed in."""

import testtools

from placement_ext.decision import retry_policy as rp


class TestShouldStop(testtools.TestCase):

    def test_table(self):
        # (max, deadline, done, elapsed, stop, reason fragment)
        cases = [
            (0, 0, 99, 10 ** 6, False, None),   # unlimited both
            (3, 0, 2, 0, False, None),
            (3, 0, 3, 0, True, 'limit of 3'),
            (1, 0, 1, 0, True, 'placement_az_select_retry'),
            (0, 60, 5, 59.9, False, None),
            (0, 60, 5, 60, True, 'deadline of 60 s'),
            (0, 60, 0, 61, True, 'placement_az_select_timeout'),
            (2, 60, 2, 61, True, 'limit of 2'),  # count reported first
        ]
        for limit, deadline, done, elapsed, stop, reason in cases:
            limits = rp.RetryLimits(limit, deadline)
            verdict = rp.should_stop(limits, done, 100.0, 100.0 + elapsed)
            self.assertEqual(stop, verdict.stop, (limit, deadline, done))
            if reason:
                self.assertIn(reason, verdict.reason)
            else:
                self.assertIsNone(verdict.reason)

    def test_negative_limits_refused(self):
        self.assertRaises(ValueError, rp.RetryLimits, -1, 0)
        self.assertRaises(ValueError, rp.RetryLimits, 0, -1)


class TestTimes(testtools.TestCase):

    def test_remaining_seconds(self):
        self.assertIsNone(rp.remaining_seconds(rp.RetryLimits(), 0, 50))
        self.assertEqual(10, rp.remaining_seconds(rp.RetryLimits(0, 60),
                                                  0, 50))

    def test_attempt_timeout_minutes(self):
        cases = [
            (0, 0, 20),          # no deadline: the stack timeout
            (3600, 0, 20),       # plenty left
            (3600, 3000, 10),    # 600 s left
            (3600, 3599, 1),     # never 0: Heat refuses it
            (3600, 3539, 2),     # 61 s left rounds up
            (60, 600, 1),        # deadline passed: still a valid value
        ]
        for deadline, elapsed, minutes in cases:
            limits = rp.RetryLimits(0, deadline)
            self.assertEqual(minutes, rp.attempt_timeout_minutes(
                limits, 20, 1000, 1000 + elapsed), (deadline, elapsed))
