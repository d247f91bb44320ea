"""Two ``placement-ext-homing-api`` processes on one MariaDB database, as
a deployment with two instances behind a load balancer: a plan posted to
one is served and solved by either, each plan is solved once, a plan
left ``solving`` by a process that stopped is solved again, and a killed
process's plans stay served by the other. Public-type regions only: no
cloud is read (their capacity verdict is ``[homing]
public_cloud_capacity``)."""

import datetime
import os
import signal
import socket
import subprocess
import sys
import time
import uuid

import fixtures
import requests
import testtools
import yaml
from testtools import content

from placement_ext.db import models
from placement_ext.objects import plan as plan_obj
from placement_ext.tests import backends
from placement_ext.tests.fixtures import database as db_fixture

HOMING_API = os.path.join(os.path.dirname(sys.executable),
                          'placement-ext-homing-api')
AUTH = ('osdf', 's3cret')
REGIONS = [
    {'cloud_owner': 'CloudOwner1', 'region_id': 'DLLSTX1A',
     'cloud_type': 'Azure', 'latitude': 32.78, 'longitude': -96.8},
    {'cloud_owner': 'CloudOwner2', 'region_id': 'SNANTX1B',
     'cloud_type': 'AWS', 'latitude': 29.42, 'longitude': -98.49},
]
TEMPLATE = {
    'homing_template_version': '2017-10-10',
    'parameters': {'customer_lat': 32.9, 'customer_long': -97.0},
    'locations': {'customer_loc': {
        'latitude': {'get_param': 'customer_lat'},
        'longitude': {'get_param': 'customer_long'}}},
    'demands': {'vG': [{'inventory_provider': 'aai',
                        'inventory_type': 'cloud'}]},
    'constraints': {'fit': {
        'type': 'vim_fit', 'demands': ['vG'],
        'properties': {'controller': 'multicloud', 'request': {
            'vCPU': 2, 'Memory': {'quantity': 4, 'unit': 'GB'},
            'Storage': {'quantity': 20, 'unit': 'GB'}}}}},
    'optimization': {'minimize': {'sum': [
        {'distance_between': ['customer_loc', 'vG']}]}},
}
FINAL = ('done', 'not found', 'error')


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class TestTwoHomingApis(testtools.TestCase):

    def setUp(self):
        super().setUp()
        backends.require(self, 'mysql')
        self.database = self.useFixture(
            db_fixture.Database(backends.MYSQL_URL))
        self.tmp = self.useFixture(
            fixtures.TempDir()).path
        regions = os.path.join(self.tmp, 'regions.yaml')
        with open(regions, 'w', encoding='utf-8') as stream:
            yaml.safe_dump(REGIONS, stream)
        self.config_file = os.path.join(self.tmp, 'homing.conf')
        with open(self.config_file, 'w', encoding='utf-8') as conf:
            conf.write(f'[database]\nconnection = {self.database.url}\n'
                       f'[homing]\nregions_file = {regions}\n'
                       f'api_username = {AUTH[0]}\n'
                       f'api_password = {AUTH[1]}\n'
                       f'plan_heartbeat_interval = 0.5\n')
        self.urls = [self._start(name) for name in ('a', 'b')]

    def _start(self, name):
        port = _free_port()
        extra = os.path.join(self.tmp, f'{name}.conf')
        log = os.path.join(self.tmp, f'{name}.log')
        with open(extra, 'w', encoding='utf-8') as conf:
            conf.write(f'[DEFAULT]\nlog_file = {log}\n'
                       f'[homing]\napi_port = {port}\n')
        proc = subprocess.Popen(
            [HOMING_API, '--config-file', self.config_file,
             '--config-file', extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        self.addCleanup(self._attach, name, log)
        self.addCleanup(self._stop, proc)
        url = f'http://127.0.0.1:{port}'
        self._wait(lambda: self._healthy(url), 60, f'{name} to answer')
        setattr(self, f'proc_{name}', proc)
        return url

    def _attach(self, name, log):
        if os.path.exists(log):
            with open(log, encoding='utf-8', errors='replace') as stream:
                self.addDetail(f'homing-api-{name}.log',
                               content.text_content(stream.read()))

    @staticmethod
    def _stop(proc):
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)

    @staticmethod
    def _healthy(url):
        try:
            return requests.get(f'{url}/v1/plans/healthcheck',
                                timeout=5).status_code == 200
        except requests.ConnectionError:
            return False

    def _wait(self, predicate, timeout, what):
        end = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > end:
                self.fail(f'timed out waiting for {what}')
            time.sleep(0.1)

    def post(self, url, **body):
        reply = requests.post(f'{url}/v1/plans', auth=AUTH, timeout=10,
                              json=dict({'name': 'vG', 'template': TEMPLATE,
                                         'timeout': 60}, **body))
        self.assertEqual(201, reply.status_code, reply.text)
        self.assertEqual('template', reply.json()['status'])
        return reply.json()['id']

    def final(self, url, plan_id, timeout=60):
        plan = {}

        def ended():
            plan.update(requests.get(f'{url}/v1/plans/{plan_id}', auth=AUTH,
                                     timeout=10).json()['plans'][0])
            return plan['status'] in FINAL

        self._wait(ended, timeout, f'plan {plan_id}')
        return plan

    def test_either_process_serves_and_solves_any_plan_once(self):
        ids = [self.post(self.urls[i % 2]) for i in range(8)]
        for i, plan_id in enumerate(ids):
            plan = self.final(self.urls[(i + 1) % 2], plan_id)
            self.assertEqual('done', plan['status'], plan)
            self.assertEqual(
                'DLLSTX1A',
                plan['recommendations'][0]['vG']['candidate']['location_id'])
            # one claim each: no plan was solved by both processes
            self.assertEqual(1, plan_obj.get(self.database.db,
                                             plan_id).attempts)

    def test_a_plan_left_solving_by_a_stopped_process_is_solved(self):
        now = models.utcnow()
        with self.database.db.writer() as session:
            session.add(models.HomingPlan(
                id='left', name='x', template=TEMPLATE, solution_limit=1,
                status='solving', timeout=60, attempts=1,
                owner='stopped:1', heartbeat_at=now, created_at=now,
                deadline_at=now + datetime.timedelta(
                    seconds=60)))
        plan = self.final(self.urls[0], 'left')
        self.assertEqual('done', plan['status'], plan)
        self.assertEqual(2, plan_obj.get(self.database.db, 'left').attempts)

    def test_a_killed_process_plans_are_served_by_the_other(self):
        plan_id = self.post(self.urls[0], id=f'p-{uuid.uuid4().hex[:8]}')
        self.final(self.urls[0], plan_id)
        self.proc_a.kill()
        self.proc_a.wait(30)
        self.assertEqual('done', self.final(self.urls[1], plan_id)['status'])
        self.assertEqual('done', self.final(
            self.urls[1], self.post(self.urls[1]))['status'])
