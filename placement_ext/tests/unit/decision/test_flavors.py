"""The one flavor-to-resources mapping, in both shapes."""

import testtools

from placement_ext.decision import flavors

NOVA = {'id': 'f1', 'name': 'm1.small', 'vcpus': 2, 'ram': 2048,
        'disk': 0}


class TestFlavors(testtools.TestCase):

    def test_nova_flavor_without_the_zero_amounts(self):
        self.assertEqual({'VCPU': 2, 'MEMORY_MB': 2048},
                         flavors.resources(NOVA))

    def test_request_size_gives_the_same_resources(self):
        self.assertEqual(flavors.resources(NOVA),
                         flavors.resources(flavors.size(NOVA)))
        self.assertEqual({'vcpus': 2, 'memory_mb': 2048, 'disk_gb': 0},
                         flavors.size(NOVA))

    def test_found_by_name_or_id(self):
        found = flavors.by_name_or_id([NOVA])
        self.assertIs(found['f1'], found['m1.small'])
        self.assertEqual({}, flavors.by_name_or_id([]))
