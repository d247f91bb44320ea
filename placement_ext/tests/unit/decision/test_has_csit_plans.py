"""HAS's own CSIT plans (``csit/tests/has/data`` of optf-has, vendored
unchanged with their licence under
``placement_ext/tests/functional/homing/onap/csit``), solved as HAS's
CSIT expects over a public region whose A&AI flavors are like HAS's
simulator's: the HPA plans ``done`` with their flavors, the unmatched one
``not found``."""

import json
import os

import fixtures
import yaml

from placement_ext.conductor import homing
from placement_ext.tests.unit.cli import test_homing
from placement_ext.tests.unit.decision import test_has_hpa as hpa

CSIT = os.path.join(os.path.dirname(__file__), '..', '..', 'functional',
                    'homing', 'onap', 'csit')
PLANS = {'plan_with_hpa.json': 'done',
         'plan_with_hpa_requirements_mandatory.json': 'done',
         'plan_with_hpa_requirements_optionals.json': 'done',
         'plan_with_hpa_score_multi_objective.json': 'done',
         'plan_with_hpa_simple.json': 'done',
         'plan_with_hpa_unmatched.json': 'not found',
         'plan_with_vim_fit.json': 'done',
         'plan_with_lati_and_longi.json': 'done',
         'plan_with_short_distance_constraint.json': 'not found'}


def _basic(vcpus, memory_gb):
    return ('basicCapabilities',
            [('numVirtualCpu', f'{{value: {vcpus}}}'),
             ('virtualMemSize', f'{{value: {memory_gb}, unit: GB}}')])


NUMA = ('numa', [('numaNodes', '{value: 2}'), ('numaCpu-0', '{value: 2}'),
                 ('numaCpu-1', '{value: 4}'),
                 ('numaMem-0', '{value: 2, unit: GB}'),
                 ('numaMem-1', '{value: 4, unit: GB}')])
ISA = hpa.flavor('flavor-isa', _basic(8, 16), NUMA)
ISA['hpa-capabilities']['hpa-capability'].append({
    'hpa-feature': 'instructionSetExtensions', 'hpa-version': 'v1',
    'architecture': 'Intel64', 'hpa-feature-attributes': [
        {'hpa-attribute-key': 'instructionSetExtensions',
         'hpa-attribute-value': "{value: ['aes', 'sse', 'avx', 'smt']}"}]})
# a public region next to the CSIT customer (HAS's simulated region)
REGION = {'cloud_owner': 'HPA-cloud', 'region_id': 'cloud-region-1',
          'cloud_type': 'Azure', 'latitude': 45.39, 'longitude': -71.13,
          'flavors': [hpa.flavor('flavor-numa', _basic(64, 64), NUMA),
                      hpa.flavor('flavor-dpdk', _basic(32, 128), hpa.DPDK),
                      hpa.flavor('flavor-simple', _basic(32, 64),
                                 hpa.DPDK),
                      hpa.flavor('flavor-medium', _basic(8, 16)), ISA]}


class TestCsitPlans(test_homing.ServiceTestCase):

    def test_has_csit_plans(self):
        path = self.useFixture(fixtures.TempDir()).join('regions.yaml')
        with open(path, 'w') as stream:
            yaml.safe_dump([REGION], stream)
        conf = self.make_conf(regions_file=path)
        for name, expected in PLANS.items():
            with open(os.path.join(CSIT, name)) as stream:
                template = json.load(stream)['template']
            answer = homing.solve_plan(conf, template, 1,
                                       test_homing.FakeClients())
            self.assertEqual(expected, answer['status'],
                             f'{name}: {answer["message"]}')
            if expected == 'done' and 'hpa' in name:
                (solution,) = answer['recommendations']
                self.assertIn('flavor_map', solution['vG']['selection'],
                              name)
