"""Blazar's events and leases, read for our recovery and written back.

The decisions (which event runs again, which create is failed) are our
core's (:mod:`placement_ext.manager.host_events`); this module turns
Blazar's rows into :class:`~placement_ext.manager.host_events.HostEvent`
and :class:`~placement_ext.manager.host_events.HostLease`, and what the
core decides into Blazar's statuses.
"""

import datetime
from collections.abc import Callable

from placement_ext.manager import host_events
from placement_ext.vocabulary import states

# Blazar's lease and event statuses (``blazar.status``) we read and set.
_IN_PROGRESS = 'IN_PROGRESS'
_UNDONE = 'UNDONE'
_CREATING = 'CREATING'
_ERROR = 'ERROR'
# event type -> (lease status while it runs, lease status before it)
_RESUMABLE = {'start_lease': ('STARTING', 'PENDING'),
              'end_lease': ('TERMINATING', 'ACTIVE')}


def _changed(row: dict, default: datetime.datetime) -> datetime.datetime:
    """When Blazar's row last changed (its API gives ISO strings)."""
    value = row.get('updated_at') or row.get('created_at')
    if isinstance(value, str):
        return datetime.datetime.fromisoformat(value)
    return value or default


def _all_ours(lease: dict) -> bool:
    return all(r['resource_type'] in (states.RESOURCE_TYPE_INSTANCE,
                                      states.RESOURCE_TYPE_FLAVOR)
               for r in lease.get('reservations') or ())


def _host_lease(row: dict, default: datetime.datetime
                ) -> host_events.HostLease:
    status = row['status']
    return host_events.HostLease(
        id=row['id'], changed=_changed(row, default),
        running=next((t for t, (run, _before) in _RESUMABLE.items()
                      if run == status), None),
        waiting=next((t for t, (_run, before) in _RESUMABLE.items()
                      if before == status), None),
        creating=status == _CREATING, ours=_all_ours(row),
        reservation_ids=tuple(r['id'] for r in row.get('reservations')
                              or () if 'id' in r))


class BlazarEvents:
    """Blazar's rows as a :class:`~placement_ext.manager.host_events.
    HostService`.

    :param drop_allocations: drops a reservation's Blazar allocations
        (when its create failed).
    """

    def __init__(self, blazar_db: object,
                 drop_allocations: Callable[[str], None]) -> None:
        self.blazar_db = blazar_db
        self.drop_allocations = drop_allocations

    def running_events(self, default: datetime.datetime
                       ) -> list[host_events.HostEvent]:
        return [host_events.HostEvent(e['id'], e['lease_id'],
                                      e['event_type'], _changed(e, default))
                for e in self.blazar_db.event_get_all_sorted_by_filters(
                    'time', 'asc', {'status': _IN_PROGRESS})
                if e['event_type'] in _RESUMABLE]

    def lease(self, lease_id: object, default: datetime.datetime
              ) -> host_events.HostLease | None:
        row = self.blazar_db.lease_get(lease_id)
        return None if row is None else _host_lease(row, default)

    def leases(self, default: datetime.datetime
               ) -> list[host_events.HostLease]:
        return [_host_lease(row, default)
                for row in self.blazar_db.lease_list()]

    def run_again(self, event: host_events.HostEvent) -> None:
        """Blazar runs an event only while it is UNDONE and its lease in
        a stable status: the lease goes back to the status before it."""
        self.blazar_db.lease_update(
            event.lease_id, {'status': _RESUMABLE[event.event_type][1]})
        self.blazar_db.event_update(event.id, {'status': _UNDONE})

    def fail_create(self, lease: host_events.HostLease) -> None:
        """ERROR: deletable, holding nothing."""
        for res_id in lease.reservation_ids:
            self.drop_allocations(res_id)
        self.blazar_db.lease_update(lease.id, {'status': _ERROR})

    def touch(self, lease: object, event_type: str
              ) -> Callable[[datetime.datetime], None] | None:
        """What moves the running Blazar event of that type of the Blazar
        lease, or None when there is none (run outside Blazar's event
        loop)."""
        events = self.blazar_db.event_get_all_sorted_by_filters(
            'time', 'asc', {'lease_id': lease, 'event_type': event_type,
                            'status': _IN_PROGRESS})
        if not events:
            return None
        event_id = events[0]['id']
        return lambda now: self.blazar_db.event_update(
            event_id, {'updated_at': now})
