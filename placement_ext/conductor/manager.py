"""The conductor's RPC endpoint: one method per RPC method.

Lifecycle operations (instantiate, heal, scale out with zone
reselection) are added here, each taking only IDs and validated with a
versioned schema; the diagnostic ``ping`` and ``echo`` come from
:class:`placement_ext.rpc.Endpoint`.
"""

import oslo_messaging

from placement_ext import rpc


class ConductorManager(rpc.Endpoint):
    """Endpoint of the conductor, API version 1.0."""

    SERVICE = 'conductor'
    target = oslo_messaging.Target(version='1.0')
