"""The HAS plan API as a WSGI application: plans solved on fake region
clients and stored in a real (SQLite) database, HAS's shapes, errors,
authentication, and the exposure rule of placement-ext-homing-api."""

import base64
import copy
import datetime
import io
import json

import fixtures
import testtools
import yaml
from oslo_config import fixture as config_fixture

from placement_ext import exception
from placement_ext.api import has
from placement_ext.cmd import homing_api
from placement_ext.conductor import homing
from placement_ext.db import models
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.unit.cli import test_homing
from placement_ext.tests.unit.decision import test_has_plan
from placement_ext.vocabulary import states

REGIONS = [
    {'cloud_owner': 'Owner', 'region_id': 'RegionOne',
     'cloud_type': 'OpenStack', 'latitude': 45.4, 'longitude': -71.2,
     'availability_zone': 'AZ-1'},
    {'cloud_owner': 'Owner', 'region_id': 'RegionOne',
     'cloud_type': 'OpenStack', 'latitude': 45.6, 'longitude': -71.0,
     'availability_zone': 'AZ-2'},
    {'cloud_owner': 'Owner', 'region_id': 'Far', 'cloud_type': 'OpenStack',
     'latitude': 10.0, 'longitude': 10.0},
]


def size_template(vcpus=2, memory_gb=2, count=None):
    template = copy.deepcopy(test_has_plan.TEMPLATE)
    fit = template['constraints']['check_cloud_capacity']['properties']
    fit['request'] = {'vCPU': vcpus, 'Memory': {'quantity': memory_gb,
                                                'unit': 'GB'},
                      'Storage': {'quantity': 10, 'unit': 'GB'}}
    if count:
        fit['count'] = count
    return template


class ApiTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.database = self.useFixture(db_fixture.Database())
        self.conf = self.database.conf
        tmp = self.useFixture(fixtures.TempDir()).path
        regions = f'{tmp}/regions.yaml'
        with open(regions, 'w') as stream:
            yaml.safe_dump(REGIONS, stream)
        self.config = self.useFixture(config_fixture.Config(self.conf))
        self.config.config(group='homing', regions_file=regions)
        self.clients = test_homing.FakeClients()
        self.app = has.PlanApp(self.database.db, self.solve)

    def solve(self, template, limit, deadline=None):
        return homing.solve_plan(self.conf, template, limit, self.clients,
                                 deadline)

    def call(self, method, path, body=None, headers=None, app=None):
        raw = body if isinstance(body, bytes) else \
            json.dumps(body).encode() if body is not None else b''
        environ = {'REQUEST_METHOD': method, 'PATH_INFO': path,
                   'wsgi.input': io.BytesIO(raw),
                   'CONTENT_LENGTH': str(len(raw)),
                   'wsgi.url_scheme': 'http', 'HTTP_HOST': 'homing:8091'}
        environ.update(headers or {})
        replies = []

        def start_response(status, response_headers):
            replies.append((int(status.split()[0]), dict(response_headers)))

        payload = b''.join((app or self.app)(environ, start_response))
        status, response_headers = replies[0]
        return status, json.loads(payload), response_headers


class TestPlans(ApiTestCase):

    def test_post_then_get_a_plan(self):
        status, body, _ = self.call('POST', '/v1/plans', {
            'name': 'vCPE-Sanity1', 'template': size_template(),
            'timeout': 5, 'limit': 3})
        self.assertEqual(201, status)
        plan = body['plan']
        self.assertEqual('done', plan['status'])
        self.assertEqual(
            [[{'href': f'http://homing:8091/v1/plans/{plan["id"]}',
               'rel': 'self'}]], plan['links'])
        # Far is 6,000 km away (< 100 km asked); AZ-1 is nearer than AZ-2
        self.assertEqual(['Owner_RegionOne/AZ-1', 'Owner_RegionOne/AZ-2'],
                         [s['vG']['candidate']['candidate_id']
                          for s in plan['recommendations']])
        self.assertIn('more than the 100 km allowed',
                      plan['dropped']['vG'][0]['reason'])
        status, body, _ = self.call('GET', f'/v1/plans/{plan["id"]}')
        self.assertEqual(200, status)
        self.assertEqual([plan], body['plans'])

    def test_no_region_left_is_not_found_with_every_reason(self):
        status, body, _ = self.call('POST', '/v1/plans', {
            'name': 'big', 'template': size_template(count=50)})
        self.assertEqual(201, status)
        plan = body['plan']
        self.assertEqual('not found', plan['status'])
        self.assertEqual([], plan['recommendations'])
        self.assertIn('demand vG: Owner_RegionOne/AZ-1: capacity',
                      plan['message'])

    def test_a_template_we_cannot_honour_is_an_error_plan(self):
        template = size_template()
        template['constraints']['hpa'] = {'type': 'hpa', 'demands': ['vG']}
        status, body, _ = self.call('POST', '/v1/plans', {
            'name': 'hpa', 'template': template, 'id': 'plan-1'})
        self.assertEqual((201, 'error'), (status, body['plan']['status']))
        self.assertIn('template.constraints.hpa.type',
                      body['plan']['message'])
        self.assertEqual('plan-1', body['plan']['id'])

    def test_missing_regions_file_is_an_error_plan(self):
        self.config.config(group='homing', regions_file=None)
        status, body, _ = self.call('POST', '/v1/plans', {
            'name': 'x', 'template': size_template()})
        self.assertEqual('error', body['plan']['status'])
        self.assertIn('[homing] regions_file', body['plan']['message'])

    def test_bad_bodies(self):
        for body, field in ((b'{', 'body'), ({'template': {}}, 'name'),
                            ({'name': 'x', 'template': {}, 'limit': 0},
                             'limit'),
                            ({'name': 'x', 'template': {}, 'id': 'a/b'},
                             'id')):
            status, reply, _ = self.call('POST', '/v1/plans', body)
            self.assertEqual(400, status, body)
            self.assertEqual(field, reply['error']['field'])

    def test_reusing_a_plan_id_conflicts(self):
        body = {'name': 'x', 'template': size_template(), 'id': 'same'}
        self.assertEqual(201, self.call('POST', '/v1/plans', body)[0])
        self.assertEqual(409, self.call('POST', '/v1/plans', body)[0])

    def test_unknown_plan_path_and_method(self):
        self.assertEqual(404, self.call('GET', '/v1/plans/nope')[0])
        self.assertEqual(404, self.call('GET', '/v2')[0])
        status, _, headers = self.call('DELETE', '/v1/plans/x')
        self.assertEqual((405, 'GET'), (status, headers['Allow']))
        status, body, _ = self.call('GET', '/')
        self.assertEqual('v1', body['versions'][0]['id'])

    def test_an_unexpected_solver_failure_ends_the_plan(self):
        def broken(template, limit, deadline):
            raise KeyError('boom')

        app = has.PlanApp(self.database.db, broken)
        status, body, _ = self.call('POST', '/v1/plans', {
            'name': 'x', 'template': {}}, app=app)
        self.assertEqual(201, status)
        self.assertEqual(('error', 'unexpected error: KeyError'),
                         (body['plan']['status'], body['plan']['message']))

    def test_a_plan_left_solving_reads_as_error(self):
        with self.database.db.writer() as session:
            session.add(models.HomingPlan(
                id='old', name='x', template={}, solution_limit=1,
                status=states.PLAN_SOLVING,
                created_at=models.utcnow() - datetime.timedelta(hours=2)))
        status, body, _ = self.call('GET', '/v1/plans/old')
        self.assertEqual('error', body['plans'][0]['status'])
        self.assertIn('submit it again', body['plans'][0]['message'])


class TestAuthentication(ApiTestCase):

    def setUp(self):
        super().setUp()
        self.app = has.PlanApp(self.database.db, self.solve,
                               username='osdf', password='s3cret')

    def basic(self, text):
        return {'HTTP_AUTHORIZATION':
                'Basic ' + base64.b64encode(text.encode()).decode()}

    def test_credentials_are_required(self):
        for headers in ({}, self.basic('osdf:wrong'), self.basic('x:s3cret'),
                        {'HTTP_AUTHORIZATION': 'Basic !!!'}):
            status, body, response = self.call('GET', '/', headers=headers)
            self.assertEqual(401, status)
            self.assertIn('Basic', response['WWW-Authenticate'])
        self.assertEqual(200, self.call(
            'GET', '/', headers=self.basic('osdf:s3cret'))[0])


class TestExposure(testtools.TestCase):

    def test_credentials_needed_off_loopback(self):
        conf = self.useFixture(db_fixture.Database()).conf
        config = self.useFixture(config_fixture.Config(conf))
        homing_api.check_exposure(conf)  # 127.0.0.1 by default
        config.config(group='homing', api_host='0.0.0.0')
        error = self.assertRaises(exception.InvalidInput,
                                  homing_api.check_exposure, conf)
        self.assertEqual('[homing] api_username', error.field)
        config.config(group='homing', api_username='u', api_password='p')
        homing_api.check_exposure(conf)
