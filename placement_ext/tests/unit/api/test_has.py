"""The HAS plan API as a WSGI application: plans stored in a real (SQLite)
database and solved asynchronously by plan solvers on fake region
clients; HAS's shapes and statuses, errors, authentication, plans taken
up again after their process stopped, and the exposure rule of
placement-ext-homing-api."""

import base64
import copy
import datetime
import io
import json
import threading
import time
from unittest import mock

import fixtures
import testtools
import yaml
from oslo_config import fixture as config_fixture

from placement_ext import exception
from placement_ext.api import has
from placement_ext.api import plan_solver
from placement_ext.cmd import homing_api
from placement_ext.conductor import homing
from placement_ext.db import models
from placement_ext.objects import plan as plan_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.unit.cli import test_homing
from placement_ext.tests.unit.decision import test_has_plan
from placement_ext.vocabulary import states

REGIONS = [
    {'cloud_owner': 'Owner', 'region_id': 'RegionOne',
     'cloud_type': 'OpenStack', 'latitude': 45.4, 'longitude': -71.2,
     'availability_zone': 'AZ-1', 'physical_location_id': 'MTLQC01',
     'cloud_region_version': '4.0'},
    {'cloud_owner': 'Owner', 'region_id': 'RegionOne',
     'cloud_type': 'OpenStack', 'latitude': 45.6, 'longitude': -71.0,
     'availability_zone': 'AZ-2', 'physical_location_id': 'MTLQC01',
     'cloud_region_version': '4.0'},
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


FINAL = ('done', 'not found', 'error')


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
        self.solver = self.solver_of(self.solve)
        self.app = has.PlanApp(self.database.db, self.solver)

    def solver_of(self, solve, workers=2, owner=None):
        solver = plan_solver.PlanSolver(self.database.db, solve,
                                        workers=workers, interval=0.05,
                                        owner=owner)
        solver.start()
        self.addCleanup(solver.wait)
        self.addCleanup(solver.stop)
        return solver

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

    def post(self, body, app=None):
        status, plan, _ = self.call('POST', '/v1/plans', body, app=app)
        self.assertEqual((201, 'template'), (status, plan['status']), plan)
        return plan

    def final(self, plan_id, timeout=20):
        """The plan once it reached a final status."""
        end = time.monotonic() + timeout
        while True:
            status, body, _ = self.call('GET', f'/v1/plans/{plan_id}')
            self.assertEqual(200, status, body)
            plan = body['plans'][0]
            if plan['status'] in FINAL or time.monotonic() > end:
                return plan
            time.sleep(0.02)


class TestPlans(ApiTestCase):

    def test_post_answers_template_then_get_is_solved(self):
        plan = self.post({'name': 'vCPE-Sanity1', 'template': size_template(),
                          'timeout': 5, 'num_solution': '3'})
        link = [[{'href': f'http://homing:8091/v1/plans/{plan["id"]}',
                  'rel': 'self'}]]
        # HAS's POST answer: the bare plan, nothing more
        self.assertEqual({'name': 'vCPE-Sanity1', 'id': plan['id'],
                          'status': 'template', 'links': link}, plan)
        solved = self.final(plan['id'])
        self.assertEqual('done', solved['status'])
        self.assertEqual(link, solved['links'])
        self.assertNotIn('message', solved)  # HAS leaves an empty one out
        # Far is 6,000 km away (< 100 km asked); AZ-1 is nearer than AZ-2
        self.assertEqual(['AZ-1', 'AZ-2'],
                         [s['vG']['candidate']['availability_zone']
                          for s in solved['recommendations']])
        self.assertIn('more than the 100 km allowed',
                      solved['dropped']['vG'][0]['reason'])

    def test_num_solution_and_limit_bound_the_solutions(self):
        for body, count in (({'num_solution': '1'}, 1),
                            ({'num_solution': 2}, 2),
                            ({'limit': 1}, 1), ({}, 1)):
            plan = self.post(dict(body, name='n', template=size_template()))
            self.assertEqual(count, len(
                self.final(plan['id'])['recommendations']), body)

    def test_the_status_goes_as_has(self):
        seen = []
        advance, finish = plan_obj.advance, plan_obj.finish

        def record_advance(database, plan_id, owner, status):
            seen.append(status)
            return advance(database, plan_id, owner, status)

        def record_finish(database, plan_id, owner, **kwargs):
            seen.append(kwargs['status'])
            return finish(database, plan_id, owner, **kwargs)

        self.useFixture(fixtures.MonkeyPatch(
            'placement_ext.objects.plan.advance', record_advance))
        self.useFixture(fixtures.MonkeyPatch(
            'placement_ext.objects.plan.finish', record_finish))
        plan = self.post({'name': 'x', 'template': size_template()})
        self.assertEqual('done', self.final(plan['id'])['status'])
        self.assertEqual(['translated', 'solving', 'solved', 'done'], seen)

    def test_no_region_left_is_not_found_with_every_reason(self):
        plan = self.final(self.post({
            'name': 'big', 'template': size_template(count=50)})['id'])
        self.assertEqual('not found', plan['status'])
        self.assertNotIn('recommendations', plan)
        self.assertRegex(plan['message'],
                         f'^Plan {plan["id"]} search failed, no '
                         f'recommendations found by machine .*: demand vG: '
                         f'Owner_RegionOne/AZ-1: capacity')

    def test_a_template_we_cannot_honour_is_an_error_plan(self):
        template = size_template()
        template['constraints']['license'] = {'type': 'license',
                                              'demands': ['vG']}
        self.post({'name': 'license', 'template': template, 'id': 'plan-1'})
        plan = self.final('plan-1')
        self.assertEqual('error', plan['status'])
        self.assertIn('template.constraints.license.type', plan['message'])

    def test_missing_regions_file_is_an_error_plan(self):
        self.config.config(group='homing', regions_file=None)
        plan = self.final(self.post({'name': 'x',
                                     'template': size_template()})['id'])
        self.assertEqual('error', plan['status'])
        self.assertIn('[homing] regions_file', plan['message'])

    def test_bad_bodies(self):
        for body, field in ((b'{', 'body'), ({'template': {}}, 'name'),
                            ({'name': 'x', 'template': {}, 'limit': 0},
                             'limit'),
                            ({'name': 'x', 'template': {},
                              'num_solution': 'all'}, 'num_solution'),
                            ({'name': 'x', 'template': {},
                              'num_solution': '0'}, 'num_solution'),
                            ({'name': 'x', 'template': {},
                              'template_url': 'http://x'}, 'template_url'),
                            ({'name': 'x', 'template': {},
                              'files': {'a': 'b'}}, 'files'),
                            ({'name': 'x', 'template': {}, 'id': 'a/b'},
                             'id')):
            status, reply, _ = self.call('POST', '/v1/plans', body)
            self.assertEqual(400, status, body)
            self.assertEqual(field, reply['error']['field'], body)
        # OSDF's own fields are taken
        self.post({'name': 'x', 'template': size_template(), 'files': {},
                   'num_solution': '1', 'timeout': 600})

    def test_reusing_a_plan_id_conflicts(self):
        body = {'name': 'x', 'template': size_template(), 'id': 'same'}
        self.post(body)
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

        self.solver.stop()  # the broken solver alone takes plans
        app = has.PlanApp(self.database.db, self.solver_of(broken))
        plan = self.final(self.post({'name': 'x',
                                     'template': size_template()},
                                    app=app)['id'])
        self.assertEqual(('error', 'unexpected error: KeyError'),
                         (plan['status'], plan['message']))

    def two_demands(self, **constraints):
        template = size_template()
        del template['constraints']['constraint_vg_customer']
        template['demands']['vDNS'] = [{'inventory_provider': 'aai',
                                        'inventory_type': 'cloud'}]
        template['constraints']['check_cloud_capacity']['demands'] = [
            'vG', 'vDNS']
        template['constraints'].update(constraints)
        return template

    def test_zone_constraints_tie_the_demands(self):
        # vG ranks AZ-1, AZ-2 (of RegionOne), then Far
        cases = [
            ('same', {('RegionOne/AZ-1', 'RegionOne/AZ-1'),
                      ('RegionOne/AZ-1', 'RegionOne/AZ-2')}),
            ('different', {('RegionOne/AZ-1', 'Far/None'),
                           ('RegionOne/AZ-2', 'Far/None')}),
        ]
        for qualifier, regions in cases:
            template = self.two_demands(apart={
                'type': 'zone', 'demands': ['vG', 'vDNS'],
                'properties': {'category': 'region',
                               'qualifier': qualifier}})
            plan = self.final(self.post({
                'name': 'z', 'template': template,
                'num_solution': '2'})['id'])
            self.assertEqual(regions, {
                tuple('{candidate_id}/{zone}'.format(
                    zone=s[d]['candidate'].get('availability_zone'),
                    **s[d]['candidate']) for d in ('vG', 'vDNS'))
                for s in plan['recommendations']}, qualifier)

    def test_attribute_constraint_over_the_regions(self):
        template = self.two_demands(
            clli={'type': 'attribute', 'demands': 'vG', 'properties': {
                'evaluate': {'cloud-region': {'cloud-requests': ['Far']},
                             'hypervisor': None}}})
        plan = self.final(self.post({'name': 'a', 'template': template})[
            'id'])
        (solution,) = plan['recommendations']
        self.assertEqual('Far', solution['vG']['candidate']['candidate_id'])
        self.assertIn("attribute constraint clli: cloud-region is "
                      "'RegionOne', not any of ['Far']",
                      plan['dropped']['vG'][0]['reason'])

    def test_healthcheck_fails_without_its_database(self):
        self.useFixture(fixtures.MonkeyPatch(
            'placement_ext.db.api.Database.reader',
            mock.Mock(side_effect=RuntimeError('down'))))
        status, body, _ = self.call('GET', '/v1/plans/healthcheck')
        self.assertEqual(503, status)


class TestSolvers(ApiTestCase):
    """Plans live in the database: any process's solvers take a plan
    nobody solves, and a plan whose process stopped is solved again or
    ends error, never left solving."""

    def add(self, plan_id, **values):
        now = models.utcnow()
        row = dict(id=plan_id, name='x', template=size_template(),
                   solution_limit=1, status='solving', timeout=60,
                   attempts=1, owner='dead:1', created_at=now,
                   heartbeat_at=now - datetime.timedelta(minutes=5),
                   deadline_at=now + datetime.timedelta(seconds=60))
        row.update(values)
        with self.database.db.writer() as session:
            session.add(models.HomingPlan(**row))

    def test_a_plan_left_solving_is_solved_again(self):
        self.add('left')
        plan = self.final('left')
        self.assertEqual('done', plan['status'])
        self.assertEqual(2, plan_obj.get(self.database.db, 'left').attempts)

    def test_a_plan_left_after_its_deadline_ends_error(self):
        now = models.utcnow()
        self.add('late', deadline_at=now - datetime.timedelta(seconds=1))
        plan = self.final('late')
        self.assertEqual(
            ('error', 'Plan late is timed out, exceed the expected time 60 '
                      'seconds (its homing API process stopped while '
                      'solving it)'),
            (plan['status'], plan['message']))

    def test_a_plan_left_too_often_ends_error(self):
        self.add('often', attempts=states.MAX_PLAN_ATTEMPTS)
        plan = self.final('often')
        self.assertEqual('error', plan['status'])
        self.assertIn(f'Tried {states.MAX_PLAN_ATTEMPTS} times. Plan often '
                      f'is unable to solve', plan['message'])

    def test_a_live_owner_keeps_its_plan(self):
        self.add('alive', owner='alive:1', heartbeat_at=models.utcnow())
        time.sleep(0.15)  # 3 looks for plans; stale after 0.25 s
        self.assertEqual('solving', self.final('alive', 0)['status'])

    def test_another_process_solves_what_a_busy_one_cannot(self):
        release = threading.Event()

        def held(template, limit, deadline):
            release.wait(10)
            return self.solve(template, limit, deadline)

        self.addCleanup(release.set)
        self.solver.stop()  # two processes here: busy, then other
        busy = has.PlanApp(self.database.db,
                           self.solver_of(held, workers=1, owner='busy'))
        first = self.post({'name': 'a', 'template': size_template()},
                          app=busy)
        second = self.post({'name': 'b', 'template': size_template()},
                           app=busy)
        time.sleep(0.2)
        # busy's one solver holds the first; the second waits for any
        self.assertEqual('solving', self.final(first['id'], 0)['status'])
        self.assertEqual('template', self.final(second['id'], 0)['status'])
        self.solver_of(self.solve, owner='other')
        self.assertEqual('done', self.final(second['id'])['status'])
        self.assertEqual('solving', self.final(first['id'], 0)['status'])
        release.set()
        self.assertEqual('done', self.final(first['id'])['status'])

    def test_a_process_that_lost_its_plan_cannot_answer_it(self):
        self.add('taken', owner='new', heartbeat_at=models.utcnow())
        self.assertFalse(plan_obj.finish(self.database.db, 'taken', 'old',
                                         status='done'))
        self.assertFalse(plan_obj.advance(self.database.db, 'taken', 'old',
                                          'solving'))


class TestOsdfClient(ApiTestCase):
    """What ONAP OSDF reads from us, key by key (onap/optf-osdf):
    ``osdf/adapters/conductor/conductor.py`` ``request()`` and
    ``initial_request_to_conductor()`` (the POST's ``status`` must be
    ``template``, the plan is polled at ``links[0][0]["href"]`` until
    ``done``, ``not found`` or ``solved``; ``error`` fails), then
    ``apps/placement/optimizers/conductor/remote_opt_processor.py``
    ``conductor_response_processor()`` (what SO receives:
    ``candidate_id`` as ``cloudRegionId``, ``cloud_owner``, the candidate's
    ``location_id`` / ``location_type`` / ``is_rehome``, and every
    attribute, ``physical-location-id`` becoming ``cloudClli``)."""

    def test_what_osdf_reads(self):
        status, resp, _ = self.call('POST', '/v1/plans', {
            'name': 'osdf-request-id', 'files': {}, 'timeout': 600,
            'num_solution': '1', 'template': size_template()})
        self.assertEqual(201, status)
        self.assertEqual('template', resp['status'])
        plan_url = resp['links'][0][0]['href']
        path = plan_url[len('http://homing:8091'):]
        seen = []
        while not seen or seen[-1] not in ('done', 'not found', 'solved',
                                           'error'):
            resp = self.call('GET', path)[1]
            seen.append(resp['plans'][0]['status'])
        self.assertEqual(set(), set(seen) - {
            'template', 'translated', 'solving', 'solved', 'done'})
        if seen[-1] == 'solved':  # OSDF stops here too: done follows
            self.assertEqual('done', self.final(resp['plans'][0]['id'])[
                'status'])
        (reco,) = resp['plans'][0]['recommendations']
        (resource,) = reco.keys()
        candidate = reco[resource]['candidate']
        self.assertEqual('cloud', candidate['inventory_type'])
        self.assertEqual('RegionOne', candidate['candidate_id'])
        self.assertEqual('Owner', candidate.get('cloud_owner', ''))
        self.assertEqual('vG-svc',
                         reco[resource].get('service_resource_id', ''))
        self.assertEqual(
            {'location_id': 'RegionOne', 'location_type': 'att_aic',
             'is_rehome': 'false'},
            {key: value for key, value in candidate.items()
             if key in ('location_id', 'location_type', 'is_rehome',
                        'host_id')})
        self.assertEqual({'physical-location-id': 'MTLQC01',
                          'cloud_owner': 'Owner', 'aic_version': '4.0'},
                         reco[resource]['attributes'])
        self.assertNotIn('message', resp['plans'][0])


class TestAuthentication(ApiTestCase):

    def setUp(self):
        super().setUp()
        self.app = has.PlanApp(self.database.db, self.solver,
                               username='osdf', password='s3cret')

    def basic(self, text):
        return {'HTTP_AUTHORIZATION':
                'Basic ' + base64.b64encode(text.encode()).decode()}

    def test_credentials_are_required(self):
        for headers in ({}, self.basic('osdf:wrong'), self.basic('x:s3cret'),
                        {'HTTP_AUTHORIZATION': 'Basic !!!'}):
            status, body, response = self.call('GET', '/v1/plans/x',
                                               headers=headers)
            self.assertEqual(401, status)
            self.assertIn('Basic', response['WWW-Authenticate'])
        self.assertEqual(404, self.call(
            'GET', '/v1/plans/x', headers=self.basic('osdf:s3cret'))[0])

    def test_versions_and_healthcheck_need_none(self):
        # as HAS: its root and health check skip the credentials
        self.assertEqual(200, self.call('GET', '/')[0])
        status, body, _ = self.call('GET', '/v1/plans/healthcheck')
        self.assertEqual((200, 'solved'), (status, body['plans'][0]['status']))


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
