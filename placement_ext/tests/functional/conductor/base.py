"""Conductor tests on the embedded cloud: real Heat, Nova and Placement."""

import os

import fixtures
import testtools

from placement_ext import conf as pe_conf
from placement_ext import context as pe_context
from placement_ext.conductor import manager as conductor_manager
from placement_ext.demo import cloud_config
from placement_ext.demo import vnf_template
from placement_ext.objects import operation as op_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.functional.cloud import fixture as cloud_fixture


class ConductorCloudTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.cloud = cloud_fixture.use_cloud(self)
        # filling every zone takes more servers than the default quota
        admin = self.cloud.admin
        admin.set_compute_quotas(admin.current_project_id, instances=-1,
                                 cores=-1, ram=-1)
        tmp = self.useFixture(fixtures.TempDir()).path
        self.config_file = os.path.join(tmp, 'placement_ext.conf')
        sections = cloud_config.service_sections(self.cloud.clouds_yaml,
                                                 'admin')
        sections['DEFAULT'] = {'state_path': tmp}
        cloud_config.write(self.config_file, sections)
        self.conf = pe_conf.new_conf(['--config-file', self.config_file])
        self.database = self.useFixture(db_fixture.Database(conf=self.conf))
        self.db = self.database.db
        self.stack_name = cloud_fixture.unique_name('vnf')

    def request(self, operation, placement, targets, **extra):
        body = {'operation': operation, 'vnf_instance_id': self.stack_name,
                'stack_name': self.stack_name, 'placement': placement,
                'targets': targets,
                'flavors': {'VDU1': vnf_template.VDU_SMALL,
                            'VDU2': vnf_template.VDU_SMALL},
                'template': vnf_template.template(sorted(placement)),
                'files': vnf_template.FILES}
        body.update(extra)
        return body

    def run_operation(self, body):
        endpoint = conductor_manager.ConductorManager(self.conf, 'test',
                                                      self.db)
        op = endpoint.create_operation(self._context(), request=body)
        return op_obj.get(self.db, endpoint.run_operation(
            self._context(), operation_id=op['id'])['id'])

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
