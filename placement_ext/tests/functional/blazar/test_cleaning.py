"""Blazar's ``cleaning_time`` between instance slots, on the real
blazar-manager: as upstream widens a new reservation's period by it on
each side before counting what overlaps, a lease that starts within
``cleaning_time`` of the end of one filling the hosts is refused, and
one that starts after it is accepted."""

import datetime

from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.cloud import fixture as cloud_fixture


class TestCleaningTime(base.BlazarTestCase):

    def lease(self, start, amount):
        return self.demo.lease.create(
            cloud_fixture.unique_name('clean'), start.strftime(base.DATE),
            (start + datetime.timedelta(hours=1)).strftime(base.DATE),
            [{'resource_type': 'virtual:instance', 'amount': amount,
              'vcpus': 1, 'memory_mb': 512, 'disk_gb': 1,
              'affinity': 'None', 'resource_properties': ''}], [])

    def test_a_lease_within_cleaning_time_of_another_is_refused(self):
        start = (datetime.datetime.utcnow() + datetime.timedelta(days=1)
                 ).replace(minute=0, second=0, microsecond=0)
        after = start + datetime.timedelta(hours=1)
        with self.manager_conf('cleaning', '[DEFAULT]\ncleaning_time = 60\n'):
            # four one-vCPU slots fill the two 2-vCPU hosts, 1 h long
            self.lease(start, 4)
            exc = self.assertRaises(
                base.blazar_exc.BlazarClientException, self.lease,
                after + datetime.timedelta(minutes=30), 1)
            self.assertIn('not enough capacity', str(exc))
            self.lease(after + datetime.timedelta(minutes=61), 1)
