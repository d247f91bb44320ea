"""Heat's default action_retry_limit (5) does not hide the failure.

The cloud runs heat-engine with action_retry_limit 0 (a failed server
fails its stack at once). Here heat-engine is restarted with Heat's
default 5, as most real clouds run: Heat deletes and re-creates the
ERROR server five times before giving up, which takes about 70-90 s
here, and the final reason is still Nova's "No valid host".
"""

import re
import time

from testtools import content

from placement_ext.conf import v2_vnfm
from placement_ext.tests.functional.cloud import base
from placement_ext.tests.functional.cloud import fixture


class TestHeatDefaultRetries(base.CloudTestCase):

    def test_failure_surfaces_after_heat_retries(self):
        self.useFixture(fixture.HeatRetries(5))
        self.cloud.fill_zone('AZ-1')
        start = time.monotonic()
        stack = self.cloud.create_stack(self.cloud.demo, 'vdu.yaml',
                                        {'zone': 'AZ-1'})
        elapsed = time.monotonic() - start
        self.addDetail('stack-failure-seconds',
                       content.text_content(f'{elapsed:.1f}'))
        self.assertEqual('CREATE_FAILED', stack.status)
        self.assertIn('No valid host was found', stack.status_reason)
        self.assertIsNotNone(re.search(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR,
                                       stack.status_reason))
