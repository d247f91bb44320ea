"""Our operation's fate on the host's retry, rollback and fail."""

import testtools

from placement_ext.decision import host_lcm
from placement_ext.vocabulary import states as s


class TestOnRetry(testtools.TestCase):

    def test_every_state(self):
        # (our state, claim live, step)
        cases = [
            (s.STATE_FAILED_TEMP, False, host_lcm.RESUME),
            (s.STATE_FAILED_TEMP, True, host_lcm.RESUME),
            (s.STATE_PROCESSING, True, host_lcm.WAIT),
            (s.STATE_STARTING, True, host_lcm.WAIT),
            (s.STATE_PROCESSING, False, host_lcm.ADOPT),
            (s.STATE_STARTING, False, host_lcm.ADOPT),
            (s.STATE_COMPLETED, False, host_lcm.REUSE),
            (s.STATE_FAILED, False, host_lcm.START_NEW),
            (s.STATE_ROLLED_BACK, False, host_lcm.START_NEW),
            (s.STATE_ROLLING_BACK, False, host_lcm.START_NEW),
        ]
        for state, live, step in cases:
            self.assertEqual(step, host_lcm.on_retry(state, live),
                             (state, live))


class TestOnHostEnd(testtools.TestCase):

    def test_every_state(self):
        # (our state, claim live, Tacker's state, our end state)
        cases = [
            (s.STATE_FAILED_TEMP, False, 'FAILED', s.STATE_FAILED),
            (s.STATE_FAILED_TEMP, False, 'ROLLED_BACK',
             s.STATE_ROLLED_BACK),
            (s.STATE_PROCESSING, False, 'FAILED', s.STATE_FAILED),
            (s.STATE_STARTING, False, 'ROLLED_BACK', s.STATE_ROLLED_BACK),
            # completed by another conductor (Tacker's, swapped in)
            (s.STATE_FAILED_TEMP, False, 'COMPLETED', s.STATE_FAILED),
            (s.STATE_PROCESSING, False, 'COMPLETED', s.STATE_FAILED),
            # a live run is left to finish
            (s.STATE_PROCESSING, True, 'FAILED', None),
            (s.STATE_PROCESSING, True, 'COMPLETED', None),
            # Tacker's occurrence has not ended
            (s.STATE_FAILED_TEMP, False, 'FAILED_TEMP', None),
            (s.STATE_FAILED_TEMP, False, 'PROCESSING', None),
            (s.STATE_FAILED_TEMP, False, 'ROLLING_BACK', None),
            (s.STATE_FAILED_TEMP, False, None, None),
            # ours ended already
            (s.STATE_COMPLETED, False, 'ROLLED_BACK', None),
            (s.STATE_FAILED, False, 'ROLLED_BACK', None),
            (s.STATE_ROLLED_BACK, False, 'FAILED', None),
        ]
        for state, live, host, ended in cases:
            self.assertEqual(ended, host_lcm.on_host_end(state, live, host),
                             (state, live, host))
