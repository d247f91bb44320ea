"""Who drives an operation: claim it, keep the claim alive, give it up.

One context for every process that runs lifecycle operations on our
database (``placement-ext-conductor`` and Tacker's conductor with our
infra driver), so a conductor sharing the database never adopts an
operation another live process drives::

    owner = ownership.Ownership(database, host, conf.conductor)
    with owner.owned(operation_id):
        runner.run(operation_id)

:meth:`Ownership.owned` raises :class:`NotClaimed` when the claim fails
(another live process owns the operation, it is not runnable, or this
process drives it already). The claim is renewed by :meth:`heartbeat`,
either a periodic task of the caller's service or, with ``beat=True``, a
thread of the context. It is given up when the block ends normally or on
:class:`~placement_ext.exception.ConcurrentUpdate` (another owner recorded
a step first); on any other error it is kept and, no longer renewed, goes
stale, so another conductor adopts the operation once it can.
"""

import contextlib
import datetime
import threading
from collections.abc import Iterator

from placement_ext import background
from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.objects import operation as op_obj


class NotClaimed(exception.Conflict):
    msg_fmt = 'operation %(id)s is not run here: %(reason)s'


class Ownership:
    """The operations one host drives, and their claims.

    :param opts: the ``[conductor]`` options (heartbeat interval and
        takeover timeout).
    """

    def __init__(self, database: db_api.Database, host: str,
                 opts: object) -> None:
        self.database = database
        self.host = host
        self._opts = opts
        self._lock = threading.Lock()
        self._driving: set[str] = set()

    def driving(self, operation_id: str) -> bool:
        with self._lock:
            return operation_id in self._driving

    def stale_before(self) -> datetime.datetime:
        """Claims whose last heartbeat is older than this are stale."""
        return models.utcnow() - datetime.timedelta(
            seconds=self._opts.operation_takeover_timeout)

    def live(self, op: op_obj.Operation) -> bool:
        """Whether a process holds ``op``'s claim now: it has an owner
        whose last heartbeat is not stale."""
        return op.owner is not None and op.heartbeat_at is not None and \
            op.heartbeat_at >= self.stale_before()

    def heartbeat(self) -> int:
        """Renew the claims of the operations a block of ours drives now
        (one whose block ended without giving it up goes stale)."""
        with self._lock:
            driving = list(self._driving)
        return op_obj.heartbeat(self.database, self.host, driving)

    @contextlib.contextmanager
    def owned(self, operation_id: str, beat: bool = False
              ) -> Iterator[None]:
        """Own the operation for the block.

        :param beat: renew the claim from a thread of this block (for a
            process without a periodic :meth:`heartbeat`).
        :raises NotClaimed: driven here already, or not claimable.
        """
        with self._lock:
            if operation_id in self._driving:
                raise NotClaimed(id=operation_id,
                                 reason='this host drives it already')
            self._driving.add(operation_id)
        try:
            self._claim(operation_id)
            with self._beating(operation_id, beat):
                try:
                    yield
                except exception.ConcurrentUpdate:
                    # the previous owner was alive after all and recorded
                    # a step first; the generation check kept ours out
                    op_obj.release(self.database, operation_id, self.host)
                    raise
            # an unexpected error skips this: the claim then goes stale
            # and the operation is adopted once the database allows
            op_obj.release(self.database, operation_id, self.host)
        finally:
            with self._lock:
                self._driving.discard(operation_id)

    def _claim(self, operation_id: str) -> None:
        if op_obj.claim(self.database, operation_id, self.host,
                        self.stale_before()):
            return
        op = op_obj.get(self.database, operation_id)
        owner = f', driven by {op.owner}' if op.owner else ''
        raise NotClaimed(id=operation_id, reason=f'it is {op.state}{owner}')

    @contextlib.contextmanager
    def _beating(self, operation_id: str, beat: bool) -> Iterator[None]:
        if not beat:
            yield
            return
        interval = self._opts.operation_heartbeat_interval
        beats = background.PeriodicTask(f'heartbeat-{operation_id}',
                                        interval, self.heartbeat,
                                        first_after=interval)
        beats.start()
        try:
            yield
        finally:
            beats.stop()
