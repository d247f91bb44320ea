"""The end of a Blazar host lease: the lease's project's servers on its
hosts are deleted, any other is kept and the lease marked degraded."""

import types

import testtools
from novaclient import exceptions as nova_exc

from placement_ext.adapters.blazar import host_end


class _Missing(Exception):
    pass


class _TimedOut(Exception):
    pass


class FakeServers:
    def __init__(self, servers, stuck=()):
        self.servers = dict(servers)     # id -> (project, host)
        self.stuck = set(stuck)          # deletes that never finish
        self.deleted = []

    def list(self, search_opts):
        assert search_opts['all_tenants'] == 1
        return [types.SimpleNamespace(id=sid, tenant_id=project)
                for sid, (project, host) in sorted(self.servers.items())
                if host == search_opts['host']]

    def delete(self, server_id):
        self.deleted.append(server_id)
        if server_id not in self.servers:
            raise nova_exc.NotFound(404)
        if server_id not in self.stuck:
            del self.servers[server_id]

    def get(self, server_id):
        if server_id not in self.servers:
            raise nova_exc.NotFound(404)
        return server_id


class FakePool:
    def __init__(self, hosts, missing=False):
        self.hosts = hosts
        self.missing = missing
        self.deleted = []

    def get_computehosts(self, aggregate_id):
        return list(self.hosts)

    def delete(self, aggregate_id):
        if self.missing:
            raise _Missing()
        self.deleted.append(aggregate_id)


class FakeDB:
    def __init__(self):
        self.host_reservation = {'id': 'hr1', 'reservation_id': 'r1',
                                 'aggregate_id': 7}
        self.lease = {'id': 'l1', 'project_id': 'p1'}
        self.allocations = {1: {'id': 1}, 2: {'id': 2}}
        self.updates = []

    def host_reservation_get(self, resource_id):
        return self.host_reservation

    def reservation_get(self, reservation_id):
        return {'id': reservation_id, 'lease_id': 'l1'}

    def lease_get(self, lease_id):
        return self.lease

    def host_reservation_update(self, row_id, values):
        self.updates.append(('host_reservation', row_id, values))

    def lease_update(self, lease_id, values):
        self.updates.append(('lease', lease_id, values))

    def host_allocation_get_all_by_values(self, reservation_id):
        return list(self.allocations.values())

    def host_allocation_destroy(self, row_id):
        del self.allocations[row_id]


class TestHostLeaseEnd(testtools.TestCase):

    def end(self, servers, pool=None, stuck=()):
        self.db = FakeDB()
        self.aggregate = types.SimpleNamespace(metadata={
            'availability_zone': 'blazar_r1', 'blazar:owner': 'p1',
            'p3': 'blazar:tenant'})
        self.nova = types.SimpleNamespace(
            servers=FakeServers(servers, stuck),
            aggregates=types.SimpleNamespace(
                get=lambda agg_id: self.aggregate,
                set_metadata=self._set_metadata))
        self.pool = pool or FakePool(['h1', 'h2'])
        self.clock = [0.0]
        waits = host_end.Waits(timeout=10, interval=5,
                               sleep=self._sleep, clock=lambda: self.clock[0])
        return host_end.HostLeaseEnd(
            self.db, self.pool, self.nova, aggregate_missing=_Missing,
            timed_out=_TimedOut, waits=waits).end('hr-resource')

    def _set_metadata(self, aggregate, metadata):
        for key, value in metadata.items():
            if value is None:
                aggregate.metadata.pop(key)
            else:
                aggregate.metadata[key] = value

    def _sleep(self, seconds):
        self.clock[0] += seconds

    def test_other_projects_servers_are_kept_and_reported(self):
        kept = self.end({'a': ('p1', 'h1'), 'b': ('p2', 'h1'),
                         'c': ('p1', 'h2'), 'd': ('p2', 'elsewhere')})
        self.assertEqual(host_end.Ended(('h1', 'h2'), ('b',)), kept)
        self.assertEqual(['a', 'c'], self.nova.servers.deleted)
        self.assertEqual({'b', 'd'}, set(self.nova.servers.servers))
        self.assertIn(('lease', 'l1', {'degraded': True}), self.db.updates)
        self.assertIn(('host_reservation', 'hr1', {'status': 'completed'}),
                      self.db.updates)
        self.assertEqual({}, self.db.allocations)
        # Nova keeps a host with servers in its zone: the aggregate
        # stays, closed to every project
        self.assertEqual([], self.pool.deleted)
        self.assertEqual({'availability_zone': 'blazar_r1'},
                         self.aggregate.metadata)

    def test_only_its_own_servers_nothing_reported(self):
        self.assertEqual(host_end.Ended(('h1',)), self.end(
            {'a': ('p1', 'h1')}, pool=FakePool(['h1'], missing=True)))
        self.assertEqual([('host_reservation', 'hr1',
                           {'status': 'completed'})], self.db.updates)
        self.assertEqual(3, len(self.aggregate.metadata))

    def test_servers_that_stay_time_out(self):
        self.assertRaises(_TimedOut, self.end, {'a': ('p1', 'h1')},
                          stuck=['a'])
        self.assertEqual([], self.pool.deleted)
        self.assertGreaterEqual(self.clock[0], 10)
