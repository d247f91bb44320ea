"""The reservation manager's RPC endpoint: one method per RPC method.

Reservation hosts and leases are added here, each validated with a
versioned schema; the diagnostic ``ping`` and ``echo`` come from
:class:`placement_ext.rpc.Endpoint`.
"""

import oslo_messaging

from placement_ext import rpc


class ReservationManager(rpc.Endpoint):
    """Endpoint of the reservation manager, API version 1.0."""

    SERVICE = 'manager'
    target = oslo_messaging.Target(version='1.0')
