"""Heat's real failure texts when a zone is full, and the reselection step.

Texts seen on the embedded cloud (nova 34, heat 27), verbatim:

create, plain VDU (vdu.yaml)::

    Resource CREATE failed: ResourceInError: resources.VDU1: Went to status
    ERROR due to "Message: No valid host was found. , Code: 500"

update adding a template resource (top.yaml -> nested_VDU.yaml)::

    Resource CREATE failed: ResourceInError: resources.VDU1-1.resources.VDU:
    Went to status ERROR due to "Message: No valid host was found. ,
    Code: 500"

update growing an OS::Heat::ResourceGroup (group.yaml)::

    Resource UPDATE failed: resources.VDU1: Resource CREATE failed:
    ResourceInError: resources[0].resources.VDU: Went to status ERROR due to
    "Message: No valid host was found. , Code: 500"

(each on one line; the space before the comma is Nova's).
"""

import re

from placement_ext.conf import v2_vnfm
from placement_ext.tests.functional.cloud import base

NOVA_NO_VALID_HOST = ('Went to status ERROR due to "Message: No valid host '
                      'was found. , Code: 500"')
CREATE_FAILED_TEXT = ('Resource CREATE failed: ResourceInError: '
                      'resources.VDU1: ' + NOVA_NO_VALID_HOST)
NESTED_FAILED_TEXT = ('Resource CREATE failed: ResourceInError: '
                      'resources.VDU1-1.resources.VDU: ' + NOVA_NO_VALID_HOST)
GROUP_FAILED_TEXT = ('Resource UPDATE failed: resources.VDU1: Resource '
                     'CREATE failed: ResourceInError: '
                     'resources[0].resources.VDU: ' + NOVA_NO_VALID_HOST)
NESTED = ('nested_VDU.yaml',)


def _outputs(stack) -> dict:
    return {o['output_key']: o['output_value'] for o in stack.outputs or []}


class TestStackInFullZone(base.CloudTestCase):

    def assertIsCapacityError(self, reason):
        self.assertIsNotNone(
            re.search(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR, reason),
            f'placement_az_resource_error does not match {reason!r}')

    def test_create_in_full_zone_fails_with_no_valid_host(self):
        self.cloud.fill_zone('AZ-1')
        stack = self.cloud.create_stack(self.cloud.demo, 'vdu.yaml',
                                        {'zone': 'AZ-1'})
        self.assertEqual('CREATE_FAILED', stack.status)
        self.assertEqual(CREATE_FAILED_TEXT, stack.status_reason)
        self.assertIsCapacityError(stack.status_reason)

    def test_update_into_another_zone_after_failure(self):
        # the basic reselection step: same stack, next zone
        self.cloud.fill_zone('AZ-1')
        demo = self.cloud.demo
        stack = self.cloud.create_stack(demo, 'vdu.yaml', {'zone': 'AZ-1'})
        self.assertEqual('CREATE_FAILED', stack.status)
        stack = self.cloud.update_stack(demo, stack, 'vdu.yaml',
                                        {'zone': 'AZ-2'})
        self.assertEqual('UPDATE_COMPLETE', stack.status)
        self.assertEqual(['AZ-2', 'AZ-2'], _outputs(stack)['zones'])

    def test_nested_scale_out_into_full_zone(self):
        demo = self.cloud.demo
        stack = self.cloud.create_stack(demo, 'top.yaml', {'zone0': 'AZ-2'},
                                        files=NESTED)
        self.assertEqual('CREATE_COMPLETE', stack.status)
        self.cloud.fill_zone('AZ-1')
        stack = self.cloud.update_stack(
            demo, stack, 'top.yaml',
            {'zone0': 'AZ-2', 'zone1': 'AZ-1', 'n': 2}, files=NESTED)
        self.assertEqual('UPDATE_FAILED', stack.status)
        self.assertEqual(NESTED_FAILED_TEXT, stack.status_reason)
        self.assertIsCapacityError(stack.status_reason)
        # reselect only the failed VDU's zone
        stack = self.cloud.update_stack(
            demo, stack, 'top.yaml',
            {'zone0': 'AZ-2', 'zone1': 'AZ-3', 'n': 2}, files=NESTED)
        self.assertEqual('UPDATE_COMPLETE', stack.status)

    def test_resource_group_scale_out_into_full_zone(self):
        demo = self.cloud.demo
        stack = self.cloud.create_stack(
            demo, 'group.yaml', {'zone': 'AZ-1', 'count': 0}, files=NESTED)
        self.assertEqual('CREATE_COMPLETE', stack.status)
        self.cloud.fill_zone('AZ-1')
        stack = self.cloud.update_stack(
            demo, stack, 'group.yaml', {'zone': 'AZ-1', 'count': 1},
            files=NESTED)
        self.assertEqual('UPDATE_FAILED', stack.status)
        self.assertEqual(GROUP_FAILED_TEXT, stack.status_reason)
        self.assertIsCapacityError(stack.status_reason)
