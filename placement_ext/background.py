"""Work apart from the caller's thread, on futurist: periodic tasks and
worker pools, in one place and all stoppable.

A periodic task is a futurist ``PeriodicWorker`` in a thread of its own
(one slow task never delays another's schedule); a pool is a futurist
``ThreadPoolExecutor`` (threads started on first use). ``stop`` ends
either without waiting for an interval to pass. The services
(:mod:`placement_ext.service`) and the adapters' threads inside Tacker
and Blazar all run here; nothing else in the package loops on a sleep
(waits for something to happen are :func:`placement_ext.polling.until`).
"""

import threading
from collections.abc import Callable
from concurrent import futures
from typing import TypeVar

import futurist
from futurist import periodics
from oslo_log import log as logging

LOG = logging.getLogger(__name__)
T = TypeVar('T')


class PeriodicTask:
    """Call ``func()`` every ``interval`` seconds in a thread.

    The first run starts at once, or ``first_after`` seconds after
    :meth:`start`. Each next run starts ``interval`` seconds after the
    previous one ended. An exception is logged and the task keeps its
    schedule: one failed run must not stop the work for good.

    :param interval: seconds, or what reads them when the first run is
        due (an option of a configuration only loaded by then).
    """

    def __init__(self, name: str, interval: float | Callable[[], float],
                 func: Callable[[], object], *,
                 first_after: float | None = None) -> None:
        self.name = name
        self._interval = interval
        self._func = func
        self._first_after = first_after
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._worker: periodics.PeriodicWorker | None = None
        self._thread: threading.Thread | None = None

    @property
    def interval(self) -> float | Callable[[], float]:
        return self._interval

    def run_once(self) -> None:
        try:
            self._func()
        except Exception:
            LOG.exception('Periodic task %s failed; next run in %s s',
                          self.name, self._interval)

    def start(self) -> None:
        self._stopping.clear()
        self._thread = threading.Thread(
            target=self._run, name=f'periodic-{self.name}', daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop scheduling; wait for a run in progress to finish."""
        with self._lock:
            self._stopping.set()
            if self._worker is not None:
                self._worker.stop()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        if self._first_after and self._stopping.wait(self._first_after):
            return
        interval = self._interval
        if callable(interval):
            interval = interval()
            self._interval = interval

        @periodics.periodic(interval, run_immediately=True)
        def tick() -> None:
            self.run_once()

        with self._lock:
            if self._stopping.is_set():
                return
            # next run: interval seconds after the previous one ended
            self._worker = periodics.PeriodicWorker(
                [(tick, (), {})], schedule_strategy='last_finished')
        self._worker.start()


class Workers:
    """A bounded pool of ``size`` threads (started on first use) for work
    queued by key (an operation id): one key is queued or running at most
    once."""

    def __init__(self, size: int, name: str = 'operation') -> None:
        self.size = size
        self._name = name
        self._pool = futurist.ThreadPoolExecutor(max_workers=size)
        self._lock = threading.Lock()
        self._queued: list[str] = []
        self._running: set[str] = set()

    def submit(self, key: str, work: Callable[[], object]) -> bool:
        """Queue ``work`` under ``key``; False when ``key`` is queued or
        running already (the call is then dropped)."""
        with self._lock:
            if key in self._running or key in self._queued:
                return False
            self._queued.append(key)
        self._pool.submit(self._run, key, work)
        return True

    def waiting(self, key: str) -> str | None:
        """Why ``key`` has not started, or None when it is not queued."""
        with self._lock:
            if key not in self._queued or len(self._running) < self.size:
                return None
            ahead = self._queued.index(key)
            return (f'waiting for a free {self._name} worker: all '
                    f'{self.size} are busy ([conductor] {self._name}_workers)'
                    f'{f", {ahead} queued before it" if ahead else ""}')

    def stop(self) -> None:
        """Take no more work; what runs goes on (another process adopts
        an operation this one leaves, see ``adopt_operations``)."""
        self._pool.shutdown(wait=False)

    def _run(self, key: str, work: Callable[[], object]) -> None:
        with self._lock:
            self._queued.remove(key)
            self._running.add(key)
        try:
            work()
        except Exception:
            LOG.exception('%s %s stopped with an error', self._name, key)
        finally:
            with self._lock:
                self._running.discard(key)


class Calls:
    """A bounded pool of ``size`` threads for calls whose caller waits
    for the result (an RPC method reading other services): at most
    ``size`` of them reach the services at once, the rest queue."""

    def __init__(self, size: int, name: str = 'service-call') -> None:
        self.size = size
        self._pool = futurist.ThreadPoolExecutor(max_workers=size)
        self._name = name

    def run(self, work: Callable[[], T]) -> T:
        """``work()``'s result, or its exception raised again, run on a
        thread of the pool."""
        future: futures.Future = self._pool.submit(work)
        return future.result()

    def stop(self) -> None:
        """Take no more calls; those running finish for their callers."""
        self._pool.shutdown(wait=False)
