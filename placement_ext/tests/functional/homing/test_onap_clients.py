"""Acceptance with ONAP's own code, run unchanged (vendored under
``onap/``) against placement-ext-homing-api on the embedded cloud,
capacity read from its Placement and Nova:

- OSDF's HAS client (``osdf/adapters/conductor/conductor.py``: its
  request builder from OSDF policies, its POST and polling) and its
  response processor (what SO receives) for a cloud-only vCPE request
  with vim_fit, distance_to_location, zone, attribute and hpa
  constraints and an hpa_score objective;
- HAS's multicloud plugin's capacity check (``check_vim_capacity``);
- the intent API as SO would call it.
"""

import copy
import json
import time
import types

import fixtures
import requests
from oslo_config import cfg
from oslo_config import fixture as config_fixture
from oslo_log import log as oslo_log

from placement_ext.schemas import homing as schema
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.conductor import base
from placement_ext.tests.functional.homing import api_process
from placement_ext.tests.functional.homing import onap_stubs

remote_opt_processor = onap_stubs.load(
    'apps.placement.optimizers.conductor.remote_opt_processor')
multicloud = onap_stubs.load(
    'conductor.data.plugins.vim_controller.multicloud')
conductor = onap_stubs.load('osdf.adapters.conductor.conductor')


def _flavor(*features):
    """vdu.small as A&AI lists it with HPA capabilities."""
    return {'flavor-name': cloud_fixture.FLAVOR, 'flavor-id': 'vdu-small',
            'hpa-capabilities': {'hpa-capability': [
                {'hpa-feature': feature, 'hpa-version': 'v1',
                 'architecture': 'generic', 'hpa-feature-attributes': [
                     {'hpa-attribute-key': key, 'hpa-attribute-value': value}
                     for key, value in attributes]}
                for feature, attributes in features]}}


BASIC = ('basicCapabilities', [('numVirtualCpu', '{value: 1}'),
                               ('virtualMemSize', '{value: 2, unit: GB}')])
DPDK = ('ovsDpdk', [('dataProcessingAccelerationLibrary',
                     '{value: v18.02}')])
# AZ-1 at the customer, AZ-2 300 km away with DPDK, AZ-3 900 km away
ZONES = {'AZ-1': (48.0, 'Paris-1', [BASIC]),
         'AZ-2': (50.7, 'Lille-1', [BASIC, DPDK]),
         'AZ-3': (56.1, 'Edinburgh-1', [BASIC, DPDK])}
REGIONS = [{'cloud_owner': 'MiniCloud', 'region_id': 'RegionOne',
            'cloud_type': 'OpenStack', 'latitude': latitude,
            'longitude': 2.0, 'availability_zone': zone,
            'physical_location_id': f'CLLI-{zone}',
            'cloud_region_version': '4.0', 'complex_name': complex_name,
            'flavors': [_flavor(*features)]}
           for zone, (latitude, complex_name, features)
           in sorted(ZONES.items())]


def policy(name, kind, resources, **properties):
    """An OSDF policy as OSDF's policy platform gives it."""
    return {f'OSDF.{name}': {
        'type': f'onap.policies.optimization.{kind}', 'version': '1.0.0',
        'type_version': '1.0.0', 'metadata': {'policy-id': name},
        'properties': dict({'scope': ['OSDF'], 'services': ['vCPE'],
                            'resources': resources, 'identity': name},
                           **properties)}}


def vim_fit(vcpus):
    return {'controller': 'multicloud', 'request': json.dumps({
        'vCPU': vcpus, 'Memory': {'quantity': 2, 'unit': 'GB'},
        'Storage': {'quantity': 1, 'unit': 'GB'}})}


HPA_VG = {'id': 'vg_1', 'type': 'vnfc', 'directives': [
    {'type': 'flavor_directives', 'attributes': [
        {'attribute_name': 'flavor_label_vg', 'attribute_value': ''}]}],
    'flavorProperties': [
        {'hpa-feature': 'basicCapabilities', 'hpa-version': 'v1',
         'architecture': 'generic', 'mandatory': True, 'directives': [],
         'hpa-feature-attributes': [
             {'hpa-attribute-key': 'numVirtualCpu',
              'hpa-attribute-value': '1', 'operator': '>=', 'unit': ''}]},
        {'hpa-feature': 'ovsDpdk', 'hpa-version': 'v1',
         'architecture': 'generic', 'mandatory': 'False', 'score': '10',
         'directives': [], 'hpa-feature-attributes': [
             {'hpa-attribute-key': 'dataProcessingAccelerationLibrary',
              'hpa-attribute-value': 'v18.02', 'operator': '=',
              'unit': ''}]}]}
DEMANDS = ('vG', 'vGMuxInfra')
POLICIES = [
    *(policy(f'vnfPolicy_{d}', 'resource.VnfPolicy', [d], vnfProperties=[
        {'inventoryProvider': 'aai', 'inventoryType': 'cloud',
         'serviceType': '', 'customerId': '', 'equipmentRole': ''}])
      for d in DEMANDS),
    policy('queryPolicy_vCPE', 'service.QueryPolicy', list(DEMANDS),
           queryProperties=[
               {'attribute': 'customerLatitude',
                'attribute_location': 'customerLatitude'},
               {'attribute': 'customerLongitude',
                'attribute_location': 'customerLongitude'}]),
    *(policy(f'Capacity_{d}', 'resource.Vim_fit', [d],
             capacityProperty=vim_fit(1)) for d in DEMANDS),
    *(policy(f'Distance_{d}', 'resource.DistancePolicy', [d],
             distanceProperties={'locationInfo': 'customer_loc',
                                 'distance': {'value': '500',
                                              'operator': '<',
                                              'unit': 'km'}})
      for d in DEMANDS),
    policy('Affinity_vCPE', 'resource.AffinityPolicy', list(DEMANDS),
           affinityProperties={'qualifier': 'different',
                               'category': 'complex'}),
    policy('Attribute_vG', 'resource.AttributePolicy', ['vG'],
           attributeProperties={
               'cloudVersion': {'any': ['4.0']}, 'cloudType': 'OpenStack',
               'networkRoles': {'all': ['', '']},
               'cloudRegion': {'serviceRequests': ['', ''],
                               'cloudRequests': ['', '']}}),
    policy('hpa_policy_vG', 'resource.HpaPolicy', ['vG'],
           flavorFeatures=[HPA_VG]),
    policy('Placement_Optimization', 'resource.OptimizationPolicy',
           list(DEMANDS), objective='minimize', objectiveParameter={
               'operator': 'sum', 'parameterAttributes': [
                   {'parameter': 'distance', 'weight': '1',
                    'resources': list(DEMANDS), 'operator': 'product',
                    'customerLocationInfo': 'customer_loc'},
                   {'parameter': 'hpa_score', 'weight': '100',
                    'resources': ['vG'], 'operator': 'product'}]}),
]


class _ShortSleeps:
    """OSDF's ``time``, its waits before polling cut to 0.2 s (10 s
    before the first poll, then conductorPingWaitTime)."""

    def __getattr__(self, name):
        return getattr(time, name)

    @staticmethod
    def sleep(seconds):
        time.sleep(min(seconds, 0.2))


class TestOnapClients(base.ConductorCloudTestCase):

    def setUp(self):
        super().setUp()
        self.url = api_process.start(
            self, self.config_file, REGIONS,
            'multicloud_without_credentials = true\n')
        in_onap_dir = onap_stubs.in_onap_dir()
        in_onap_dir.__enter__()
        self.addCleanup(in_onap_dir.__exit__, None, None, None)
        self.useFixture(fixtures.MonkeyPatch(
            'osdf.adapters.conductor.conductor.time', _ShortSleeps()))

    def osdf_request(self, policies):
        """OSDF's HAS client, as OSDF's placement worker calls it."""
        osdf_config = types.SimpleNamespace(core=onap_stubs.CORE, deployment={
            'conductorUrl': f'{self.url}/v1/plans',
            'conductorUsername': api_process.AUTH[0],
            'conductorPassword': api_process.AUTH[1],
            # OSDF counts its polls, not the time: 600 polls of (here)
            # 0.2 s, two minutes
            'conductorPingWaitTime': 1, 'conductorMaxRetries': 600})
        req_info = {'requestId': 'req-1', 'transactionId': 'tx-1',
                    'timeout': 600, 'numSolutions': 1,
                    'requestType': 'create'}
        demands = [{'resourceModuleName': name,
                    'serviceResourceId': f'{name}-resource',
                    'resourceModelInfo': {'modelInvariantId': 'inv',
                                          'modelVersionId': 'ver'}}
                   for name in DEMANDS]
        return conductor.request(
            req_info, demands,
            {'customerLatitude': 48.0, 'customerLongitude': 2.0},
            {'serviceName': 'vCPE', 'serviceInstanceId': 'svc-1'},
            {'location_enabled': True, 'version': '2017-10-10'},
            osdf_config, copy.deepcopy(policies))

    def test_osdf_gets_a_solved_plan_and_hands_so_the_region(self):
        response = self.osdf_request(POLICIES)
        (plan,) = response['plans']
        self.assertEqual('done', plan['status'], plan.get('message'))
        # vG: AZ-2's DPDK flavor is worth 100 x 10 more than 300 km;
        # vGMuxInfra: the nearest zone in another complex
        chosen = {name: rec['candidate']['availability_zone']
                  for name, rec in plan['recommendations'][0].items()}
        self.assertEqual({'vG': 'AZ-2', 'vGMuxInfra': 'AZ-1'}, chosen)
        self.assertIn('instance(s) of vdu.small fit in zone AZ-2 '
                      '(Placement)', plan['recommendations'][0]['vG'][
                          'selection']['capacity'])

        so = remote_opt_processor.conductor_response_processor(
            response, 'req-1', 'tx-1')
        self.assertEqual('completed', so['requestStatus'])
        (solutions,) = so['solutions']['placementSolutions']
        vg = next(s for s in solutions if s['resourceModuleName'] == 'vG')
        self.assertEqual({'identifierType': 'cloudRegionId',
                          'identifiers': ['RegionOne'],
                          'cloudOwner': 'MiniCloud'}, vg['solution'])
        info = {item['key']: item['value'] for item in vg['assignmentInfo']}
        self.assertEqual('CLLI-AZ-2', info['cloudClli'])
        self.assertEqual('RegionOne', info['locationId'])
        flavors = info['oof_directives']['directives'][0]['directives'][0]
        self.assertEqual(
            [{'attribute_name': 'flavor_label_vg',
              'attribute_value': cloud_fixture.FLAVOR},
             {'attribute_name': 'flavorId', 'attribute_value': 'vdu-small'}],
            flavors['attributes'])

        self._a_demand_no_zone_can_hold_is_not_found()

    def _a_demand_no_zone_can_hold_is_not_found(self):
        # (in the test above: one API process start less)
        policies = copy.deepcopy(POLICIES)
        for item in policies:
            (content,) = item.values()
            if content['properties']['identity'] == 'Capacity_vGMuxInfra':
                content['properties']['capacityProperty'] = vim_fit(16)
        (plan,) = self.osdf_request(policies)['plans']
        self.assertEqual('not found', plan['status'])
        self.assertIn('capacity: 1 instance(s) needed, 0 instance(s) of '
                      '16 vCPU, 2048 MB, 1 GB fit in zone AZ-1 (Placement)',
                      plan['message'])

    def test_has_multicloud_capacity_check_and_the_intent_api(self):
        conf = self.useFixture(config_fixture.Config(cfg.CONF))
        if 'debug' not in cfg.CONF:
            oslo_log.register_options(cfg.CONF)
        conf.config(group='multicloud', server_url=f'{self.url}/api/'
                                                   f'multicloud')
        plugin = multicloud.MULTICLOUD()
        plugin.initialize()

        def check(vcpus):
            return plugin.check_vim_capacity({
                'vCPU': vcpus, 'Memory': {'quantity': 2, 'unit': 'GB'},
                'Storage': {'quantity': 1, 'unit': 'GB'},
                'VIMs': ['Elsewhere_Region9', 'MiniCloud_RegionOne']})

        self.assertEqual(['MiniCloud_RegionOne'], check(1))
        self.assertEqual([], check(64))
        self._intent_api_realises_or_says_why_not()

    def _intent_api_realises_or_says_why_not(self):
        # (in the test above: one API process start less)
        template = {'heat_template_version': '2021-04-16', 'resources': {
            'VDU': {'type': 'OS::Nova::Server', 'properties': {
                'flavor': cloud_fixture.FLAVOR,
                'image': cloud_fixture.IMAGE}}}}
        url = f'{self.url}/api/multicloud/v1/MiniCloud/RegionOne/intent'

        def realise(intent):
            reply = requests.post(url, timeout=60, json={
                'policy': {'content': {
                    'vnfc': 'VDU', 'cloud-cost-evaluation': False,
                    'cloud-deployment-intent': intent}},
                'template': template})
            self.assertEqual(200, reply.status_code, reply.text)
            return reply.json()

        answer = realise({schema.HIGH_AVAILABILITY: True})
        self.assertEqual('success', answer['result'], answer)
        self.assertIn('VDU_anti_affinity', answer['template']['resources'])
        # the embedded cloud's flavors say no QoS: read from its Nova
        answer = realise({schema.ISOLATION: schema.GUARANTEED_QOS})
        self.assertEqual('failure', answer['result'])
        self.assertIn('the region has no flavor', answer['reason'])
