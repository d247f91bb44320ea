"""Enrol and retire reservable hosts (blazar ``physical:host`` plugin).

Create: read the hypervisor from Nova, create the reservation provider
``blazar_<hypervisor_hostname>`` under the compute node provider, add the
host to the free pool aggregate, record it. Every outside step is
idempotent, so a create that failed half-way can simply be repeated (and
``reconcile`` removes what a create that was never repeated left).

Delete: first stop offering the host to new leases (refused while
reservations hold slots on it), then empty the reservation provider
(Placement refuses while reserved instances use it), leave the free
pool, delete the record. The empty provider stays: nova-compute caches
it, and fails every build on the host once a cached provider is gone
(see ``ReservationProviders.empty_reservation_provider``); enrolling the
host again reuses it.
"""

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.drivers import protocols
from placement_ext.drivers.placement import reservation_reads
from placement_ext.nova_filters import rules
from placement_ext.objects import host as host_obj

LOG = logging.getLogger(__name__)

FREEPOOL_METADATA = {rules.FREEPOOL_METADATA_KEY:
                     rules.FREEPOOL_METADATA_VALUE}


class Hosts:
    """Host workflows over the database, Nova and Placement.

    :param freepool: name of the Nova aggregate of reservable hosts.
    """

    def __init__(self, database: db_api.Database,
                 nova: protocols.ReservationCompute,
                 placement: reservation_reads.ReservationPlacement,
                 freepool: str) -> None:
        self.database = database
        self.nova = nova
        self.placement = placement
        self.freepool = freepool
        self._freepool_uuid: str | None = None

    def create(self, name: str) -> host_obj.Host:
        """Enrol the compute node ``name`` (hypervisor or service host).

        :raises NotFound: Nova or Placement does not know the node.
        :raises Conflict: it is enrolled already.
        """
        hypervisor = self.nova.hypervisor(name)
        try:
            existing = host_obj.find(self.database,
                                     hypervisor.hypervisor_hostname)
        except exception.NotFound:
            existing = None
        if existing is not None:
            raise exception.Conflict(
                reason=f'host {existing.hypervisor_hostname} is already '
                       f'enrolled (id {existing.id})')
        zone = self.nova.compute_zone(hypervisor.service_host)
        provider = self.placement.ensure_reservation_provider(
            hypervisor.hypervisor_hostname)
        self.join_free_pool(hypervisor.service_host)
        host = host_obj.create(
            self.database, hypervisor_hostname=hypervisor.hypervisor_hostname,
            service_name=hypervisor.service_host, availability_zone=zone,
            vcpus=hypervisor.vcpus, memory_mb=hypervisor.memory_mb,
            local_gb=hypervisor.local_gb,
            compute_provider_uuid=provider.parent_provider_uuid,
            reservation_provider_uuid=provider.uuid)
        LOG.info('Host %(name)s enrolled (id %(id)s, zone %(zone)s, '
                 'reservation provider %(rp)s)',
                 {'name': host.hypervisor_hostname, 'id': host.id,
                  'zone': zone, 'rp': provider.uuid})
        return host

    def delete(self, ref: str) -> None:
        """Retire and delete a host.

        :raises Conflict: reservations hold slots on it, or reserved
            instances still use its reservation provider.
        """
        host = host_obj.find(self.database, ref)
        if host.reservable:
            host = host_obj.retire(self.database, host)
        self.placement.empty_reservation_provider(host.hypervisor_hostname)
        self.nova.remove_host_from_aggregate(self.freepool,
                                             host.service_name)
        host_obj.delete(self.database, host)
        LOG.info('Host %(name)s (id %(id)s) deleted',
                 {'name': host.hypervisor_hostname, 'id': host.id})

    def join_free_pool(self, service_host: str) -> None:
        aggregate = self.nova.ensure_aggregate(self.freepool,
                                               FREEPOOL_METADATA)
        self._freepool_uuid = getattr(aggregate, 'uuid', None)
        self.nova.add_host_to_aggregate(aggregate, service_host)

    def freepool_uuid(self) -> str | None:
        """UUID of the free pool aggregate (Nova mirrors its members into
        the Placement aggregate of that UUID); asked once, then kept."""
        if self._freepool_uuid is None:
            aggregate = self.nova.ensure_aggregate(self.freepool,
                                                   FREEPOOL_METADATA)
            self._freepool_uuid = getattr(aggregate, 'uuid', None)
        return self._freepool_uuid

    def forget_freepool_uuid(self) -> None:
        """Ask Nova again next time (the aggregate may have been made
        again under a new UUID)."""
        self._freepool_uuid = None

    def reservation_provider(self, host: host_obj.Host,
                             refresh: bool = False) -> str:
        """UUID of the host's reservation provider, created if missing.

        Hosts enrolled before they had one get it on first use (blazar
        spec ``placement-api``); ``refresh`` re-checks a recorded one
        that Placement no longer has.
        """
        if host.reservation_provider_uuid and not refresh:
            return host.reservation_provider_uuid
        provider = self.placement.ensure_reservation_provider(
            host.hypervisor_hostname)
        if provider.uuid != host.reservation_provider_uuid:
            LOG.info('Host %(name)s: reservation provider %(rp)s recorded',
                     {'name': host.hypervisor_hostname, 'rp': provider.uuid})
            host_obj.set_reservation_provider(self.database, host,
                                              provider.uuid)
        return provider.uuid
