"""The one polling helper."""

import itertools

import testtools

from placement_ext import exception
from placement_ext import polling


class TestUntil(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.slept = []

    def until(self, attempt, **kwargs):
        return polling.until(attempt, sleep=self.slept.append, **kwargs)

    def test_the_first_value_other_than_none(self):
        answers = iter([None, None, 'ready'])
        self.assertEqual('ready', self.until(lambda: next(answers),
                                             timeout=60, interval=2))
        self.assertEqual([2, 2], self.slept)

    def test_none_when_time_runs_out(self):
        calls = []
        self.assertIsNone(self.until(lambda: calls.append(1), timeout=0))
        self.assertEqual([1], calls)

    def test_listed_errors_are_retried_then_raised(self):
        errors = iter([exception.ServiceUnavailable(service='s', reason='r'),
                       'pong'])

        def attempt():
            found = next(errors)
            if isinstance(found, Exception):
                raise found
            return found

        self.assertEqual('pong', self.until(
            attempt, timeout=60, retry_on=(exception.ServiceUnavailable,)))

        def down():
            raise exception.ServiceUnavailable(service='s', reason='down')

        self.assertRaises(exception.ServiceUnavailable, self.until, down,
                          timeout=0, retry_on=(exception.ServiceUnavailable,))

    def test_other_errors_at_once(self):
        def broken():
            raise ValueError('bug')

        self.assertRaises(ValueError, self.until, broken, timeout=60)
        self.assertEqual([], self.slept)


class TestSchedule(testtools.TestCase):
    """A schedule of intervals, a first look after the first one, and
    the deadline on the caller's clock (Heat's wait)."""

    def setUp(self):
        super().setUp()
        self.now = 0.0
        self.looks = []

    def sleep(self, seconds):
        self.now += seconds

    def look(self):
        self.looks.append(self.now)

    def test_no_look_at_once_and_the_last_at_the_deadline(self):
        self.assertIsNone(polling.until(
            self.look, timeout=12, interval=itertools.repeat(5.0),
            first_after=True, sleep=self.sleep, clock=lambda: self.now))
        self.assertEqual([5.0, 10.0, 12.0], self.looks)

    def test_backoff_doubles_up_to_most(self):
        intervals = polling.backoff(0.25, 2.0)
        self.assertEqual([0.25, 0.5, 1.0, 2.0, 2.0],
                         [next(intervals) for _ in range(5)])
