"""Every status a lease and its reservations move to.

The statuses of our leases and reservations are written through this
module only: the event runner (:mod:`placement_ext.manager.events`) passes
:data:`STARTED` and :data:`ENDED` to the event it finishes, a lease whose
provisioning failed and could not be removed is :func:`mark_failed`, and
a host service that ran a lease's start itself (Blazar's event loop)
asks the :class:`~placement_ext.manager.reservations.Reservations`
facade, which calls :func:`mark_started`; a lease adopted from the host
service's own plugin is written with its :data:`ADOPTED` statuses
(:mod:`~placement_ext.manager.lease_adopt`). Adapters never write a
status.
"""

from placement_ext.db import api as db_api
from placement_ext.objects import lease as lease_obj
from placement_ext.vocabulary import states

# A started lease and its reservations: the event task sets these with
# the start event's end, a host service (Blazar) when its own start ran.
STARTED = (states.LEASE_ACTIVE, states.RESERVATION_ACTIVE)
# An ended lease: its reservations' slots are given back.
ENDED = (states.LEASE_TERMINATED, states.RESERVATION_DELETED)
# A lease a step failed on (it is retried, or removed by hand).
FAILED = (states.LEASE_ERROR, states.RESERVATION_ERROR)
# A lease adopted from a host service's own plugin, by the status of its
# reservation there (the names are Blazar's, as ours).
ADOPTED = {states.RESERVATION_PENDING: (states.LEASE_PENDING,
                                        states.RESERVATION_PENDING),
           states.RESERVATION_ACTIVE: STARTED,
           states.RESERVATION_ERROR: FAILED}


def mark_started(database: db_api.Database, lease_id: str) -> None:
    """The lease and its reservations are ACTIVE (its start ran)."""
    lease_obj.set_status(database, lease_id, *STARTED)


def mark_failed(database: db_api.Database, lease_id: str) -> None:
    """The lease and its reservations are ERROR."""
    lease_obj.set_status(database, lease_id, *FAILED)


def remove(database: db_api.Database, lease_id: str) -> None:
    """The lease, its reservations, slots and events are gone (what it
    had in Nova and Placement was torn down first)."""
    lease_obj.delete(database, lease_id)
