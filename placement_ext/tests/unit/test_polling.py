"""The one polling helper."""

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
