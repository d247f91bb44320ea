"""Provisioning of a lease's reservations: what exists while it lives.

Each reservation has a resource class ``CUSTOM_RESERVATION_<ID>`` and a
private flavor (extra spec ``resources:CUSTOM_RESERVATION_<ID>=1``, the
owner's project in its access list), made at create and made again at
each update and start if missing. Each reservation with an affinity
policy (True or False) has a Nova server group ``reservation:<id>``
(policy affinity / anti-affinity) in the lease's project, as Blazar's
plugin makes it: made with the flavor, checked at each update and start
(a group gone, of another policy, or whose members sit on hosts the
reservation left, is replaced), deleted at the end
(:mod:`placement_ext.manager.lease_teardown`). A started reservation's
slots are inventories of its class on its hosts' reservation providers.

Every step is idempotent, so a run that stopped half-way is finished by
the next one; ``progress()`` is called after each step (it proves the
event is still ours, and raises if another manager took it over).
"""

from collections.abc import Callable

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.drivers import nova as nova_driver
from placement_ext.drivers import protocols
from placement_ext.drivers.placement import reservation_reads
from placement_ext.manager import hosts
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.vocabulary import reservation_names as names

LOG = logging.getLogger(__name__)

Progress = Callable[[], None]
# The Nova driver that makes a lease's server groups in its project (a
# driver holding a token of that project), or None when none is at hand.
GroupNova = Callable[[lease_obj.Lease], protocols.ReservationCompute | None]


def no_progress() -> None:
    pass


class Provisioning:
    """Class, flavor, server group and inventories of reservations.

    :param group_nova: the Nova driver that makes a lease's server
        groups (default: ``nova``, whose groups are in the service's
        project).
    """

    def __init__(self, database: db_api.Database,
                 nova: protocols.ReservationCompute,
                 placement: reservation_reads.ReservationPlacement,
                 hosts: hosts.Hosts,
                 group_nova: GroupNova | None = None) -> None:
        self.database = database
        self.nova = nova
        self.group_nova = group_nova or (lambda _lease: nova)
        self.placement = placement
        self.hosts = hosts

    def provision(self, lease: lease_obj.Lease,
                   res: lease_obj.Reservation) -> None:
        """Class, flavor with its extra specs, flavor access, server
        group: idempotent."""
        self.placement.ensure_resource_class(res.resource_class)
        self.nova.ensure_private_flavor(
            res.flavor_id, names.flavor_name_for(res.id), vcpus=res.vcpus,
            memory_mb=res.memory_mb, disk_gb=res.disk_gb,
            extra_specs=names.flavor_extra_specs(res.id),
            project_id=lease.project_id)
        self.ensure_server_group(lease, res)


    def ensure_server_group(self, lease: lease_obj.Lease,
                            res: lease_obj.Reservation) -> str | None:
        """The reservation's valid server group (made or replaced if
        needed, and recorded), or None for a reservation without an
        affinity policy (a recorded group is then deleted)."""
        policy = names.server_group_policy(res.affinity)
        old = self.nova.server_group(res.server_group_id) \
            if res.server_group_id else None
        if old is not None and old.policy == policy and \
                self._members_fit(old, res):
            return old.id
        new = None
        maker = self.group_nova(lease) if policy is not None else None
        if policy is not None and maker is None:
            LOG.warning('Reservation %s: no token of project %s at hand; '
                        'its server group is made or replaced at its next '
                        'start, update or manager start', res.id,
                        lease.project_id)
            return res.server_group_id
        if maker is not None:
            new = maker.ensure_server_group(
                names.server_group_name_for(res.id), policy,
                exclude=[old.id] if old else []).id
        if new != res.server_group_id:
            lease_obj.set_server_group(self.database, res.id, new)
            LOG.info('Reservation %(res)s: server group %(new)s (was '
                     '%(old)s)', {'res': res.id, 'new': new,
                                  'old': res.server_group_id})
        if old is not None and old.id != new:
            self.nova.delete_server_group(old.id)
        return new


    def _members_fit(self, group: nova_driver.ServerGroup,
                     res: lease_obj.Reservation) -> bool:
        """An affinity group whose members run on a host the reservation
        no longer holds (moved by healing) would pin new servers there."""
        if group.policy != 'affinity' or not group.members:
            return True
        return all(server.host in (None, *res.slots_by_host)
                   for server in self.nova.servers_by_id(group.members))


    def start(self, lease: lease_obj.Lease,
              progress: Progress = no_progress) -> None:
        """Put each reservation's inventory on its hosts' providers."""
        hosts = hosts_of(self.database, lease)
        for res in lease.reservations:
            self.provision(lease, res)
            progress()
            for host_id, hostname, slots in res.allocations:
                host = hosts.get(host_id)
                if host is None:
                    raise exception.NotFound(kind='host', id=hostname)
                self.put_inventory(host, res.resource_class, slots)
                progress()
        LOG.info('Lease %s started', lease.id)


    def put_inventory(self, host: host_obj.Host, resource_class: str,
                       slots: int) -> None:
        provider = self.hosts.reservation_provider(host)
        try:
            self.placement.set_inventory(provider, resource_class, slots)
        except exception.NotFound:
            # the provider was deleted behind our back: make a new one
            provider = self.hosts.reservation_provider(host, refresh=True)
            self.placement.set_inventory(provider, resource_class, slots)


def hosts_of(database: db_api.Database,
              lease: lease_obj.Lease) -> dict[int, host_obj.Host]:
    """The hosts the lease holds slots on (one statement)."""
    ids = [host_id for res in lease.reservations
           for host_id, _name, _slots in res.allocations]
    return {h.id: h for h in host_obj.get_many(database, ids)}


