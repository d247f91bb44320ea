"""Host create/delete on a real Placement (Nova faked)."""

from placement_ext import exception
from placement_ext.db import models
from placement_ext.objects import host as host_obj
from placement_ext.tests.functional.reservation import base


class TestHosts(base.ReservationTestCase):

    def test_create_makes_child_provider_and_joins_the_free_pool(self):
        host = self.add_compute('cn1', zone='AZ-3')
        provider = self.provider('cn1')
        self.assertEqual('blazar_cn1', provider.name)
        self.assertEqual(self.computes['cn1'], provider.parent_provider_uuid)
        self.assertEqual(provider.uuid, host.reservation_provider_uuid)
        self.assertEqual(self.computes['cn1'], host.compute_provider_uuid)
        self.assertEqual(('AZ-3', 4, 8192, 100),
                         (host.availability_zone, host.vcpus,
                          host.memory_mb, host.local_gb))
        pool = self.nova.aggregates[base.SETTINGS.freepool]
        self.assertEqual(['cn1'], pool.hosts)
        self.assertEqual({'placement_ext:freepool': 'true'}, pool.metadata)

    def test_create_twice_is_refused(self):
        self.add_compute('cn1')
        exc = self.assertRaises(exception.Conflict,
                                self.res.hosts.create, 'cn1')
        self.assertIn('already enrolled', exc.detail)

    def test_unknown_hypervisor(self):
        self.assertRaises(exception.NotFound, self.res.hosts.create, 'nope')

    def test_compute_node_missing_in_placement(self):
        self.nova.add_hypervisor('ghost')
        exc = self.assertRaises(exception.NotFound,
                                self.res.hosts.create, 'ghost')
        self.assertIn('compute node resource provider', exc.detail)
        self.assertEqual([], host_obj.list_hosts(self.db))

    def test_delete_refused_while_slots_are_held(self):
        self.add_compute('cn1')
        lease = self.create_lease(amount=2)
        exc = self.assertRaises(exception.Conflict,
                                self.res.hosts.delete, 'cn1')
        self.assertIn('2 reserved slot(s)', exc.detail)
        # nothing was touched
        self.assertIsNotNone(self.provider('cn1'))
        self.assertTrue(host_obj.find(self.db, 'cn1').reservable)
        self.res.delete_lease(lease.id)
        kept = self.provider('cn1')
        self.res.hosts.delete('cn1')
        # emptied, not deleted (nova-compute may have it cached) ...
        self.assertEqual(kept.uuid, self.provider('cn1').uuid)
        self.assertEqual({}, self.res.placement.inventories(kept.uuid)[1])
        self.assertEqual([], self.nova.aggregates[
            base.SETTINGS.freepool].hosts)
        self.assertEqual([], host_obj.list_hosts(self.db))
        # ... and enrolling the host again reuses it
        self.assertEqual(kept.uuid, self.res.hosts.create(
            'cn1').reservation_provider_uuid)

    def test_delete_refused_while_reserved_instances_run(self):
        self.add_compute('cn1')
        lease = self.create_lease(amount=1)
        self.run_events()
        self.boot(self.lease(lease.id), 'cn1')
        # the lease's slots are gone from the database, not the instance
        with self.db.writer() as session:
            session.execute(models.ComputeHostAllocation.__table__.delete())
        exc = self.assertRaises(exception.Conflict,
                                self.res.hosts.delete, 'cn1')
        self.assertIn('still has allocations', exc.detail)
        self.assertIsNotNone(self.provider('cn1'))

    def test_host_without_provider_gets_one_on_first_use(self):
        self.add_compute('cn1', enrol=False)
        host = host_obj.create(
            self.db, hypervisor_hostname='cn1', service_name='cn1',
            availability_zone='AZ-1', vcpus=4, memory_mb=8192, local_gb=100,
            compute_provider_uuid=self.computes['cn1'])
        self.assertIsNone(self.provider('cn1'))
        lease = self.create_lease(amount=3)
        self.run_events()
        provider = self.provider('cn1')
        self.assertIsNotNone(provider)
        self.assertEqual(provider.uuid, host_obj.get(
            self.db, host.id).reservation_provider_uuid)
        rc = lease.reservations[0].resource_class
        self.assertEqual({rc: 3}, self.reservation_inventory('cn1'))
