"""placement-ext-nfvo's view of allocated servers, on real Nova and
Placement: a Grant whose host-scope constraint names a server Tacker
already has (a scale out under NFVI_NODE anti-affinity, as Tacker's own
az-retry package asks) is decided, not refused for want of its host."""

from placement_ext.cmd import nfvo as nfvo_cmd
from placement_ext.conductor import grant_inputs
from placement_ext.decision import cloud_zones
from placement_ext.decision import grant_evaluator
from placement_ext.drivers import keystone
from placement_ext.drivers import nova as nova_driver
from placement_ext.drivers import placement as placement_driver
from placement_ext.sol import grant_request
from placement_ext.tests.functional.conductor import base

SMALL = {'VDU1': {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}}


class TestExistingServers(base.ConductorCloudTestCase):

    def setUp(self):
        super().setUp()
        self.placement = placement_driver.PlacementDriver.from_conf(
            self.conf)
        self.reader = grant_inputs.CloudReader(nova_driver.NovaDriver(
            keystone.load_session(self.conf, 'nova'),
            adapter_kwargs=keystone.adapter_kwargs(self.conf, 'nova')),
            self.placement)
        self.server = self.cloud.boot_server('AZ-1')
        self.addCleanup(self.cloud.admin.compute.delete_server,
                        self.server.id)

    def test_host_scope_members_are_placed_on_their_compute_node(self):
        cloud = self.reader.cloud(SMALL, [self.server.id],
                                  hosts_of=[self.server.id])
        where = cloud.existing[self.server.id]
        node = self.cloud.admin.compute.get_server(
            self.server.id).hypervisor_hostname
        providers = self.placement.client.request(
            'GET', '/resource_providers', what='test',
            params={'name': node}).json()['resource_providers']
        # named as the zones' hosts are: the compute node's provider
        self.assertEqual(('AZ-1', providers[0]['uuid']),
                         (where.zone_id, where.host))
        self.assertIn(where.host, {host.name for zone in cloud.zones
                                   if zone.zone_id == 'AZ-1'
                                   for host in zone.hosts})

    def test_zone_scope_members_read_no_compute_node(self):
        cloud = self.reader.cloud(SMALL, [self.server.id])
        self.assertEqual(('AZ-1', None),
                         (cloud.existing[self.server.id].zone_id,
                          cloud.existing[self.server.id].host))

    def test_scale_out_under_host_anti_affinity_is_granted(self):
        request = grant_request.parse({
            'vnfInstanceId': 'inst-1', 'vnfLcmOpOccId': 'op-1',
            'vnfdId': 'vnfd-1', 'operation': 'SCALE',
            'isAutomaticInvocation': False,
            '_links': {'vnfLcmOpOcc': {'href': 'http://vnfm/op-1'},
                       'vnfInstance': {'href': 'http://vnfm/inst-1'}},
            'addResources': [{'id': 'new-1', 'type': 'COMPUTE',
                              'resourceTemplateId': 'VDU1'}],
            'placementConstraints': [{
                'affinityOrAntiAffinity': 'ANTI_AFFINITY',
                'scope': 'NFVI_NODE',
                'resource': [{'idType': 'RES_MGMT',
                              'resourceId': self.server.id},
                             {'idType': 'GRANT', 'resourceId': 'new-1'}]}]})
        cloud = self.reader.cloud(SMALL, nfvo_cmd._existing(request),
                                  hosts_of=nfvo_cmd._existing(
                                      request, cloud_zones.HOST_SCOPES))
        decision = grant_evaluator.evaluate(request, cloud, 'grant-1')
        self.assertTrue(decision.granted, decision.refusal)
        self.assertNotEqual(cloud.existing[self.server.id].host,
                            decision.hosts['new-1'][1])
