"""Cloud selection on the embedded cloud: regions modelled on its zones,
capacity read from the real Placement and the tenant's quota from the
real Nova; the realised template deployed by the real Heat spreads its
servers over hosts; the HAS plan API served by placement-ext-homing-api.
"""

import concurrent.futures
import socket

import oslo_messaging
import requests

from placement_ext import context as pe_context
from placement_ext import polling
from placement_ext.conductor import manager as conductor_manager
from placement_ext.schemas import homing as schema
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.conductor import base
from placement_ext.tests.functional.homing import api_process
from placement_ext.vocabulary import states

# the statuses a HAS plan ends in
FINAL = (states.PLAN_DONE, states.PLAN_NOT_FOUND, states.PLAN_ERROR)

# the customer is at AZ-1; AZ-2 is 300 km away, AZ-3 900 km
ZONE_COORDINATES = {'AZ-1': (48.0, 2.0), 'AZ-2': (50.7, 2.0),
                    'AZ-3': (56.1, 2.0)}
CUSTOMER = {'latitude': 48.0, 'longitude': 2.0}
HA_POLICY = {'content': {'vnfc': 'VDU', 'cloud-cost-evaluation': False,
                         'cloud-deployment-intent': {
                             schema.HIGH_AVAILABILITY: True}}}
TEMPLATE = {
    'heat_template_version': '2021-04-16',
    'parameters': {'zone': {'type': 'string'}},
    'resources': {'VDU': {'type': 'OS::Heat::ResourceGroup', 'properties': {
        'count': 2,
        'resource_def': {'type': 'OS::Nova::Server', 'properties': {
            'name': 'VDU-%index%', 'flavor': cloud_fixture.FLAVOR,
            'image': cloud_fixture.IMAGE,
            'availability_zone': {'get_param': 'zone'},
            'networks': [{'allocate_network': 'none'}]}}}}},
    'outputs': {'servers': {'value': {'get_attr': ['VDU', 'refs']}}},
}


def candidates(project=None):
    regions = []
    for zone, (latitude, longitude) in sorted(ZONE_COORDINATES.items()):
        region = {'cloud_owner': 'MiniCloud', 'region_id': 'RegionOne',
                  'cloud_type': 'OpenStack', 'latitude': latitude,
                  'longitude': longitude, 'availability_zone': zone}
        if project:
            region['project'] = project
        regions.append(region)
    return regions


class TestHoming(base.ConductorCloudTestCase):

    def setUp(self):
        super().setUp()
        self.conductor = conductor_manager.ConductorManager(
            self.conf, 'test', self.db)
        self.context = pe_context.get_admin_context(self.conf)

    def select(self, count=2, project=None):
        return self.conductor.select_cloud(self.context, request={
            'policy': HA_POLICY, 'candidates': candidates(project),
            'customer_location': CUSTOMER,
            'demand': {'flavor': cloud_fixture.FLAVOR, 'count': count}})

    def test_a_full_zone_is_dropped_and_the_realised_stack_spreads(self):
        self.cloud.fill_zone('AZ-1')
        result = self.select()
        self.assertEqual('AZ-2', result['selected']['region'][
            'availability_zone'])
        dropped = {d['region']: d['reason'] for d in result['dropped']}
        self.assertIn('capacity: 2 instance(s) needed, 0 instance(s) of '
                      'vdu.small fit in zone AZ-1 (Placement)',
                      dropped['MiniCloud_RegionOne/AZ-1'])
        self.assertEqual(['MiniCloud_RegionOne/AZ-2',
                          'MiniCloud_RegionOne/AZ-3'],
                         [r['region']['name'] for r in result['ranked']])
        # flavors, aggregates and quota once; Placement once per zone
        self.assertEqual({'nova': 3, 'placement': 3}, result['calls'])

        realised = self.conductor.realize_intent(
            self.context, policy=HA_POLICY, template=TEMPLATE)
        stack = self.cloud.demo.orchestration.create_stack(
            name=self.stack_name, template=realised['template'],
            parameters={'zone': 'AZ-2'})
        stack = self.cloud.wait_stack(self.cloud.demo, stack.id, 'CREATE')
        self.assertEqual('CREATE_COMPLETE', stack.status,
                         stack.status_reason)
        servers = [self.cloud.admin.compute.get_server(s)
                   for s in self._outputs(stack)['servers']]
        self.assertEqual({'AZ-2'}, {s.availability_zone for s in servers})
        self.assertEqual(2, len({s.compute_host for s in servers}))

    def test_the_tenants_quota_drops_a_region_with_room(self):
        demo = self.cloud.demo.current_project_id
        admin = self.cloud.admin
        before = admin.get_compute_quotas(demo)
        self.addCleanup(admin.set_compute_quotas, demo,
                        instances=before.instances)
        admin.set_compute_quotas(demo, instances=1)
        error = self.assertRaises(oslo_messaging.ExpectedException,
                                  self.select, 2, demo)
        reason = error.exc_info[1].detail
        self.assertIn('No candidate region can host the demand', reason)
        self.assertIn('4 instance(s) of vdu.small fit in zone AZ-1 '
                      '(Placement), the quota allows 1 (Nova)', reason)
        self.assertEqual('MiniCloud_RegionOne/AZ-1', self.select(
            1, demo)['selected']['region']['name'])

    def _outputs(self, stack):
        stack = self.cloud.demo.orchestration.get_stack(stack.id)
        return {o['output_key']: o['output_value'] for o in stack.outputs}


class TestPlanApi(base.ConductorCloudTestCase):
    """placement-ext-homing-api as operators run it, asked over HTTP."""

    # more configuration for the API process
    extra_config = ''

    def setUp(self):
        super().setUp()
        self.url = api_process.start(self, self.config_file, candidates(),
                                     self.extra_config)
        self.port = int(self.url.rsplit(':', 1)[1])

    def test_post_and_poll_a_plan(self):
        template = {
            'homing_template_version': '2017-10-10',
            'parameters': {'lat': 48.0, 'long': 2.0},
            'locations': {'customer_loc': {
                'latitude': {'get_param': 'lat'},
                'longitude': {'get_param': 'long'}}},
            'demands': {'vG': [{'inventory_provider': 'aai',
                                'inventory_type': 'cloud'}]},
            'constraints': {
                'near': {'type': 'distance_to_location', 'demands': ['vG'],
                         'properties': {'distance': '< 500 km',
                                        'location': 'customer_loc'}},
                'fit': {'type': 'vim_fit', 'demands': ['vG'], 'properties': {
                    'controller': 'multicloud', 'count': 5,
                    'request': {'vCPU': 1, 'Memory': {'quantity': 1,
                                                      'unit': 'GB'}}}}},
            'optimization': {'minimize': {'sum': [
                {'distance_between': ['customer_loc', 'vG']}]}}}
        auth = ('osdf', 's3cret')
        reply = requests.post(f'{self.url}/v1/plans', auth=auth, timeout=60,
                              json={'name': 'vG-plan', 'template': template,
                                    'limit': 2, 'timeout': 30})
        self.assertEqual(201, reply.status_code, reply.text)
        # HAS's answer: the plan as recorded, solved asynchronously
        self.assertEqual('template', reply.json()['status'])
        plan = self._final(reply.json()['id'])
        # 5 x 1 vCPU: no zone of 4 vCPUs holds them; AZ-3 is too far
        self.assertEqual('not found', plan['status'])
        self.assertIn('more than the 500 km allowed', plan['message'])
        self.assertIn('capacity: 5 instance(s) needed, 4 instance(s)',
                      plan['message'])

        template['constraints']['fit']['properties']['count'] = 2
        reply = requests.post(f'{self.url}/v1/plans', auth=auth, timeout=60,
                              json={'name': 'vG-plan', 'template': template,
                                    'limit': 2})
        plan_id = reply.json()['id']
        plan = self._final(plan_id)
        self.assertEqual('done', plan['status'])
        self.assertEqual(['AZ-1', 'AZ-2'],
                         [s['vG']['candidate']['availability_zone']
                          for s in plan['recommendations']])
        self.assertEqual(401, requests.get(f'{self.url}/v1/plans/{plan_id}',
                                           timeout=60).status_code)


        self._idle_clients_are_closed_and_a_crowd_is_answered()

    def _final(self, plan_id: str) -> dict:
        """The plan once solved (HAS's final statuses), polled as OSDF
        polls it."""
        def final():
            reply = requests.get(f'{self.url}/v1/plans/{plan_id}',
                                 auth=('osdf', 's3cret'), timeout=60)
            (plan,) = reply.json()['plans']
            return plan if plan['status'] in FINAL else None
        plan = polling.until(final, timeout=120, interval=0.5)
        self.assertIsNotNone(plan, f'plan {plan_id} was never solved')
        return plan

    def _idle_clients_are_closed_and_a_crowd_is_answered(self):
        # (in the plan's test: one API process start less)
        idle = socket.create_connection(('127.0.0.1', self.port), 60)
        self.addCleanup(idle.close)
        # api_client_timeout = 1: closed by the server, not held for ever
        self.assertEqual(b'', idle.recv(1))

        def version(_):
            return requests.get(f'{self.url}/', auth=('osdf', 's3cret'),
                                timeout=60).status_code

        with concurrent.futures.ThreadPoolExecutor(50) as pool:
            self.assertEqual([200] * 50, list(pool.map(version, range(50))))


class TestPlanApiKeystoneHung(TestPlanApi):
    """Keystone accepts connections and never answers: the plan ends at
    its own timeout, as ``error`` saying so."""

    def setUp(self):
        self.keystone = socket.socket()
        self.addCleanup(self.keystone.close)
        self.keystone.bind(('127.0.0.1', 0))
        self.keystone.listen(64)  # never accepted: connections hang
        auth_url = f'http://127.0.0.1:{self.keystone.getsockname()[1]}/v3'
        self.extra_config = ''.join(
            f'[{group}]\nauth_url = {auth_url}\n'
            for group in ('nova', 'placement'))
        super().setUp()

    def test_post_and_poll_a_plan(self):
        template = {
            'homing_template_version': '2017-10-10',
            'demands': {'vG': [{'inventory_provider': 'aai',
                                'inventory_type': 'cloud'}]},
            'constraints': {'fit': {
                'type': 'vim_fit', 'demands': ['vG'], 'properties': {
                    'controller': 'multicloud',
                    'request': {'vCPU': 1, 'Memory': {'quantity': 1,
                                                      'unit': 'GB'}}}}}}
        reply = requests.post(f'{self.url}/v1/plans', timeout=60,
                              auth=('osdf', 's3cret'),
                              json={'name': 'hung', 'template': template,
                                    'timeout': 2})
        self.assertEqual(201, reply.status_code, reply.text)
        plan = self._final(reply.json()['id'])
        self.assertEqual(('error', f'Plan {plan["id"]} is timed out, exceed '
                                   f'the expected time 2 seconds'),
                         (plan['status'], plan['message']))
