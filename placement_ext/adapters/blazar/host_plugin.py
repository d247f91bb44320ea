"""placement_ext's ``physical:host`` plugin for blazar-manager.

Entry point ``placement_ext.host.plugin`` (namespace
``blazar.resource.plugins``): put it in place of ``physical.host.plugin``
in blazar.conf's ``[manager] plugins``. It is Blazar's own
``PhysicalHostPlugin`` (host reservations, the free pool, extra
capabilities, the host monitor) except for the ``blazar_<host>``
reservation provider, which our code makes and retires
(:mod:`placement_ext.adapters.blazar.providers`): ``host create`` reuses
a provider that exists, ``host delete`` empties it rather than deleting
it (nova-compute caches it; see
``ReservationProviders.empty_reservation_provider``); and the end of a
host lease, which deletes only the lease's project's servers on its
hosts and keeps (logs, and marks the lease ``degraded`` for) any other
(:mod:`placement_ext.adapters.blazar.host_end`).

This module imports blazar and runs only inside blazar-manager.
"""

import threading

from blazar.db import api as blazar_db
from blazar.manager import exceptions as manager_exc
from blazar.plugins.oshosts import host_plugin
from blazar.utils.openstack import nova as blazar_nova

from placement_ext import exception
from placement_ext.adapters.blazar import host_end
from placement_ext.adapters.blazar import plugin as instance_plugin
from placement_ext.adapters.blazar import providers
from placement_ext.db import api as db_api
from placement_ext.drivers.placement import driver as placement_driver
from placement_ext.drivers.placement import reservation
from placement_ext.objects import host as host_obj


class HostPlugin(host_plugin.PhysicalHostPlugin):
    """Blazar's ``physical:host`` plugin over our reservation providers."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._providers: reservation.ReservationProviders | None = None
        self._database: db_api.Database | None = None
        self.placement_client = providers.ReservationProviderClient(
            self.placement_client, self._reservation_providers)

    def get_plugin_opts(self) -> list:
        return [*super().get_plugin_opts(), *instance_plugin.plugin_opts()]

    def _reservation_providers(self) -> reservation.ReservationProviders:
        with self._lock:
            if self._providers is None:
                self._providers = placement_driver.PlacementDriver.from_conf(
                    instance_plugin.placement_ext_conf(self.resource_type)
                ).reservations
            return self._providers

    def create_computehost(self, host_values: dict) -> dict:
        with instance_plugin.blazar_errors('host create'):
            return super().create_computehost(host_values)

    def delete_computehost(self, host_id: object) -> None:
        with instance_plugin.blazar_errors('host delete'):
            return super().delete_computehost(host_id)

    def on_end(self, resource_id: str) -> None:
        """Upstream's end, but another project's server is kept."""
        ended = host_end.HostLeaseEnd(
            blazar_db, blazar_nova.ReservationPool(), self.nova,
            aggregate_missing=manager_exc.AggregateNotFound,
            timed_out=manager_exc.ServerDeletionTimeout).end(resource_id)
        self._forget_usages(ended.hosts)

    def _forget_usages(self, hosts: tuple[str, ...]) -> None:
        """Servers were deleted there: Placement's usages fell without a
        provider generation change, so the instance plugin's kept view
        of these hosts is stale; it reads them again."""
        with self._lock:
            if self._database is None:
                self._database = db_api.Database(
                    instance_plugin.placement_ext_conf(self.resource_type))
        ids = []
        for name in hosts:
            try:
                ids.append(host_obj.find(self._database, name).id)
            except exception.NotFound:
                pass   # not one of our hosts yet
        host_obj.forget_usages(self._database, ids)
