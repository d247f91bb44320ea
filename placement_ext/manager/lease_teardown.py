"""Teardown of a lease: its servers, inventories, class, flavor, group.

Run at the lease's end (:mod:`placement_ext.manager.events`), at its
deletion and when its create fails. The servers the lease admitted (its
project's, of its flavor) are deleted; others are kept and logged, and
where they hold a slot nothing of it is deleted. Every step is
idempotent; ``progress()`` is called after each.
"""

import dataclasses

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.decision import lease_servers
from placement_ext.drivers import protocols
from placement_ext.drivers.placement import reservation_reads
from placement_ext.manager import lease_provision
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.vocabulary import reservation_names as names

LOG = logging.getLogger(__name__)

Progress = lease_provision.Progress


@dataclasses.dataclass(frozen=True)
class Timeouts:
    server_delete: float = 600.0
    server_poll: float = 2.0


class Teardown:
    """Deletes what a lease made, and the servers it admitted."""

    def __init__(self, database: db_api.Database,
                 nova: protocols.ReservationCompute,
                 placement: reservation_reads.ReservationPlacement,
                 timeouts: Timeouts = Timeouts()) -> None:
        self.database = database
        self.nova = nova
        self.placement = placement
        self.timeouts = timeouts

    def run(self, lease: lease_obj.Lease,
                  progress: Progress) -> list[str]:
        hosts = lease_provision.hosts_of(self.database, lease)
        kept = []
        for res in lease.reservations:
            # no new server may take the slots while we clear them
            self.nova.revoke_flavor_access(res.flavor_id, lease.project_id)
            kept += self._delete_admitted(
                lease, res, self.nova.servers_with_flavor(res.flavor_id),
                progress)
            for host_id, _name, _slots in res.allocations:
                host = hosts.get(host_id)
                if host is not None:
                    self.drop_inventory(host, res.resource_class, progress,
                                         lease)
                progress()
            self._drop_class(res.resource_class, progress, lease)
            self.nova.delete_flavor(res.flavor_id)
            if res.server_group_id:
                self.nova.delete_server_group(res.server_group_id)
            progress()
        # deleting servers frees usage without bumping the providers'
        # generations: read these hosts again at the next lease create
        host_obj.forget_usages(self.database, list(hosts))
        return kept


    def _delete_admitted(self, lease: lease_obj.Lease,
                         res: lease_obj.Reservation,
                         servers: list[lease_servers.Server],
                         progress: Progress) -> list[str]:
        """Delete the servers the lease admitted; keep (and log) the
        others. :returns: the kept ones."""
        verdict = lease_servers.admitted(servers, lease.project_id,
                                         names.flavor_name_for(res.id))
        if verdict.keep:
            LOG.warning('Lease %(lease)s keeps servers it did not admit: '
                        '%(kept)s', {'lease': lease.id,
                                     'kept': lease_servers.describe(verdict)})
        self._delete_servers([s.id for s in verdict.delete], progress)
        return verdict.kept_ids


    def _drop_class(self, resource_class: str, progress: Progress,
                    lease: lease_obj.Lease | None = None) -> None:
        try:
            self.placement.delete_resource_class(resource_class)
        except exception.ConcurrentUpdate:
            raise
        except exception.Conflict:
            # an inventory outside the lease's hosts (a host re-enrolled,
            # a manual change): look through every reservation provider
            for provider in self.placement.reservation_providers():
                _gen, inventories = self.placement.inventories(provider.uuid)
                if resource_class in inventories:
                    self._drop_inventory_on(provider.uuid, provider.name,
                                            resource_class, progress, lease)
            self.placement.delete_resource_class(resource_class)


    def drop_inventory(self, host: host_obj.Host, resource_class: str,
                        progress: Progress,
                        lease: lease_obj.Lease | None = None) -> None:
        provider = host.reservation_provider_uuid
        if provider is None:
            found = self.placement.reservation_provider(
                host.hypervisor_hostname)
            if found is None:
                return
            provider = found.uuid
        self._drop_inventory_on(provider, host.hypervisor_hostname,
                                resource_class, progress, lease)


    def _drop_inventory_on(self, provider: str, where: str,
                           resource_class: str, progress: Progress,
                           lease: lease_obj.Lease | None = None) -> None:
        try:
            self.placement.delete_inventory(provider, resource_class)
        except exception.ConcurrentUpdate:
            raise
        except exception.Conflict:
            # in use: servers Nova did not list by flavor (the flavor was
            # deleted, or they were booted otherwise) still hold slots
            consumers = self.placement.consumers(provider, resource_class)
            LOG.warning('Reservation class %(rc)s on %(where)s is still '
                        'used by %(consumers)s; deleting them',
                        {'rc': resource_class, 'where': where,
                         'consumers': consumers})
            self._delete_consumers(consumers, resource_class, progress,
                                   lease)
            self.placement.delete_inventory(provider, resource_class)


    def _delete_consumers(self, consumers: list[str], resource_class: str,
                          progress: Progress,
                          lease: lease_obj.Lease | None) -> None:
        """Delete the servers holding the class, if the lease admitted
        them all (no lease: a class left by a lease removed already)."""
        if lease is None:
            self._delete_servers(consumers, progress)
            return
        res_id = names.reservation_for_resource_class(resource_class)
        verdict = lease_servers.admitted(
            self.nova.servers_by_id(consumers), lease.project_id,
            names.flavor_name_for(res_id) if res_id else None)
        if verdict.keep:
            raise exception.Conflict(
                reason=f'lease {lease.id}: servers it did not admit hold '
                       f'its slots and are kept: '
                       f'{lease_servers.describe(verdict)}; remove them, '
                       f'then end or delete the lease again')
        self._delete_servers([s.id for s in verdict.delete], progress)


    def _delete_servers(self, server_ids: list[str],
                        progress: Progress) -> None:
        if server_ids:
            self.nova.delete_servers(
                server_ids, timeout=self.timeouts.server_delete,
                interval=self.timeouts.server_poll, progress=progress)


