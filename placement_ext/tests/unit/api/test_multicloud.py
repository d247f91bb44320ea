"""Multi-Cloud's capacity check and the intent API on the homing API, on
fake region clients: the VIMs with room, the realised template and
environment or the failure's reason, bad input and credentials."""

import base64
import functools

import yaml

from placement_ext.api import has
from placement_ext.api import multicloud
from placement_ext.conductor import multicloud as mc
from placement_ext.schemas import homing as schema
from placement_ext.tests.unit.api import test_has
from placement_ext.tests.unit.cli import test_homing

CHECK = '/api/multicloud/v0/check_vim_capacity'
INTENT = '/api/multicloud/v1/Owner/RegionOne/intent'
HA = {'content': {'vnfc': 'VDU', 'cloud-cost-evaluation': False,
                  'cloud-deployment-intent': {
                      schema.HIGH_AVAILABILITY: True}}}
SERVER = {'type': 'OS::Nova::Server', 'properties': {
    'flavor': {'get_param': 'vdu_flavor'}, 'image': 'img'}}
TEMPLATE = {'heat_template_version': '2021-04-16',
            'parameters': {'vdu_flavor': {'type': 'string'}},
            'resources': {'VDU': SERVER}}


MEDIUM = {'name': 'm1.medium', 'id': 'm', 'vcpus': 2, 'ram': 2048,
          'disk': 10, 'extra_specs': {}}
BURST25 = dict(MEDIUM, name='m1.medium.burst25', id='b', extra_specs={
    'placement_ext:oversubscription_percent': '25'})


class FlavorClients(test_homing.FakeClients):
    def nova(self, region):
        nova = super().nova(region)
        nova.flavors = lambda extra_specs=False: [MEDIUM, BURST25]
        return nova


class TestMultiCloud(test_has.ApiTestCase):

    def setUp(self):
        super().setUp()
        self.app = self.app_of()

    def app_of(self, **kwargs):
        return has.PlanApp(self.database.db, self.solver, **kwargs, routes=(
            multicloud.routes(
                functools.partial(mc.check_vim_capacity, self.conf,
                                  self.clients),
                functools.partial(mc.realize_in_region, self.conf,
                                  self.clients),
                public=kwargs.get('username') == 'open')))

    def test_the_vims_with_room_in_the_order_given(self):
        # FakeClients: RegionOne takes 6 m1.small-sized instances, the
        # quota 4; Far answers the same; Unknown is not in the file
        status, body, _ = self.call('POST', CHECK, {
            'vCPU': 2, 'Memory': 2, 'Storage': 10,
            'VIMs': ['Owner_Far', 'Unknown_X', 'Owner_RegionOne',
                     'Owner_Far']})
        self.assertEqual((200, {'VIMs': ['Owner_Far', 'Owner_RegionOne']}),
                         (status, body))
        self.clients.unreachable = ('Far',)
        status, body, _ = self.call('POST', CHECK, {
            'vCPU': 2, 'Memory': '2', 'Storage': 10,
            'VIMs': ['Owner_Far', 'Owner_RegionOne']})
        self.assertEqual({'VIMs': ['Owner_RegionOne']}, body)

    def test_bad_checks_are_refused_by_field(self):
        for body, field in (
                ({'vCPU': 0, 'Memory': 1, 'Storage': 1, 'VIMs': []}, 'vCPU'),
                ({'vCPU': 1, 'Memory': 'lots', 'Storage': 1, 'VIMs': []},
                 'Memory'),
                ({'vCPU': 1, 'Memory': 1, 'Storage': 1, 'VIMs': [
                    {'cloud-owner': 'Owner'}]}, 'VIMs[0]'),
                ({'vCPU': 1, 'Memory': 1, 'Storage': 1}, 'VIMs'),
                ({'vCPU': 1, 'Memory': 1, 'Storage': 1, 'VIMs': [],
                  'AZs': []}, 'AZs')):
            status, answer, _ = self.call('POST', CHECK, body)
            self.assertEqual((400, field),
                             (status, answer['error'].get('field')), answer)

    def test_credentials_unless_the_multicloud_apis_are_public(self):
        body = {'vCPU': 1, 'Memory': 1, 'Storage': 1, 'VIMs': []}
        app = self.app_of(username='osdf', password='pw')
        self.assertEqual(401, self.call('POST', CHECK, body, app=app)[0])
        auth = 'Basic ' + base64.b64encode(b'osdf:pw').decode()
        self.assertEqual(200, self.call('POST', CHECK, body, app=app,
                                        headers={'HTTP_AUTHORIZATION':
                                                 auth})[0])
        app = self.app_of(username='open', password='pw')
        self.assertEqual(200, self.call('POST', CHECK, body, app=app)[0])

    def test_intent_realised_in_the_template(self):
        status, body, _ = self.call('POST', INTENT, {
            'policy': HA, 'template': TEMPLATE})
        self.assertEqual((200, 'success'), (status, body['result']), body)
        self.assertEqual({'group': {'get_resource': 'VDU_anti_affinity'}},
                         body['template']['resources']['VDU'][
                             'properties']['scheduler_hints'])

    def test_isolation_switches_the_flavor_in_the_environment(self):
        policy = {'content': {'vnfc': 'VDU', 'cloud-cost-evaluation': False,
                              'cloud-deployment-intent': {
                                  schema.ISOLATION: schema.BURSTABLE_QOS,
                                  schema.OVERSUBSCRIPTION: 25}}}
        self.clients = FlavorClients()
        self.app = self.app_of()
        environment = yaml.safe_dump({'parameters': {'vdu_flavor':
                                                     'm1.medium'}})
        status, body, _ = self.call('POST', INTENT, {
            'policy': policy, 'template': yaml.safe_dump(TEMPLATE),
            'environment': environment})
        self.assertEqual((200, 'success'), (status, body['result']), body)
        self.assertEqual(TEMPLATE, yaml.safe_load(body['template']))
        self.assertEqual({'parameters': {'vdu_flavor': 'm1.medium.burst25'}},
                         yaml.safe_load(body['environment']))

    def test_failures_with_their_reason_and_unknown_regions(self):
        status, body, _ = self.call('POST', INTENT, {
            'policy': HA, 'template': dict(TEMPLATE, resources={})})
        self.assertEqual(200, status)
        self.assertEqual('failure', body['result'])
        self.assertIn('has no OS::Nova::Server for VNFC VDU', body['reason'])
        status, body, _ = self.call(
            'POST', '/api/multicloud/v1/Owner/Nowhere/intent',
            {'policy': HA, 'template': TEMPLATE})
        self.assertEqual(404, status)
        status, body, _ = self.call('POST', INTENT, {
            'policy': HA, 'template': '- not a mapping'})
        self.assertEqual((400, 'template'),
                         (status, body['error']['field']))

    def test_aliases_expanding_past_the_bound_are_refused(self):
        # nine levels of ten aliases each: 10**9 nodes once expanded
        lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
        lines += [f'a{i}: &a{i} [' + ', '.join([f'*a{i - 1}'] * 10) + ']'
                  for i in range(1, 10)]
        status, body, _ = self.call('POST', INTENT, {
            'policy': HA, 'template': '\n'.join(lines)})
        self.assertEqual((400, 'template'),
                         (status, body['error']['field']))
        self.assertIn('aliases repeat more than', body['error']['message'])
