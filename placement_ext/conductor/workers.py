"""A bounded pool of threads that run operations, apart from RPC.

Lifecycle operations last minutes (stacks built, zones retried); run on
the RPC server's executor threads they would starve every other call of
the service. ``run_operation`` and the adoption task hand them to this
pool instead and return at once; with every worker busy a new operation
waits, unclaimed and still in its state, and :meth:`Workers.waiting`
says so until a worker takes it.
"""

import queue
import threading
from collections.abc import Callable

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class Workers:
    """``size`` daemon threads (started on first use) and their queue;
    one key (an operation id) is queued or running at most once."""

    def __init__(self, size: int, name: str = 'operation') -> None:
        self.size = size
        self._name = name
        self._queue: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._queued: list[str] = []
        self._running: set[str] = set()
        self._threads: list[threading.Thread] = []

    def submit(self, key: str, work: Callable[[], object]) -> bool:
        """Queue ``work`` under ``key``; False when ``key`` is queued or
        running already (the call is then dropped)."""
        with self._lock:
            if key in self._running or key in self._queued:
                return False
            self._queued.append(key)
            if len(self._threads) < self.size:
                self._start_thread()
        self._queue.put((key, work))
        return True

    def waiting(self, key: str) -> str | None:
        """Why ``key`` has not started, or None when it is not queued."""
        with self._lock:
            if key not in self._queued or len(self._running) < self.size:
                return None
            ahead = self._queued.index(key)
            return (f'waiting for a free operation worker: all '
                    f'{self.size} are busy ([conductor] operation_workers)'
                    f'{f", {ahead} queued before it" if ahead else ""}')

    def _start_thread(self) -> None:
        thread = threading.Thread(
            target=self._serve, daemon=True,
            name=f'{self._name}-worker-{len(self._threads)}')
        self._threads.append(thread)
        thread.start()

    def _serve(self) -> None:
        while True:
            key, work = self._queue.get()
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

