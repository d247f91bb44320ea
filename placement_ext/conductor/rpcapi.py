"""Client side of the conductor RPC API (``[conductor] topic``).

Lifecycle operations (instantiate, heal, scale out) are added here as
one-line methods casting only IDs. API version history (bump the minor
version per added method; guard it with ``can_send_version``):

* 1.0 - ping, echo
"""

from placement_ext import rpc


class ConductorAPI(rpc.ServiceAPI):
    """Build one per process: the RPC client is built once, in __init__."""

    SERVICE = 'conductor'
    VERSION = '1.0'
