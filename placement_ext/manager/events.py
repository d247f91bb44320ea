"""The lease event task: start and end the leases whose time has come.

Every ``[manager] event_interval`` seconds each manager runs
:meth:`EventRunner.run_due`: it lists the due events, claims each one
(only one manager runs an event, and only one event of a lease runs at a
time; see :func:`placement_ext.objects.event.claim`) and runs it. A
failed event goes back to UNDONE and its lease to ERROR: the next run
retries it, and as every step is idempotent the retry finishes what the
failed run started. An event whose manager died stays IN_PROGRESS with
no progress; after ``[reservation] event_stale_after`` seconds another
run takes it over the same way.
"""

import dataclasses
import datetime
from collections.abc import Callable

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import models
from placement_ext.manager import lease_status
from placement_ext.manager import leases
from placement_ext.objects import event as event_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)

DONE, FAILED, SKIPPED, TAKEN_OVER = 'done', 'failed', 'skipped', 'taken over'


class _TakenOver(Exception):
    """Another manager took the event over; stop working on it."""


class _Progress:
    """Report progress on a claimed event; remember its latest state."""

    def __init__(self, database: db_api.Database, event: lease_obj.Event,
                 clock: Callable[[], datetime.datetime]) -> None:
        self._database = database
        self._clock = clock
        self.event = event

    def __call__(self) -> None:
        try:
            self.event = event_obj.touch(self._database, self.event,
                                         self._clock())
        except exception.ConcurrentUpdate:
            raise _TakenOver(self.event.id)


@dataclasses.dataclass(frozen=True)
class Outcome:
    event_id: int
    lease_id: str
    event_type: str
    result: str
    error: str | None = None


class EventRunner:
    """Claims and runs lease events.

    :param stale_after: seconds without progress after which an event in
        progress is taken over.
    """

    def __init__(self, database: db_api.Database, leases: leases.Leases,
                 stale_after: float,
                 clock: Callable[[], datetime.datetime] = models.utcnow
                 ) -> None:
        self.database = database
        self.leases = leases
        self.stale_after = datetime.timedelta(seconds=stale_after)
        self.clock = clock

    def run_due(self) -> list[Outcome]:
        """Run every due event this manager can claim, oldest first."""
        now = self.clock()
        stale_before = now - self.stale_after
        outcomes = []
        for event in event_obj.due_events(self.database, now, stale_before):
            claimed = event_obj.claim(self.database, event.id, now,
                                      stale_before)
            if claimed is not None:
                outcomes.append(self._run(claimed, now))
        return outcomes

    def end_now(self, lease: lease_obj.Lease) -> None:
        """Run the lease's end at once (its deletion), in this thread.

        :raises Conflict: another event of the lease is running.
        :raises PlacementExtError: the end failed (it is left to the
            event task, and the lease shows ERROR).
        """
        event = next(e for e in lease.events
                     if e.event_type == states.EVENT_END_LEASE)
        if event.status == states.EVENT_DONE:
            return
        now = self.clock()
        claimed = event_obj.claim(self.database, event.id, now,
                                  now - self.stale_after, early=True)
        if claimed is None:
            raise exception.Conflict(
                reason=f'lease {lease.id} is being started or ended by a '
                       f'manager; try again when it is done')
        outcome = self._run(claimed, now, reraise=True)
        if outcome.result == TAKEN_OVER:
            raise exception.Conflict(
                reason=f'lease {lease.id}: another manager took its end '
                       f'over; try again when it is done')

    def _run(self, event: lease_obj.Event, now: datetime.datetime,
             reraise: bool = False) -> Outcome:
        progress = _Progress(self.database, event, self.clock)
        try:
            lease = lease_obj.get(self.database, event.lease_id)
            result, status, res_status, free = self._handle(
                event, lease, now, progress)
            event_obj.finish(self.database, progress.event,
                             lease_status=status,
                             reservation_status=res_status, free_slots=free)
        except (_TakenOver, exception.ConcurrentUpdate) as exc:
            if isinstance(exc, exception.ConcurrentUpdate) and \
                    _still_ours(progress):
                return self._failed(progress, exc, reraise)
            LOG.warning('Event %(type)s of lease %(lease)s was taken over '
                        'by another manager; leaving it',
                        {'type': event.event_type, 'lease': event.lease_id})
            return _outcome(event, TAKEN_OVER)
        except Exception as exc:
            return self._failed(progress, exc, reraise)
        return _outcome(event, result)

    def _handle(self, event: lease_obj.Event, lease: lease_obj.Lease,
                now: datetime.datetime, progress: _Progress) -> tuple:
        """Run the event; (result, lease status, reservation status,
        free the slots)."""
        if event.event_type == states.EVENT_END_LEASE:
            self.leases.end(lease, progress)
            return (DONE, *lease_status.ENDED, True)
        ended = any(e.event_type == states.EVENT_END_LEASE
                    and e.status == states.EVENT_DONE for e in lease.events)
        if ended or lease.end_date <= now:
            LOG.info('Lease %s is over before it started; not starting it',
                     lease.id)
            return SKIPPED, lease.status, None, False
        self.leases.start(lease, progress)
        return (DONE, *lease_status.STARTED, False)

    def _failed(self, progress: _Progress, exc: Exception,
                reraise: bool) -> Outcome:
        event = progress.event
        LOG.error('Event %(type)s of lease %(lease)s failed, to be retried '
                  'by the next run: %(error)s',
                  {'type': event.event_type, 'lease': event.lease_id,
                   'error': exc}, exc_info=not isinstance(
                       exc, exception.PlacementExtError))
        try:
            event_obj.release(self.database, event)
        except exception.ConcurrentUpdate:
            pass  # taken over meanwhile: the new owner goes on
        if reraise:
            raise exc
        return _outcome(event, FAILED, str(exc))


def _still_ours(progress: _Progress) -> bool:
    """Whether a ConcurrentUpdate came from elsewhere (a host record, a
    Placement provider) while the event is still ours."""
    try:
        progress()
    except _TakenOver:
        return False
    return True


def _outcome(event: lease_obj.Event, result: str,
             error: str | None = None) -> Outcome:
    return Outcome(event.id, event.lease_id, event.event_type, result, error)
