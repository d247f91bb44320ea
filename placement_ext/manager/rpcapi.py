"""Client side of the reservation manager RPC API (``[manager] topic``).

Reservation hosts and leases are added here as one-line methods. API
version history (bump the minor version per added method; guard it
with ``can_send_version``):

* 1.0 - ping, echo
"""

from placement_ext import rpc


class ManagerAPI(rpc.ServiceAPI):
    """Build one per process: the RPC client is built once, in __init__."""

    SERVICE = 'manager'
    VERSION = '1.0'
