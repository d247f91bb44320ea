"""placement_ext's ``flavor:instance`` plugin for blazar-manager.

Entry point ``placement_ext.flavor.plugin`` (namespace
``blazar.resource.plugins``): put it in place of upstream's preview
``flavor.instance.plugin`` in blazar.conf's ``[manager] plugins``. A
flavor reservation (``flavor_id``, ``amount``, optional ``affinity``) is
translated into our instance reservation request
(:mod:`~placement_ext.adapters.blazar.flavor`) and served by the same
workflows as ``virtual:instance``: the same slots, providers, private
flavor and resource class, no overbooking between the two types and
host leases. Blazar's ``instance_reservations`` row keeps the source
flavor in ``resource_properties``, as upstream's does.

This module imports blazar and runs only inside blazar-manager.
"""

from blazar.utils.openstack import nova as blazar_nova
from oslo_config import cfg

from placement_ext import exception
from placement_ext.adapters.blazar import flavor
from placement_ext.adapters.blazar import plugin

CONF = cfg.CONF
INSTANCE_ENTRY_POINT = 'placement_ext.instance.plugin'


def source_flavor(flavor_id: str) -> dict:
    """The flavor as the requesting user sees it (Blazar's current
    context, as upstream reads it), with its extra specs.

    :raises InvalidInput: the user sees no such flavor, naming the field.
    """
    client = blazar_nova.NovaClientWrapper().nova.nova
    try:
        found = client.flavors.get(flavor_id)
    except Exception as exc:   # noqa: BLE001 - novaclient's, by code
        if getattr(exc, 'code', None) != 404:
            raise
        raise exception.InvalidInput(
            field=flavor.FLAVOR_FIELD,
            reason=f'no flavor {flavor_id!r} visible to the project') \
            from None
    details = found.to_dict()
    details['extra_specs'] = found.get_keys()
    return details


class FlavorInstancePlugin(plugin.InstancePlugin):
    """``flavor:instance`` reservations by placement_ext."""

    resource_type = flavor.RESOURCE_TYPE
    title = 'placement_ext flavor-based instance reservations'
    description = ('Instances of an existing flavor through Placement: '
                   'no overbooking with virtual:instance and host leases.')

    @property
    def leads(self) -> bool:
        """Our instance plugin heals, adopts and recovers every
        reservation of ours when it is loaded too; alone, this one does.
        """
        manager = getattr(CONF, 'manager', None)
        return INSTANCE_ENTRY_POINT not in (getattr(manager, 'plugins', None)
                                            or ())

    def _instance_values(self, values: dict) -> dict:
        with plugin.blazar_errors('flavor reservation'):
            wanted = flavor.required(values, flavor.FLAVOR_FIELD)
            return flavor.instance_values(values, source_flavor(wanted))

    def allocation_candidates(self, values: dict) -> list:
        if values.get('id'):          # an update: the reservation exists
            return super().allocation_candidates(values)
        return super().allocation_candidates(self._instance_values(values))

    def reserve_resource(self, reservation_id: str, values: dict) -> str:
        return super().reserve_resource(reservation_id,
                                        self._instance_values(values))
