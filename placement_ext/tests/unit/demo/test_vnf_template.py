"""The demo's VNF template: the nested VDU's flavor is a parameter."""

import testtools
import yaml

from placement_ext.demo import vnf_template


class TestNestedVdu(testtools.TestCase):

    def test_default_is_the_small_flavor(self):
        self.assertEqual(vnf_template.NESTED_VDU, vnf_template.nested_vdu())
        self.assertEqual({'VDU.yaml': vnf_template.NESTED_VDU},
                         vnf_template.FILES)

    def test_flavor_reaches_the_server(self):
        nested = yaml.safe_load(vnf_template.files('vdu.large')['VDU.yaml'])
        server = nested['resources']['VDU']['properties']
        self.assertEqual('vdu.large', server['flavor'])
        self.assertEqual({'get_param': 'zone'}, server['availability_zone'])
