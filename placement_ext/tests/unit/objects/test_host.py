"""Host records: create, find, retire, delete, provider bookkeeping."""

import testtools

from placement_ext import exception
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import db_records as records


def make_host(db, name='cn1', service=None, **extra):
    values = dict(hypervisor_hostname=name, service_name=service or name,
                  availability_zone='AZ-1', vcpus=4, memory_mb=8192,
                  local_gb=100, compute_provider_uuid=f'rp-{name}')
    values.update(extra)
    return host_obj.create(db, **values)


class TestHost(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = db_fixture.use_database(self).db

    def test_create_and_get(self):
        host = make_host(self.db, reservation_provider_uuid='rrp')
        self.assertEqual(host, host_obj.get(self.db, host.id))
        self.assertTrue(host.reservable)
        self.assertEqual(0, host.generation)
        out = host.to_dict()
        self.assertEqual('cn1', out['hypervisor_hostname'])
        self.assertIsInstance(out['created_at'], str)

    def test_duplicate_is_a_conflict(self):
        make_host(self.db)
        exc = self.assertRaises(exception.Conflict, make_host, self.db)
        self.assertIn('already enrolled', exc.detail)

    def test_find_by_id_hostname_or_single_node_service(self):
        host = make_host(self.db, 'node-a', service='compute-1')
        self.assertEqual(host, host_obj.find(self.db, host.id))
        self.assertEqual(host, host_obj.find(self.db, str(host.id)))
        self.assertEqual(host, host_obj.find(self.db, 'node-a'))
        self.assertEqual(host, host_obj.find(self.db, 'compute-1'))
        self.assertRaises(exception.NotFound, host_obj.find, self.db, 'x')

    def test_service_with_several_nodes_is_ambiguous(self):
        make_host(self.db, 'node-a', service='ironic')
        make_host(self.db, 'node-b', service='ironic')
        exc = self.assertRaises(exception.Conflict, host_obj.find, self.db,
                                'ironic')
        self.assertIn('node-a, node-b', exc.detail)

    def test_list_sorted_and_filtered(self):
        make_host(self.db, 'b')
        a = make_host(self.db, 'a')
        host_obj.retire(self.db, a)
        self.assertEqual(['a', 'b'], [h.hypervisor_hostname
                                      for h in host_obj.list_hosts(self.db)])
        self.assertEqual(['b'], [h.hypervisor_hostname for h in
                                 host_obj.list_hosts(self.db, True)])

    def test_set_reservation_provider_is_compare_and_swap(self):
        host = make_host(self.db)
        updated = host_obj.set_reservation_provider(self.db, host, 'rp-x')
        self.assertEqual(('rp-x', 1), (updated.reservation_provider_uuid,
                                       updated.generation))
        self.assertRaises(exception.ConcurrentUpdate,
                          host_obj.set_reservation_provider, self.db, host,
                          'rp-y')

    def test_retire_and_delete_refused_while_slots_are_held(self):
        host = make_host(self.db)
        with self.db.writer() as session:
            lease = records.lease(session)
            res = records.instance_reservation(session, lease.id)
            records.allocation(session, res.reservation_id, host.id)
        self.assertEqual(1, host_obj.slot_count(self.db, host.id))
        for action in (host_obj.retire, host_obj.delete):
            exc = self.assertRaises(exception.Conflict, action, self.db,
                                    host)
            self.assertIn('1 reserved slot(s)', exc.detail)
        lease_obj.delete(self.db, lease.id)
        retired = host_obj.retire(self.db, host)
        self.assertFalse(retired.reservable)
        self.assertRaises(exception.ConcurrentUpdate, host_obj.delete,
                          self.db, host)
        host_obj.delete(self.db, retired)
        self.assertEqual([], host_obj.list_hosts(self.db))

    def test_lock_returns_current_rows(self):
        a, b = make_host(self.db, 'a'), make_host(self.db, 'b')
        with self.db.writer():
            locked = host_obj.lock(self.db, [b.id, a.id, 999])
        self.assertEqual(['a', 'b'], [h.hypervisor_hostname for h in locked])
