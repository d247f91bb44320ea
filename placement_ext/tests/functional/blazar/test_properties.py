"""Blazar's ``resource_properties`` on instance reservations, through
blazar-api and the real blazar-manager with our plugin: the extra
capabilities of the hosts (``host set --extra``) choose where the slots
go, at create and at update, a bad filter is refused naming the field,
and Nova boots the reservation's flavor on the host chosen."""

from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.cloud import fixture as cloud_fixture

GPU = '["==", "$gpu", "true"]'
NO_GPU = '["==", "$gpu", "false"]'


class TestResourceProperties(base.BlazarTestCase):

    def setUp(self):
        super().setUp()
        self.gpu, self.plain = self.pool
        for host, value in ((self.gpu, 'true'), (self.plain, 'false')):
            self.admin.host.update(self.blazar_host(host)['id'],
                                   {'gpu': value})

    def reservation(self, amount, properties):
        return {'resource_type': 'virtual:instance', 'amount': amount,
                'vcpus': 1, 'memory_mb': 512, 'disk_gb': 1,
                'affinity': 'None', 'resource_properties': properties}

    def lease(self, amount, properties, days_ahead=1):
        return self.create_lease(
            cloud_fixture.unique_name('props'), None, days_ahead=days_ahead,
            reservation=self.reservation(amount, properties))

    def allocated(self, reservation_id):
        return {name for (name,) in self.blazar_sql(
            'SELECT h.hypervisor_hostname FROM computehost_allocations a '
            'JOIN computehosts h ON h.id = a.compute_host_id '
            'WHERE a.reservation_id = :r', r=reservation_id)}

    def test_capabilities_choose_the_hosts_at_create_and_update(self):
        lease = self.lease(2, GPU)
        res = lease['reservations'][0]
        self.assertEqual({self.gpu}, self.allocated(res['id']))
        # a third one-vCPU slot is not on the 2-vCPU GPU host
        exc = self.assertRaises(base.blazar_exc.BlazarClientException,
                                self.lease, 1, GPU)
        self.assertIn('not enough capacity', str(exc))
        for text, words in (('["==", "$fpga", "1"]', "'fpga'"),
                            ('gpu', 'not JSON')):
            exc = self.assertRaises(base.blazar_exc.BlazarClientException,
                                    self.lease, 1, text)
            self.assertIn('Invalid resource_properties', str(exc))
            self.assertIn(words, str(exc))
        self.demo.lease.update(lease['id'], reservations=[
            {'id': res['id'], 'resource_properties': NO_GPU}])
        self.assertEqual({self.plain}, self.allocated(res['id']))
        self.assertEqual(NO_GPU, self.admin.lease.get(
            lease['id'])['reservations'][0]['resource_properties'])
        # the GPU host is free again
        self.lease(2, GPU)

    def test_nova_boots_on_the_host_chosen_and_a_started_lease_keeps_it(
            self):
        lease = self.lease(1, GPU, days_ahead=0)
        res = lease['reservations'][0]
        self.lease_status(lease['id'], 'ACTIVE')
        status, host, _server = self.server(self.cloud.demo,
                                            flavor_id=res['flavor_id'])
        self.assertEqual(('ACTIVE', self.gpu), (status, host))
        exc = self.assertRaises(
            base.blazar_exc.BlazarClientException, self.demo.lease.update,
            lease['id'], reservations=[{'id': res['id'],
                                        'resource_properties': NO_GPU}])
        self.assertIn('resource_properties', str(exc))
