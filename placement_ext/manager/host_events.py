"""Lease events that a host service (Blazar) runs itself.

Blazar runs a lease's start and end in its own event loop, which calls
our start and end; a blazar-manager killed meanwhile leaves the event
running for ever. Our start and end are idempotent, so the next run
finishes the job: the decisions of when that is safe live here, and
the adapter only reads the host service's rows into :class:`HostEvent`
and :class:`HostLease` and writes back what :func:`recover` decides
(:class:`HostService`).

- An event is run again only after ``stale_after`` without progress:
  with several managers, another one may be running it, and each of its
  steps reports progress (:func:`throttled`).
- Only for leases whose reservations are all ours (other plugins may not
  be idempotent), and whose status shows the event running or not yet
  started (a batch's events are all marked running before the first
  runs: a killed manager's later ones never changed their lease).
- A lease left half-created (no event, the caller answered with an
  error) gives our part back once stale, and is failed.
"""

import dataclasses
import datetime
from collections.abc import Callable
from typing import Protocol

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.objects import lease as lease_obj

LOG = logging.getLogger(__name__)

# a running start or end reports progress to the host's event row at
# most this often
TOUCH_EVERY = datetime.timedelta(seconds=5)


@dataclasses.dataclass(frozen=True)
class HostEvent:
    """A host service's start or end event left running.

    :param event_type: ``start_lease`` or ``end_lease``.
    :param changed: when it last showed progress.
    """

    id: object
    lease_id: object
    event_type: str
    changed: datetime.datetime


@dataclasses.dataclass(frozen=True)
class HostLease:
    """A host service's lease as the recovery reads it.

    :param running: the event type its status shows running, if any.
    :param waiting: the event type its status waits for, if any.
    :param creating: its create has not finished.
    :param ours: every reservation of it is ours.
    :param reservation_ids: its reservations' ids (ours' names).
    """

    id: object
    changed: datetime.datetime
    running: str | None = None
    waiting: str | None = None
    creating: bool = False
    ours: bool = True
    reservation_ids: tuple[str, ...] = ()


class HostService(Protocol):
    """What the recovery reads from and writes to a host service."""

    def running_events(self, default: datetime.datetime
                       ) -> list[HostEvent]: ...

    def lease(self, lease_id: object,
              default: datetime.datetime) -> HostLease | None: ...

    def leases(self, default: datetime.datetime) -> list[HostLease]: ...

    def run_again(self, event: HostEvent) -> None: ...

    def fail_create(self, lease: HostLease) -> None: ...


def recover(database: db_api.Database, host: HostService,
            give_back: Callable[[lease_obj.Lease], object],
            stale: datetime.datetime) -> list:
    """Put back the host's interrupted events, fail its interrupted
    creates; the host's leases concerned.

    :param give_back: ends and removes one of our leases (its teardown
        and rows: :meth:`~placement_ext.manager.reservations.
        Reservations.end_and_remove`).
    :param stale: events and creates without progress since are taken
        as interrupted.
    """
    resumed = []
    for event in host.running_events(stale):
        if event.changed > stale:
            continue
        lease = host.lease(event.lease_id, stale)
        if lease is None or not lease.ours or event.event_type not in (
                lease.running, lease.waiting):
            continue
        host.run_again(event)
        LOG.warning('Lease %(lease)s: its %(type)s was interrupted; it '
                    'runs again', {'lease': lease.id,
                                   'type': event.event_type})
        resumed.append(lease.id)
    return resumed + _fail_creates(database, host, give_back, stale)


def _fail_creates(database: db_api.Database, host: HostService,
                  give_back: Callable[[lease_obj.Lease], object],
                  stale: datetime.datetime) -> list:
    """Our part of a create left stale is given back, and the host's
    lease failed (deletable; its reason logged)."""
    failed = []
    for lease in host.leases(stale):
        if not lease.creating or lease.changed > stale or not lease.ours:
            continue
        for res_id in lease.reservation_ids:
            try:
                ours = lease_obj.find(database, res_id)
            except exception.NotFound:
                continue        # killed before our part was made
            give_back(ours)
        host.fail_create(lease)
        LOG.warning('Lease %s: its create was interrupted (its manager '
                    'stopped); it is ERROR and holds nothing', lease.id)
        failed.append(lease.id)
    return failed


def throttled(touch: Callable[[datetime.datetime], None],
              clock: Callable[[], datetime.datetime]) -> Callable[[], None]:
    """A progress callback that moves the host's event row (by
    ``touch(now)``) at most every :data:`TOUCH_EVERY`, so that no
    manager takes a live event over."""
    touched = [clock()]

    def progress() -> None:
        now = clock()
        if now - touched[0] >= TOUCH_EVERY:
            touch(now)
            touched[0] = now
    return progress
