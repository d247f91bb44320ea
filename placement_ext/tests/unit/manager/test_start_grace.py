import datetime

import testtools

from placement_ext.manager import lease_create

T = datetime.datetime(2026, 11, 26, 14, 44)


class TestStartsTooEarly(testtools.TestCase):

    def test_blazars_now_a_minute_and_seconds_ago_is_accepted(self):
        # Blazar floored "now" to 14:44:00 at 14:44:58; its plugin runs
        # at 14:45:03 (the failure seen under load: 65 s had passed)
        self.assertFalse(lease_create.starts_too_early(
            T, T + datetime.timedelta(minutes=1, seconds=3)))

    def test_a_start_within_the_current_minute_is_accepted(self):
        self.assertFalse(lease_create.starts_too_early(
            T, T + datetime.timedelta(seconds=59)))

    def test_a_start_before_the_previous_minute_is_refused(self):
        self.assertTrue(lease_create.starts_too_early(
            T - datetime.timedelta(seconds=1),
            T + datetime.timedelta(minutes=1, seconds=3)))
