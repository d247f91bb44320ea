"""Nova: availability zones, aggregates, hypervisors, flavors, servers.

Reports what Nova says. Admin-only calls degrade with a stated reason
instead of hiding the caller's original error (Tacker's get_zone raised a
403 over Heat's failure text).

Longer than 400 lines on purpose: one client of the compute API, whose
zone, aggregate, flavor and server calls share one error translation and
the request counting of the reservation methods; split by resource, each
part would repeat both.
"""

import collections
import dataclasses
import re
import time
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping

from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
from novaclient import client as nova_client
from novaclient import exceptions as nova_exc
from oslo_log import log as logging

from placement_ext import exception
from placement_ext import polling
from placement_ext.decision import lease_servers
from placement_ext.decision import node_labels
from placement_ext.drivers import keystone
from placement_ext.vocabulary import host_names

LOG = logging.getLogger(__name__)

# 2.53: service and hypervisor ids are UUIDs; 2.55: flavor description.
API_VERSION = '2.60'
INTERNAL_ZONE = 'internal'


@dataclasses.dataclass(frozen=True)
class ZoneListing:
    """Compute zones that can take new servers, and how we know."""

    zones: tuple[str, ...]
    hosts: dict[str, tuple[str, ...]]
    detailed: bool
    note: str = ''


@dataclasses.dataclass(frozen=True)
class Hypervisor:
    """A compute node as Nova reports it (API 2.53-2.87 detail)."""

    id: str
    hypervisor_hostname: str
    service_host: str
    vcpus: int
    memory_mb: int
    local_gb: int
    state: str
    status: str


@dataclasses.dataclass(frozen=True)
class ServerGroup:
    id: str
    name: str
    policy: str
    members: tuple[str, ...]


def delete_and_wait(server_ids: Iterable[str],
                    delete: Callable[[str], None],
                    exists: Callable[[str], bool], *, timeout: float,
                    interval: float,
                    sleep: Callable[[float], None] = time.sleep,
                    clock: Callable[[], float] = time.monotonic,
                    progress: Callable[[], None] | None = None,
                    not_found: tuple[type[Exception], ...] = (
                        exception.NotFound,)) -> list[str]:
    """Delete servers and wait until ``exists`` no longer finds them;
    the ids still there after ``timeout`` s, sorted (none: all gone).

    One wait for every client shape: our driver's and a host service's
    novaclient (Blazar's, whose ``not_found`` is novaclient's).

    :param delete: deletes one server; a ``not_found`` error from it
        counts as deleted, so repeating is safe.
    :param progress: called after every round of checks.
    """
    pending = set(server_ids)
    for server_id in sorted(pending):
        try:
            delete(server_id)
        except not_found:
            pass

    def gone() -> bool | None:
        pending.intersection_update({s for s in pending if exists(s)})
        if progress is not None:
            progress()
        return True if not pending else None

    polling.until(gone, timeout=timeout, interval=interval, sleep=sleep,
                  clock=clock)
    return sorted(pending)


class NovaDriver:
    def __init__(self, session: ks_session.Session, *,
                 adapter_kwargs: dict | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        kwargs = dict(adapter_kwargs or {})
        # novaclient names the interface endpoint_type
        if 'interface' in kwargs:
            kwargs['endpoint_type'] = kwargs.pop('interface')
        self._client = nova_client.Client(API_VERSION, session=session,
                                          **kwargs)
        self._sleep = sleep
        # requests sent by the reservation methods, keyed by what they do
        self.calls: collections.Counter = collections.Counter()

    # -- availability zones -------------------------------------------------

    def compute_zones(self) -> ZoneListing:
        """Zones with an available, active nova-compute.

        ``os-availability-zone/detail`` is admin-only by default policy.
        Without it, the plain zone list is used (every available zone,
        hosts unknown) and ``note`` says so.
        """
        try:
            detail = self._call('list availability zones',
                                self._client.availability_zones.list,
                                detailed=True)
        except exception.Forbidden:
            return self._zones_without_detail()
        hosts = {}
        for zone in detail:
            if zone.zoneName == INTERNAL_ZONE or \
                    not zone.zoneState.get('available'):
                continue
            computes = sorted(
                host for host, services in (zone.hosts or {}).items()
                if _compute_is_up(services.get('nova-compute')))
            if computes:
                hosts[zone.zoneName] = tuple(computes)
        return ZoneListing(tuple(sorted(hosts)), hosts, detailed=True)

    def _zones_without_detail(self) -> ZoneListing:
        zones = sorted(
            zone.zoneName
            for zone in self._call('list availability zones',
                                   self._client.availability_zones.list,
                                   detailed=False)
            if zone.zoneState.get('available')
            and zone.zoneName != INTERNAL_ZONE)
        note = ('os-availability-zone/detail is forbidden for this account '
                '(admin only by default policy); using the plain zone list, '
                'so zones whose computes are all down may be tried')
        LOG.warning(note)
        return ZoneListing(tuple(zones), {}, detailed=False, note=note)

    def zone_aggregates(self) -> dict[str, list[str]]:
        """Zone name -> UUIDs of the host aggregates that define it.

        Nova mirrors aggregate membership into Placement under the same
        UUID, so these are the ``member_of`` values of a zone. Admin only:
        returns {} (and logs why) for other accounts.
        """
        try:
            aggregates = self._call('list aggregates',
                                    self._client.aggregates.list)
        except exception.Forbidden:
            LOG.warning('Listing host aggregates is forbidden for this '
                        'account; zone capacity cannot be read from '
                        'Placement')
            return {}
        zones = {}
        for agg in aggregates:
            zone = (agg.metadata or {}).get('availability_zone')
            if zone:
                zones.setdefault(zone, []).append(agg.uuid)
        return {zone: sorted(uuids) for zone, uuids in zones.items()}

    # -- servers --------------------------------------------------------------

    def server_node(self, server_id: str) -> tuple[str | None, str | None]:
        """The compute service host and the hypervisor hostname (the
        compute node's name) of a server (admin only), or Nones."""
        server = self._call('show server', self._client.servers.get,
                            server_id)
        return (getattr(server, 'OS-EXT-SRV-ATTR:host', None),
                getattr(server, 'OS-EXT-SRV-ATTR:hypervisor_hostname', None))

    def worker_servers(self, *, ids: Iterable[str] = (),
                       name_prefix: str | None = None
                       ) -> list[node_labels.Server]:
        """The servers with these ids and those whose name starts with
        ``name_prefix``, with their addresses, their compute host (admin
        only; else None) and their per-project ``hostId``."""
        found = {}
        for server_id in ids:
            server = self._call('show server', self._client.servers.get,
                                server_id)
            found[server.id] = server
        if name_prefix:
            # Nova's name filter is a regular expression search
            listed = self._call(
                'list servers', self._client.servers.list,
                search_opts={'name': '^' + re.escape(name_prefix)})
            found.update((s.id, s) for s in listed
                         if s.name.startswith(name_prefix))
        return [_worker(found[key]) for key in sorted(found)]

    # -- reservations: hypervisors and the free pool --------------------------

    def hypervisor(self, name: str) -> Hypervisor:
        """The compute node named by hypervisor hostname, or by compute
        service host when that service has exactly one node.

        :raises NotFound: no such node.
        :raises Conflict: the service host has several nodes.
        """
        try:
            found = self._counted('search hypervisors',
                                  self._client.hypervisors.search, name,
                                  detailed=True)
        except exception.NotFound:
            found = []
        nodes = [_hypervisor(h) for h in found]
        if not any(n.hypervisor_hostname == name for n in nodes):
            nodes = [_hypervisor(h) for h in self._counted(
                'list hypervisors', self._client.hypervisors.list)]
        return host_names.resolve(
            name, nodes, lambda n: n.hypervisor_hostname,
            lambda n: n.service_host, kind='hypervisor')

    def compute_zone(self, service_host: str) -> str:
        """The availability zone of a nova-compute service."""
        services = self._counted('list services', self._client.services.list,
                                 host=service_host, binary='nova-compute')
        if not services:
            raise exception.NotFound(kind='nova-compute service',
                                     id=service_host)
        return services[0].zone

    def ensure_aggregate(self, name: str,
                         metadata: Mapping[str, str]) -> object:
        """The host aggregate ``name`` with ``metadata``, created if needed."""
        aggregate = self._find_aggregate(name)
        if aggregate is None:
            try:
                aggregate = self._counted('create aggregate',
                                          self._client.aggregates.create,
                                          name, None)
            except exception.Conflict:
                aggregate = self._find_aggregate(name)
                if aggregate is None:
                    raise
        current = aggregate.metadata or {}
        if any(current.get(k) != v for k, v in metadata.items()):
            aggregate = self._counted(
                'set aggregate metadata', self._client.aggregates.set_metadata,
                aggregate, dict(metadata))
        return aggregate

    def add_host_to_aggregate(self, aggregate: object, host: str) -> None:
        """Add a compute service host; nothing to do if it is there."""
        if host in (getattr(aggregate, 'hosts', None) or ()):
            return
        try:
            self._counted('add host to aggregate',
                          self._client.aggregates.add_host, aggregate, host)
        except exception.Conflict:
            pass  # added meanwhile

    def remove_host_from_aggregate(self, name: str, host: str) -> None:
        """Remove a host from aggregate ``name``; nothing to do if absent."""
        aggregate = self._find_aggregate(name)
        if aggregate is None or host not in (aggregate.hosts or ()):
            return
        try:
            self._counted('remove host from aggregate',
                          self._client.aggregates.remove_host, aggregate,
                          host)
        except exception.NotFound:
            pass  # removed meanwhile

    def aggregate_hosts(self, name: str) -> frozenset[str] | None:
        """Hosts of aggregate ``name``; None if there is no such one."""
        aggregate = self._find_aggregate(name)
        return None if aggregate is None else frozenset(aggregate.hosts or ())

    def _find_aggregate(self, name: str) -> object | None:
        aggregates = self._counted('list aggregates',
                                   self._client.aggregates.list)
        return next((a for a in aggregates if a.name == name), None)

    # -- reservations: private flavors ---------------------------------------

    def ensure_private_flavor(self, flavor_id: str, name: str, *,
                              vcpus: int, memory_mb: int, disk_gb: int,
                              extra_specs: Mapping[str, str],
                              project_id: str) -> None:
        """A private flavor with these sizes and extra specs, usable by
        ``project_id``; each part is created only if missing.

        :raises Conflict: a flavor with this id has other sizes.
        """
        try:
            flavor = self._counted('show flavor', self._client.flavors.get,
                                   flavor_id)
        except exception.NotFound:
            flavor = self._create_flavor(flavor_id, name, vcpus, memory_mb,
                                         disk_gb)
        sizes = (flavor.vcpus, flavor.ram, flavor.disk)
        if sizes != (vcpus, memory_mb, disk_gb):
            raise exception.Conflict(
                reason=f'flavor {flavor_id} exists with vcpus/ram/disk '
                       f'{sizes}, not {(vcpus, memory_mb, disk_gb)}')
        keys = self._counted('show flavor extra specs', flavor.get_keys)
        if any(keys.get(k) != v for k, v in extra_specs.items()):
            self._counted('set flavor extra specs', flavor.set_keys,
                          dict(extra_specs))
        try:
            self._counted('add flavor access',
                          self._client.flavor_access.add_tenant_access,
                          flavor_id, project_id)
        except exception.Conflict:
            pass  # the project has access already

    def _create_flavor(self, flavor_id: str, name: str, vcpus: int,
                       memory_mb: int, disk_gb: int) -> object:
        try:
            return self._counted('create flavor', self._client.flavors.create,
                                 name, memory_mb, vcpus, disk_gb,
                                 flavorid=flavor_id, is_public=False)
        except exception.Conflict:
            # created by a concurrent caller
            return self._counted('show flavor', self._client.flavors.get,
                                 flavor_id)

    def revoke_flavor_access(self, flavor_id: str, project_id: str) -> None:
        """Stop ``project_id`` from booting new servers with the flavor."""
        try:
            self._counted('remove flavor access',
                          self._client.flavor_access.remove_tenant_access,
                          flavor_id, project_id)
        except exception.NotFound:
            pass  # the flavor or the access is gone

    def delete_flavor(self, flavor_id: str) -> None:
        try:
            self._counted('delete flavor', self._client.flavors.delete,
                          flavor_id)
        except exception.NotFound:
            pass

    def flavors_named(self, prefix: str) -> dict[str, str]:
        """{flavor id: name} of every flavor (public or not) whose name
        starts with ``prefix``."""
        flavors = self._counted('list flavors', self._client.flavors.list,
                                is_public=None)
        return {f.id: f.name for f in flavors if f.name.startswith(prefix)}

    # -- homing: flavors and quotas -----------------------------------------

    def flavors(self, *, extra_specs: bool = False) -> list[dict]:
        """Every flavor the account may use (public or not): ``name``,
        ``id``, ``vcpus``, ``ram``, ``disk`` and, when asked (one call per
        flavor), ``extra_specs``."""
        flavors = self._counted('list flavors', self._client.flavors.list,
                                is_public=None)
        found = []
        for flavor in flavors:
            entry = {'name': flavor.name, 'id': flavor.id,
                     'vcpus': flavor.vcpus, 'ram': flavor.ram,
                     'disk': flavor.disk}
            if extra_specs:
                entry['extra_specs'] = self._counted(
                    'show flavor extra specs', flavor.get_keys)
            found.append(entry)
        return found

    def quota_usage(self, project_id: str) -> dict[str, tuple[int, int]]:
        """``cores``, ``ram`` and ``instances`` of a project's compute
        quota: (limit, in use and reserved); a limit of -1 is unlimited.
        """
        quota = self._counted('show quota usage', self._client.quotas.get,
                              project_id, detail=True)
        usage = {}
        for name in ('cores', 'ram', 'instances'):
            detail = getattr(quota, name, None)
            if isinstance(detail, dict):
                usage[name] = (int(detail['limit']),
                               int(detail.get('in_use', 0))
                               + int(detail.get('reserved', 0)))
        return usage

    # -- reservations: servers -----------------------------------------------

    def servers_with_flavor(self, flavor_id: str
                            ) -> list[lease_servers.Server]:
        """Every project's servers booted with the flavor."""
        servers = self._counted(
            'list servers', self._client.servers.list,
            search_opts={'flavor': flavor_id, 'all_tenants': 1})
        return sorted((_lease_server(s) for s in servers),
                      key=lambda s: s.id)

    def servers_on_host(self, host: str) -> list[lease_servers.Server]:
        """Every project's servers on a compute service host."""
        servers = self._counted(
            'list servers', self._client.servers.list,
            search_opts={'host': host, 'all_tenants': 1})
        return sorted((_lease_server(s) for s in servers),
                      key=lambda s: s.id)

    def servers_by_id(self, server_ids: Iterable[str]
                      ) -> list[lease_servers.Server]:
        """The servers of these ids that exist (any project)."""
        found = []
        for server_id in sorted(set(server_ids)):
            try:
                found.append(_lease_server(self._counted(
                    'show server', self._client.servers.get, server_id)))
            except exception.NotFound:
                pass
        return found

    def delete_servers(self, server_ids: Iterable[str], *, timeout: float,
                       interval: float,
                       progress: Callable[[], None] | None = None) -> None:
        """Delete servers and wait until Nova no longer shows them.

        Safe to repeat: a server already gone counts as deleted.

        :param progress: called after every round of checks.
        :raises ServiceError: some are still there after ``timeout``.
        """
        def delete(server_id: str) -> None:
            self._counted('delete server', self._client.servers.delete,
                          server_id)

        pending = delete_and_wait(
            server_ids, delete, self._server_exists, timeout=timeout,
            interval=interval, sleep=self._sleep, progress=progress)
        if pending:
            raise exception.ServiceError(
                service='Nova',
                reason=f'servers {", ".join(pending)} still '
                       f'exist {timeout} s after their deletion')

    def _server_exists(self, server_id: str) -> bool:
        try:
            self._counted('show server', self._client.servers.get,
                          server_id)
        except exception.NotFound:
            return False
        return True

    # -- reservations: server groups -----------------------------------------

    def with_token(self, token: str) -> 'NovaDriver':
        """This Nova, called with another user's token (its project's
        server groups are made in that project)."""
        endpoint = self._client.client.get_endpoint()
        session = ks_session.Session(
            auth=token_endpoint.Token(endpoint, token),
            verify=self._client.client.session.verify)
        return NovaDriver(session, sleep=self._sleep)

    def server_group(self, group_id: str) -> ServerGroup | None:
        """The server group, or None if it is gone."""
        try:
            return _server_group(self._counted(
                'show server group', self._client.server_groups.get,
                group_id))
        except exception.NotFound:
            return None

    def ensure_server_group(self, name: str, policy: str,
                            exclude: Iterable[str] = ()) -> ServerGroup:
        """The caller's project's group of that name and policy: the
        first one found (a run that stopped after creating it finds it
        again) but those in ``exclude``, or a new one."""
        groups = self._counted('list server groups',
                               self._client.server_groups.list)
        for group in map(_server_group, groups):
            if group.name == name and group.policy == policy and \
                    group.id not in exclude:
                return group
        return _server_group(self._counted(
            'create server group', self._client.server_groups.create,
            name=name, policies=[policy]))

    def delete_server_group(self, group_id: str) -> None:
        """Delete the group; one already gone is fine."""
        try:
            self._counted('delete server group',
                          self._client.server_groups.delete, group_id)
        except exception.NotFound:
            pass

    def _counted(self, what: str, func: Callable, *args: object,
                 **kwargs: object) -> object:
        """``_call``, counted, with Nova's 409 as our Conflict (the
        idempotent steps treat "exists already" as done)."""
        self.calls[what] += 1
        return self._call(what, _conflict_as_ours(what, func), *args,
                          **kwargs)

    def _call(self, what: str, func: Callable, *args: object,
              **kwargs: object) -> object:
        try:
            with keystone.transport_errors('Nova', what):
                return func(*args, **kwargs)
        except nova_exc.NotFound as exc:
            raise exception.NotFound(message=f'Nova: {what}: {exc}',
                                     kind='nova resource', id=str(args[:1]))
        except nova_exc.Forbidden as exc:
            raise exception.Forbidden(service='Nova',
                                      reason=f'{what}: {exc}')
        except nova_exc.ClientException as exc:
            raise exception.ServiceError(service='Nova',
                                         reason=f'{what}: {exc}')
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            # novaclient reads Nova's answer blindly: an error body such
            # as {"error": "text"} or a body without the expected key
            # fails inside it
            raise exception.ServiceError(
                service='Nova',
                reason=f'{what}: an answer novaclient cannot read '
                       f'({type(exc).__name__}: {exc})')


def _worker(server: object) -> node_labels.Server:
    addresses = frozenset(
        entry['addr'] for entries in (server.addresses or {}).values()
        for entry in entries if entry.get('addr'))
    return node_labels.Server(
        id=server.id, name=server.name, addresses=addresses,
        host=getattr(server, 'OS-EXT-SRV-ATTR:host', None) or None,
        host_id=getattr(server, 'hostId', None) or None)


def _lease_server(server: object) -> lease_servers.Server:
    # API >= 2.47 embeds the flavor (its original name, no id)
    flavor = getattr(server, 'flavor', None) or {}
    return lease_servers.Server(
        id=server.id, project_id=getattr(server, 'tenant_id', None),
        flavor_name=flavor.get('original_name'),
        host=getattr(server, 'OS-EXT-SRV-ATTR:hypervisor_hostname', None))


def _server_group(group: object) -> ServerGroup:
    policies = getattr(group, 'policies', None) or [
        getattr(group, 'policy', '')]
    return ServerGroup(id=group.id, name=group.name, policy=policies[0],
                       members=tuple(getattr(group, 'members', ()) or ()))


def _hypervisor(hyp: object) -> Hypervisor:
    service = getattr(hyp, 'service', None) or {}
    return Hypervisor(
        id=str(hyp.id), hypervisor_hostname=hyp.hypervisor_hostname,
        service_host=service.get('host', hyp.hypervisor_hostname),
        vcpus=int(getattr(hyp, 'vcpus', 0) or 0),
        memory_mb=int(getattr(hyp, 'memory_mb', 0) or 0),
        local_gb=int(getattr(hyp, 'local_gb', 0) or 0),
        state=getattr(hyp, 'state', ''), status=getattr(hyp, 'status', ''))


def _conflict_as_ours(what: str, func: Callable) -> Callable:
    def call(*args: object, **kwargs: object) -> object:
        try:
            return func(*args, **kwargs)
        except nova_exc.Conflict as exc:
            raise exception.Conflict(reason=f'Nova: {what}: {exc}')
    return call


def _compute_is_up(service: dict | None) -> bool:
    return bool(service and service.get('available')
                and service.get('active'))
