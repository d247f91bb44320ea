"""An anti-affinity server group that overflows a zone.

Nova's fault, verbatim: ``No valid host was found. There are not enough
hosts available.`` (code 500); through Heat::

    Resource CREATE failed: ResourceInError: resources.VDU2: Went to status
    ERROR due to "Message: No valid host was found. There are not enough
    hosts available., Code: 500"
"""

import re

from placement_ext.conf import v2_vnfm
from placement_ext.tests.functional.cloud import base

NOT_ENOUGH_HOSTS = ('No valid host was found. There are not enough hosts '
                    'available.')


class TestAntiAffinityOverflow(base.CloudTestCase):

    def test_third_member_in_two_host_zone_fails(self):
        admin = self.cloud.admin
        group = admin.compute.create_server_group(
            name='vdu-grp', policy='anti-affinity')
        servers = [self.cloud.boot_server('AZ-3', group=group.id)
                   for _ in range(3)]
        self.assertEqual(['ACTIVE', 'ACTIVE', 'ERROR'],
                         [s.status for s in servers])
        self.assertEqual(2, len({s.compute_host for s in servers[:2]}))
        self.assertEqual(500, servers[2].fault['code'])
        self.assertEqual(NOT_ENOUGH_HOSTS, servers[2].fault['message'])

    def test_heat_stack_with_one_usable_host(self):
        admin = self.cloud.admin
        host = self.cloud.zones['AZ-3'][1]['host']
        svc = next(admin.compute.services(binary='nova-compute', host=host))
        admin.compute.disable_service(svc, disabled_reason='test')
        stack = self.cloud.create_stack(self.cloud.demo, 'vdu.yaml',
                                        {'zone': 'AZ-3'})
        self.assertEqual('CREATE_FAILED', stack.status)
        self.assertEqual(
            'Resource CREATE failed: ResourceInError: resources.VDU2: Went '
            'to status ERROR due to "Message: ' + NOT_ENOUGH_HOSTS
            + ', Code: 500"', stack.status_reason)
        self.assertIsNotNone(re.search(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR,
                                       stack.status_reason))
