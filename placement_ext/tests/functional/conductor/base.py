"""Conductor tests on the embedded cloud: real Heat, Nova and Placement."""

import testtools

from placement_ext import context as pe_context
from placement_ext.conductor import manager as conductor_manager
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.conductor import (
    fixture as conductor_fixture,
)


class ConductorCloudTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = cloud_fixture.use_cloud(self)
        config = self.useFixture(conductor_fixture.ConductorConfig(self.cloud))
        self.config_file = config.config_file
        self.conf = config.conf
        self.database = config.database
        self.db = config.db
        self.stack_name = cloud_fixture.unique_name('vnf')

    def request(self, operation, placement, targets, **extra):
        return conductor_fixture.operation_request(
            self.stack_name, operation, placement, targets, **extra)

    def run_operation(self, body):
        endpoint = conductor_manager.ConductorManager(self.conf, 'test',
                                                      self.db)
        op = endpoint.create_operation(self._context(), request=body)
        # run here, to the end (run_operation hands it to a worker)
        return endpoint.drive(op['id'])

    def _context(self):
        return pe_context.get_admin_context(self.conf)

    def server_zones(self):
        """VNFC -> (server id, zone) of the servers of our stack."""
        conn = self.cloud.admin
        stack = conn.orchestration.find_stack(self.stack_name)
        out = {}
        for vnfc in conn.orchestration.resources(stack):
            if vnfc.resource_type != 'VDU.yaml':
                continue
            nested = conn.orchestration.get_stack(vnfc.physical_resource_id)
            server_id = next(
                res.physical_resource_id
                for res in conn.orchestration.resources(nested)
                if res.name == 'VDU')
            server = conn.compute.get_server(server_id)
            out[vnfc.name] = (server.id, server.availability_zone)
        return out
