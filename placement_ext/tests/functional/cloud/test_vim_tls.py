"""A VIM served over HTTPS by a private CA, reached by the sessions our
reselection inside tacker-conductor builds
(:class:`placement_ext.adapters.tacker.vim.Sessions`) with Tacker's
``[v2_vnfm]`` TLS options: Keystone, Heat, Nova and Placement of the
embedded cloud behind TLS proxies, in a region of their own."""

import pathlib

import fixtures

from placement_ext import conf as pe_conf
from placement_ext import exception
from placement_ext.adapters.tacker import vim as tacker_vim
from placement_ext.conductor import wiring
from placement_ext.tests.functional import tls_proxy
from placement_ext.tests.functional.cloud import base
from placement_ext.tests.functional.cloud import fixture

SERVICES = ('orchestration', 'compute', 'placement')


class TestVimOverHttps(base.CloudTestCase):

    def setUp(self):
        super().setUp()
        directory = pathlib.Path(self.useFixture(fixtures.TempDir()).path)
        self.certs = tls_proxy.private_ca(directory)
        self.region = fixture.unique_name('RegionTLS')
        self.interface = {'endpoint': self._https_region()}
        self.access = {'username': 'demo', 'password': 'demo',
                       'project': 'demo', 'userDomain': 'Default',
                       'projectDomain': 'Default', 'region': self.region}
        self.conf = pe_conf.new_conf([])

    def _proxy(self, url: str) -> str:
        return self.useFixture(tls_proxy.TlsProxy(url, self.certs)).url(url)

    def _https_region(self) -> str:
        """Keystone's URL over HTTPS; Heat, Nova and Placement over HTTPS
        in a new region (deleted afterwards)."""
        identity = self.cloud.admin.identity
        identity.create_region(id=self.region)
        self.addCleanup(identity.delete_region, self.region)
        for service in identity.services():
            if service.type not in SERVICES:
                continue
            plain = next(e for e in identity.endpoints(
                service_id=service.id, interface='public')
                if e.region_id == 'RegionOne')
            endpoint = identity.create_endpoint(
                service_id=service.id, interface='public',
                region_id=self.region, url=self._proxy(plain.url))
            self.addCleanup(identity.delete_endpoint, endpoint)
        return self._proxy(self.cloud.admin.auth['auth_url'])

    def _drivers(self, tls: tacker_vim.Tls) -> wiring.Drivers:
        sessions = tacker_vim.Sessions(tls)
        nova, heat = (sessions.get(self.interface, self.access, 30, service)
                      for service in (tacker_vim.NOVA, tacker_vim.HEAT))
        return wiring.build_drivers(self.conf, session=nova,
                                    heat_session=heat,
                                    region_name=self.region)

    def _use_every_service(self, drivers: wiring.Drivers) -> None:
        self.assertIsNone(drivers.heat.find_stack('no-such-stack'))
        self.assertTrue(drivers.nova.flavors())
        self.assertTrue(drivers.placement.client.server_max_version)
        # the region's, over HTTPS
        self.assertTrue(drivers.placement.client.endpoint.startswith(
            'https://127.0.0.1:'))

    def test_verified_against_the_private_ca(self):
        self._use_every_service(self._drivers(tacker_vim.Tls(
            heat_verify=self.certs.ca, nova_verify=self.certs.ca)))

    def test_not_verified_by_tackers_defaults(self):
        self._use_every_service(self._drivers(tacker_vim.Tls()))

    def test_verified_without_the_ca_fails_naming_the_certificate(self):
        drivers = self._drivers(tacker_vim.Tls(heat_verify=self.certs.ca,
                                               nova_verify=True))
        self.assertIsNone(drivers.heat.find_stack('no-such-stack'))
        error = self.assertRaises(exception.PlacementExtError,
                                  drivers.nova.flavors)
        self.assertIn('CERTIFICATE_VERIFY_FAILED', str(error))
