"""Each upstream test of the chosen subset, run unchanged, its result
one of ours: a failure or a skip upstream fails the test here, with
upstream's output attached; so does an upstream test missing from the
run (a renamed test must be renamed here too)."""

import re
import time
import urllib.parse

import testtools
from blazarclient import client as blazar_client
from testtools import content

from placement_ext.tests.functional.blazar_tempest import proxy
from placement_ext.tests.functional.blazar_tempest import suite
from placement_ext.tests.functional.cloud import fixture as cloud_fixture

# Blazar's devstack job: one compute host, in no named zone
TOPOLOGY = 'nova=1x2/8192/1028'
API = 'blazar_tempest_plugin.tests.api.test_blazar_api.'
SCENARIO = 'blazar_tempest_plugin.tests.scenario.'
CLEAN_TIMEOUT = 300
PROXY = f'http://127.0.0.1:{proxy.PORT}'
# tempest's deletions of its users and projects, deferred (proxy.py)
KEPT_USERS = re.compile(r'^/identity/v3/(users|projects)/[0-9a-f]+$')


class UpstreamTestCase(testtools.TestCase):
    """The embedded cloud with the Blazar addon, the suite's venv, users
    and tempest.conf, devstack's paths on port 80; Blazar left with no
    lease, no host and none of tempest's users after each test."""

    def setUp(self):
        super().setUp()
        addon = cloud_fixture.use_addon(self, 'blazar')
        self.cloud = addon['cloud']
        hosts = [h['host'] for zone in self.cloud.zones.values()
                 for h in zone]
        if list(self.cloud.zones) != ['nova'] or len(hosts) != 1:
            self.fail('Blazar\'s tempest tests need its devstack job\'s '
                      'cloud: one compute host in no named zone '
                      f'(PLACEMENT_EXT_MINICLOUD_TOPOLOGY={TOPOLOGY}, '
                      'tox -e blazar-tempest18); this cloud has '
                      f'{self.cloud.zones}')
        admin = self.cloud.admin
        region = admin.config.get_region_name()
        self.venv = suite.ensure_venv()
        suite.ensure_admin(admin)
        suite.ensure_identity_endpoint(admin, region, PROXY + '/identity/v3')
        suite.write_config(suite.Cloud(
            auth_url=admin.session.get_endpoint(service_type='identity',
                                                interface='public'),
            region=region,
            image_id=admin.image.find_image(
                cloud_fixture.IMAGE, ignore_missing=False).id,
            flavor_id=admin.compute.find_flavor(
                cloud_fixture.FLAVOR, ignore_missing=False).id))
        self.blazar = blazar_client.Client(
            session=admin.session, service_type='reservation',
            interface='public', region_name=region)
        self.useFixture(proxy.DevstackPaths({
            'reservation': self._root('reservation'),
            'compute': self._root('compute'),
            'identity': self._root('identity')}, deferred=KEPT_USERS))
        self._clean_blazar()
        self.addCleanup(self._clean_blazar)

    def _root(self, service_type: str) -> str:
        url = urllib.parse.urlsplit(self.cloud.admin.session.get_endpoint(
            service_type=service_type, interface='public'))
        return f'{url.scheme}://{url.netloc}'

    def _clean_blazar(self) -> None:
        # the gabbi tests expect no host and no lease; the kept users'
        # trusts let every lease go
        for lease in self.blazar.lease.list():
            self.blazar.lease.delete(lease['id'])
        deadline = time.monotonic() + CLEAN_TIMEOUT
        while self.blazar.lease.list():
            if time.monotonic() > deadline:
                self.fail(f'leases not deleted after {CLEAN_TIMEOUT} s')
            time.sleep(2)
        for host in self.blazar.host.list():
            self.blazar.host.delete(host['id'])
        suite.delete_tempest_users(self.cloud.admin)

    def assertUpstreamPass(self, regex: str, expected: list[str]) -> None:
        """Run the upstream tests matching ``regex``: exactly
        ``expected`` run, each succeeds."""
        statuses, output = suite.run(self.venv, regex)
        self.addDetail('upstream results', content.text_content(
            '\n'.join(f'{s:8} {t}' for t, s in sorted(statuses.items()))))
        self.addDetail('upstream output', content.text_content(output))
        self.assertEqual(sorted(expected), sorted(statuses),
                         'upstream tests run')
        self.assertEqual({t: 'success' for t in expected}, statuses)


def _one(test_id: str) -> str:
    return f'^{re.escape(test_id)}(\\[|$)'


class TestApi(UpstreamTestCase):
    """The gabbi files (each a sequence of requests on
    ``http://127.0.0.1/reservation`` and ``/compute``)."""

    def _gabbi(self, name: str, steps: list[str]) -> None:
        prefix = f'{API}{name}_'
        self.assertUpstreamPass(
            f'^{re.escape(prefix)}',
            [f'{prefix}{step}.test_request' for step in steps])

    def test_hosts(self):
        self._gabbi('hosts', [
            'get_host_name', 'post_new_host_with_too_long_extra_capability',
            'post_new_host', 'get_new_host', 'delete_new_host',
            'get_no_host'])

    def test_allocations(self):
        self._gabbi('allocations', [
            'get_host_name', 'post_new_host', 'post_new_lease_lease1',
            'post_new_lease_lease2', 'list_host_allocations',
            'list_host_allocations_with_lease2', 'delete_lease2',
            'delete_lease1', 'delete_host'])

    def test_leases(self):
        self._gabbi('leases', [
            'post_new_lease_with_invalid_time_order',
            'post_new_lease_with_bogus_start_time',
            'post_new_lease_without_end_date', 'post_new_lease',
            'get_new_lease', 'delete_new_lease', 'get_no_lease'])


def _scenario(module: str, cls: str, test: str):
    test_id = f'{SCENARIO}{module}.{cls}.{test}'

    def method(self):
        self.assertUpstreamPass(_one(test_id), [test_id])
    method.__doc__ = f'upstream {test_id}'
    return method


class TestHostReservation(UpstreamTestCase):
    _m = ('test_host_reservation', 'TestHostReservationScenario')
    test_host_reservation = _scenario(
        *_m, 'test_host_reservation')
    test_lease_expiration = _scenario(
        *_m, 'test_lease_expiration')
    test_update_host_reservation = _scenario(
        *_m, 'test_update_host_reservation')


class TestInstanceReservation(UpstreamTestCase):
    _m = ('test_instance_reservation', 'TestInstanceReservationScenario')
    test_instance_reservation = _scenario(
        *_m, 'test_instance_reservation')
    test_lease_expiration = _scenario(
        *_m, 'test_lease_expiration')
    test_update_instance_reservation = _scenario(
        *_m, 'test_update_instance_reservation')


class TestLeaseConcurrency(UpstreamTestCase):
    test_concurrent_list_lease = _scenario(
        'test_reservation_concurrency', 'TestReservationConcurrencyScenario',
        'test_concurrent_list_lease')
