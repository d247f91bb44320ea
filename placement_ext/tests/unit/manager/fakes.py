"""An in-memory Nova with the NovaDriver methods the reservation
manager uses, for tests and benchmarks that have no real Nova.

With a Placement client, booting a server claims its resources in
Placement the way Nova's scheduler does (the flavor's VCPU, MEMORY_MB
and DISK_GB on the compute node; its ``resources:CUSTOM_RESERVATION_*``
unit on the ``blazar_<host>`` child), and deleting it releases them, so
"inventory in use" and reserved usage are real.
"""

import collections
import threading
import types
import uuid

from placement_ext import exception
from placement_ext.decision import lease_servers
from placement_ext.drivers import nova as nova_driver

V_ALLOC = (1, 39)
V_AGGREGATES = (1, 19)


class FakeNova:
    def __init__(self, placement_client=None):
        self.placement = placement_client
        self.hypervisors = {}     # name -> dict
        self.aggregates = {}      # name -> SimpleNamespace
        self.flavors = {}         # id -> dict(name, sizes, specs, access)
        self.servers = {}         # id -> dict(flavor, project, host)
        self.server_groups = {}   # id -> ServerGroup
        self.group_projects = {}  # id -> project it was made in
        self.calls = collections.Counter()
        self.fail = {}            # method name -> exception to raise once
        self._lock = threading.RLock()

    # -- test set-up ----------------------------------------------------------

    def add_hypervisor(self, name, zone='nova', vcpus=8, memory_mb=16384,
                       local_gb=100, service_host=None):
        self.hypervisors[name] = dict(
            id=str(uuid.uuid4()), hypervisor_hostname=name,
            service_host=service_host or name, vcpus=vcpus,
            memory_mb=memory_mb, local_gb=local_gb, state='up',
            status='enabled', zone=zone)

    def boot(self, flavor_id, project_id, host, compute_rp=None,
             reservation_rp=None):
        """A server of the flavor on ``host``; claims in Placement when
        the provider UUIDs are given."""
        flavor = self.flavors[flavor_id]
        if project_id not in flavor['access']:
            raise exception.Conflict(reason='flavor not accessible')
        server_id = str(uuid.uuid4())
        if self.placement is not None and compute_rp:
            allocations = {compute_rp: {'resources': {
                'VCPU': flavor['vcpus'], 'MEMORY_MB': flavor['ram'],
                'DISK_GB': flavor['disk']}}}
            for key, value in flavor['specs'].items():
                if key.startswith('resources:') and reservation_rp:
                    allocations[reservation_rp] = {'resources': {
                        key.split(':', 1)[1]: int(value)}}
            self.placement.request(
                'PUT', f'/allocations/{server_id}', what='fake nova boot',
                microversion=V_ALLOC, ok=(204,),
                json={'allocations': allocations, 'project_id': project_id,
                      'user_id': 'u', 'consumer_generation': None,
                      'consumer_type': 'INSTANCE'})
        self.servers[server_id] = dict(flavor=flavor_id, project=project_id,
                                       host=host)
        return server_id

    def _maybe_fail(self, name):
        exc = self.fail.pop(name, None)
        if exc is not None:
            raise exc

    def _count(self, what):
        self.calls[what] += 1
        self._maybe_fail(what)

    # -- NovaDriver methods ---------------------------------------------------

    def hypervisor(self, name):
        self._count('hypervisor')
        for hyp in self.hypervisors.values():
            if name in (hyp['hypervisor_hostname'], hyp['service_host']):
                fields = {k: v for k, v in hyp.items() if k != 'zone'}
                return types.SimpleNamespace(**fields)
        raise exception.NotFound(kind='hypervisor', id=name)

    def compute_zone(self, service_host):
        self._count('compute_zone')
        for hyp in self.hypervisors.values():
            if hyp['service_host'] == service_host:
                return hyp['zone']
        raise exception.NotFound(kind='nova-compute service',
                                 id=service_host)

    def ensure_aggregate(self, name, metadata):
        self._count('ensure_aggregate')
        with self._lock:
            agg = self.aggregates.setdefault(name, types.SimpleNamespace(
                name=name, hosts=[], metadata={}, uuid=str(uuid.uuid4())))
            agg.metadata.update(metadata)
            return agg

    def add_host_to_aggregate(self, aggregate, host):
        self._count('add_host_to_aggregate')
        with self._lock:
            if host not in aggregate.hosts:
                aggregate.hosts.append(host)
                self._mirror(aggregate, host, True)

    def remove_host_from_aggregate(self, name, host):
        self._count('remove_host_from_aggregate')
        with self._lock:
            agg = self.aggregates.get(name)
            if agg is not None and host in agg.hosts:
                agg.hosts.remove(host)
                self._mirror(agg, host, False)

    def _mirror(self, aggregate, host, member):
        """Like Nova's API: put the host's compute node providers in (or
        out of) the Placement aggregate of the same UUID."""
        if self.placement is None:
            return
        for hyp in self.hypervisors.values():
            if hyp['service_host'] != host:
                continue
            found = self.placement.request(
                'GET', '/resource_providers', what='fake nova aggregates',
                params={'name': hyp['hypervisor_hostname']}).json()
            for rp in found['resource_providers']:
                self._set_member(rp['uuid'], aggregate.uuid, member)

    def _set_member(self, rp_uuid, agg_uuid, member):
        path = f'/resource_providers/{rp_uuid}/aggregates'
        body = self.placement.request('GET', path, what='fake nova aggregates',
                                      microversion=V_AGGREGATES).json()
        aggregates = set(body['aggregates'])
        aggregates = aggregates | {agg_uuid} if member \
            else aggregates - {agg_uuid}
        self.placement.request(
            'PUT', path, what='fake nova aggregates',
            microversion=V_AGGREGATES,
            json={'aggregates': sorted(aggregates),
                  'resource_provider_generation':
                  body['resource_provider_generation']})

    def aggregate_hosts(self, name):
        self._count('aggregate_hosts')
        agg = self.aggregates.get(name)
        return None if agg is None else frozenset(agg.hosts)

    def ensure_private_flavor(self, flavor_id, name, *, vcpus, memory_mb,
                              disk_gb, extra_specs, project_id):
        self._count('ensure_private_flavor')
        with self._lock:
            flavor = self.flavors.setdefault(flavor_id, dict(
                name=name, vcpus=vcpus, ram=memory_mb, disk=disk_gb,
                specs={}, access=set()))
            if (flavor['vcpus'], flavor['ram'], flavor['disk']) != (
                    vcpus, memory_mb, disk_gb):
                raise exception.Conflict(reason='other sizes')
            flavor['specs'].update(extra_specs)
            flavor['access'].add(project_id)

    def revoke_flavor_access(self, flavor_id, project_id):
        self._count('revoke_flavor_access')
        with self._lock:
            flavor = self.flavors.get(flavor_id)
            if flavor is not None:
                flavor['access'].discard(project_id)

    def delete_flavor(self, flavor_id):
        self._count('delete_flavor')
        with self._lock:
            self.flavors.pop(flavor_id, None)

    def flavors_named(self, prefix):
        self._count('flavors_named')
        return {fid: f['name'] for fid, f in self.flavors.items()
                if f['name'].startswith(prefix)}

    def servers_with_flavor(self, flavor_id):
        self._count('servers_with_flavor')
        if flavor_id not in self.flavors:
            return []   # Nova: an unknown flavor filter matches nothing
        return [self._server(sid) for sid in sorted(self.servers)
                if self.servers[sid]['flavor'] == flavor_id]

    def servers_by_id(self, server_ids):
        self._count('servers_by_id')
        return [self._server(sid) for sid in sorted(set(server_ids))
                if sid in self.servers]

    def _server(self, server_id):
        server = self.servers[server_id]
        flavor = self.flavors.get(server['flavor'], {})
        return lease_servers.Server(
            server_id, server['project'],
            server.get('flavor_name', flavor.get('name')), server['host'])

    # server groups (``project_id``: the project they were made in)
    def server_group(self, group_id):
        self._count('server_group')
        return self.server_groups.get(group_id)

    def ensure_server_group(self, name, policy, exclude=(),
                            project_id='service'):
        self._count('ensure_server_group')
        with self._lock:
            for gid, group in self.server_groups.items():
                if (group.name, group.policy) == (name, policy) and \
                        self.group_projects[gid] == project_id and \
                        gid not in exclude:
                    return group
            group = nova_driver.ServerGroup(str(uuid.uuid4()), name, policy,
                                            ())
            self.server_groups[group.id] = group
            self.group_projects[group.id] = project_id
            return group

    def add_member(self, group_id, server_id):
        group = self.server_groups[group_id]
        self.server_groups[group_id] = nova_driver.ServerGroup(
            group.id, group.name, group.policy, (*group.members, server_id))

    def delete_server_group(self, group_id):
        self._count('delete_server_group')
        with self._lock:
            self.server_groups.pop(group_id, None)

    def delete_servers(self, server_ids, *, timeout, interval,
                       progress=None):
        self._count('delete_servers')
        for server_id in sorted(set(server_ids)):
            with self._lock:
                gone = self.servers.pop(server_id, None)
            if gone is not None and self.placement is not None:
                self.placement.request(
                    'DELETE', f'/allocations/{server_id}',
                    what='fake nova delete', microversion=V_ALLOC,
                    ok=(204, 404))
        if progress is not None:
            progress()

