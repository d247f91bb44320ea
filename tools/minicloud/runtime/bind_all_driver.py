"""An ML2 mechanism driver that binds every port, for the fake hosts.

The embedded cloud has no network agent, so ML2's own drivers bind no
port and Nova fails a server with ports (``binding_failed``). Nova's fake
virt driver plugs nothing, so any binding will do: this one binds the
first segment offered, VIF type ``other``. Loaded by name
(``[ml2] mechanism_drivers = minicloud_bind_all``) through the entry point
in ``minicloud_runtime-0.dist-info`` beside it (this folder is on the
services' PYTHONPATH). The tacker addon's az-retry environment turns it
on (``addon_tacker.py``).
"""

from neutron_lib.api.definitions import portbindings
from neutron_lib.plugins.ml2 import api


class BindAllDriver(api.MechanismDriver):

    def initialize(self) -> None:
        pass

    @property
    def connectivity(self) -> str:
        return portbindings.CONNECTIVITY_L2

    def bind_port(self, context: api.PortContext) -> None:
        for segment in context.segments_to_bind:
            context.set_binding(segment[api.ID], portbindings.VIF_TYPE_OTHER,
                                {portbindings.CAP_PORT_FILTER: False})
            return
