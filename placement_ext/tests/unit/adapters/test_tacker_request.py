"""Tacker's stack fields and VNFD rules as our operation request."""

import testtools

from placement_ext.adapters.tacker import request as tacker_request
from placement_ext.conductor import stack_request
from placement_ext.schemas import files

TEMPLATE = """heat_template_version: 2021-04-16
resources:
  VDU1-0: {type: VDU1.yaml}
"""
FLAVORS = [{'id': 'f1', 'name': 'vdu.small', 'vcpus': 1, 'ram': 512,
            'disk': 1}]


def vdu(zone, flavor='vdu.small'):
    return {'computeFlavourId': flavor, 'vcImageId': 'cirros',
            'locationConstraints': zone}


def fields():
    return {'template': TEMPLATE, 'files': {'VDU1.yaml': 'x: 1\n'},
            'parameters': {'nfv': {'VDU': {
                'VDU1-0': vdu('AZ-1'), 'VDU1-1': vdu('AZ-1'),
                'VDU2-0': vdu('AZ-1'), 'VDU2-1': vdu('AZ-2'),
                'VDU3': {'computeFlavourId': 'm1.unknown'}}}}}


def translate(**overrides):
    kwargs = {
        'operation': 'INSTANTIATE', 'vnf_instance_id': 'inst-1',
        'stack_name': 'vnf-inst-1', 'fields': fields(),
        'targets': ['VDU1-0', 'VDU1-1', 'VDU2-0', 'VDU2-1'],
        'rules': {'AFFINITY': [(['VDU1'], 'zone')],
                  'ANTI_AFFINITY': [(['VDU2'], 'zone'),
                                    (['VDU1', 'VDU2'], 'nfvi_node')]},
        'known_flavors': FLAVORS, 'grant_zones': ['AZ-2', 'AZ-1'],
        'best_effort': True}
    kwargs.update(overrides)
    return tacker_request.operation_request(**kwargs)


class TestOperationRequest(testtools.TestCase):

    def test_placement_is_every_vnfc_with_a_zone(self):
        request = translate()
        self.assertEqual({'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1',
                          'VDU2-0': 'AZ-1', 'VDU2-1': 'AZ-2'},
                         request['placement'])
        self.assertEqual(['AZ-1', 'AZ-2'], request['grant_zones'])

    def test_only_the_operations_vnfcs_are_targets(self):
        request = translate(operation='SCALE', targets=['VDU2-1', 'VDU9-0'])
        self.assertEqual(['VDU2-1'], request['targets'])

    def test_zone_rules_become_constraints_over_their_vnfcs(self):
        affinity, anti = translate()['constraints']
        self.assertEqual(
            ('AFFINITY', 'ZONE', ['VDU1-0', 'VDU1-1'], True),
            (affinity['affinityOrAntiAffinity'], affinity['scope'],
             [r['resourceId'] for r in affinity['resource']],
             affinity['fallbackBestEffort']))
        # the nfvi_node rule is Nova's (server groups): not ours
        self.assertEqual(['VDU2-0', 'VDU2-1'],
                         [r['resourceId'] for r in anti['resource']])

    def test_a_rule_over_one_vnfc_constrains_nothing(self):
        request = translate(rules={'ANTI_AFFINITY': [(['VDU3'], 'zone')]})
        self.assertEqual([], request['constraints'])

    def test_flavours_by_name_or_id(self):
        request = translate()
        self.assertEqual({'vcpus': 1, 'memory_mb': 512, 'disk_gb': 1},
                         request['flavors']['VDU1-0'])
        self.assertNotIn('VDU3', request['flavors'])

    def test_the_hot_text_becomes_a_template_with_a_string_version(self):
        request = translate()
        self.assertEqual('2021-04-16',
                         request['template']['heat_template_version'])
        self.assertEqual({'VDU1.yaml': 'x: 1\n'}, request['files'])

    def test_a_hot_text_with_an_alias_bomb_is_refused(self):
        # Tacker's HOT text is read with our bounded YAML loader
        bomb = 'a: &a [x, x, x, x, x, x, x, x, x, x]\n' + ''.join(
            f'{n}: &{n} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n'
            for p, n in zip('abcdefgh', 'bcdefghi', strict=True))
        bad = fields()
        bad['template'] = bomb
        self.assertRaises(files.AliasError, translate, fields=bad)

    def test_the_request_is_one_our_conductor_accepts(self):
        request = translate()
        self.assertIs(request, stack_request.validate(request))
        params = stack_request.stack_parameters(
            request, {**request['placement'], 'VDU1-0': 'AZ-3'})
        self.assertEqual('AZ-3', params['nfv']['VDU']['VDU1-0'][
            'locationConstraints'])
        self.assertEqual('cirros', params['nfv']['VDU']['VDU1-0'][
            'vcImageId'])

    def test_the_lcm_operation_occurrence_is_named_when_known(self):
        self.assertNotIn('lcm_op_occ_id', translate())
        request = translate(lcm_op_occ_id='occ-1')
        self.assertEqual('occ-1', request['lcm_op_occ_id'])
        self.assertIs(request, stack_request.validate(request))
