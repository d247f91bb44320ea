"""Periodic tasks and worker pools on futurist."""

import threading

import fixtures
import testtools

from placement_ext import background

# generous bound for waits on threads; never reached when things work
WAIT = 30


class TestPeriodicTask(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger())

    def test_first_after_then_the_interval_read_when_due(self):
        runs, enough = [], threading.Event()
        task = background.PeriodicTask(
            'sync', lambda: 0.01,
            lambda: (runs.append(1), len(runs) >= 2 and enough.set()),
            first_after=0.01)
        task.start()
        self.assertTrue(enough.wait(WAIT))
        task.stop()
        self.assertEqual(0.01, task.interval)

    def test_stop_during_first_after_runs_nothing(self):
        runs = []
        task = background.PeriodicTask('sync', 3600, lambda: runs.append(1),
                                       first_after=3600)
        task.start()
        task.stop()    # returns at once although the first run is far
        self.assertEqual([], runs)

    def test_a_failed_run_is_logged(self):
        def broken():
            raise RuntimeError('broken')

        background.PeriodicTask('sync', 5, broken).run_once()
        self.assertIn('Periodic task sync failed; next run in 5 s',
                      self.log.output)


class TestWorkers(testtools.TestCase):

    def test_one_key_at_a_time_and_why_it_waits(self):
        workers = background.Workers(1)
        self.addCleanup(workers.stop)
        release, started = threading.Event(), threading.Event()

        def busy():
            started.set()
            release.wait(WAIT)

        self.assertTrue(workers.submit('a', busy))
        self.assertTrue(started.wait(WAIT))
        self.assertFalse(workers.submit('a', busy))
        self.assertTrue(workers.submit('b', lambda: None))
        self.assertEqual('waiting for a free operation worker: all 1 are '
                         'busy ([conductor] operation_workers)',
                         workers.waiting('b'))
        self.assertIsNone(workers.waiting('a'))
        release.set()


class TestCalls(testtools.TestCase):

    def test_the_result_or_the_error_on_a_pool_thread(self):
        calls = background.Calls(2)
        self.addCleanup(calls.stop)
        self.assertNotEqual(threading.current_thread().name,
                            calls.run(lambda: threading.current_thread().name))

        def broken():
            raise ValueError('bad')

        self.assertRaises(ValueError, calls.run, broken)
