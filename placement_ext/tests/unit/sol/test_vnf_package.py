"""VDU flavours read from a VNF package, and their Placement amounts."""

import io
import zipfile

import testtools
import yaml

from placement_ext import exception
from placement_ext.conductor import grant_inputs
from placement_ext.sol import vnf_package


def csar(nodes):
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w') as archive:
        archive.writestr('Definitions/df.yaml', yaml.safe_dump(
            {'topology_template': {'node_templates': nodes}}))
        archive.writestr('Definitions/notes.txt', 'not yaml: [')
        archive.writestr('BaseHOT/x.yaml', 'heat: {}')
    return out.getvalue()


def vdu(compute):
    return {'type': 'tosca.nodes.nfv.Vdu.Compute',
            'capabilities': {'virtual_compute': {'properties': compute}}}


class TestVduFlavours(testtools.TestCase):

    def test_flavour_name_as_tacker_reads_it_else_vcpus(self):
        found = vnf_package.vdu_flavours(csar({
            'VDU1': vdu({'requested_additional_capabilities': {
                'properties': {
                    'requested_additional_capability_name': 'vdu.small'}}}),
            'VDU2': vdu({'virtual_cpu': {'num_virtual_cpu': 2}}),
            'VDU3': vdu({}),
            'VL1': {'type': 'tosca.nodes.nfv.VnfVirtualLink'}}))
        self.assertEqual({'VDU1': {'flavor': 'vdu.small'},
                          'VDU2': {'vcpus': 2}, 'VDU3': {}}, found)

    def test_not_a_zip_is_refused(self):
        self.assertRaises(exception.InvalidInput, vnf_package.vdu_flavours,
                          b'nope')

    def test_amounts_from_novas_flavours(self):
        nova = [{'id': 'f1', 'name': 'vdu.small', 'vcpus': 1, 'ram': 512,
                 'disk': 0}]
        self.assertEqual(
            {'VDU1': {'VCPU': 1, 'MEMORY_MB': 512},
             'VDU2': {'VCPU': 2}, 'VDU4': {'VCPU': 1, 'MEMORY_MB': 512}},
            grant_inputs.flavour_amounts(
                {'VDU1': {'flavor': 'vdu.small'}, 'VDU2': {'vcpus': 2},
                 'VDU3': {'flavor': 'unknown'}, 'VDU4': {'flavor': 'f1'}},
                nova))
