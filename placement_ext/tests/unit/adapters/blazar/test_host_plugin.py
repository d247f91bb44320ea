"""Our ``physical:host`` plugin against a fake of Blazar's: it keeps
Blazar's plugin, puts our adapter in front of its placement client and
raises our errors as Blazar's."""

import importlib
import sys
from unittest import mock

import testtools

from placement_ext import exception
from placement_ext.adapters.blazar import providers
from placement_ext.drivers.placement import reservation
from placement_ext.tests.unit.adapters.blazar import fakes
from placement_ext.tests.unit.adapters.blazar import test_plugin

MODULE = 'placement_ext.adapters.blazar.host_plugin'


class _PhysicalHostPlugin:
    """Blazar's plugin as far as ours relies on it."""
    resource_type = 'physical:host'

    def __init__(self):
        self.placement_client = mock.Mock(name='BlazarPlacementClient')

    def get_plugin_opts(self):
        return []

    def create_computehost(self, host_values):
        self.placement_client.create_reservation_provider(host_values['name'])
        return {'id': '1'}

    def delete_computehost(self, host_id):
        self.placement_client.delete_reservation_provider(host_id)


class TestHostPlugin(testtools.TestCase):

    def setUp(self):
        super().setUp()
        modules = test_plugin.fake_blazar(fakes.FakeBlazarDB())
        modules['blazar.plugins.oshosts.host_plugin'].PhysicalHostPlugin = (
            _PhysicalHostPlugin)
        patcher = mock.patch.dict(sys.modules, modules)
        patcher.start()
        self.addCleanup(patcher.stop)
        for name in (MODULE, 'placement_ext.adapters.blazar.plugin'):
            sys.modules.pop(name, None)
            self.addCleanup(sys.modules.pop, name, None)
        self.plugin = importlib.import_module(MODULE).HostPlugin()
        self.ours = mock.Mock()
        self.ours.ensure_reservation_provider.return_value = (
            reservation.Provider('rp', 'blazar_h1', 0, 'cn', 'cn'))
        self.plugin._providers = self.ours

    def test_blazars_placement_client_behind_our_adapter(self):
        client = self.plugin.placement_client
        self.assertIsInstance(client, providers.ReservationProviderClient)
        client.get_inventory('cn')
        client.upstream.get_inventory.assert_called_once_with('cn')
        self.assertEqual(['placement_ext_config_file'],
                         [o.name for o in self.plugin.get_plugin_opts()])

    def test_host_create_and_delete_use_our_providers(self):
        self.assertEqual({'id': '1'},
                         self.plugin.create_computehost({'name': 'h1'}))
        self.plugin.delete_computehost('h1')
        self.ours.ensure_reservation_provider.assert_called_once_with('h1')
        self.ours.empty_reservation_provider.assert_called_once_with('h1')
        upstream = self.plugin.placement_client.upstream
        upstream.create_reservation_provider.assert_not_called()
        upstream.delete_reservation_provider.assert_not_called()

    def test_our_errors_become_blazars(self):
        self.ours.empty_reservation_provider.side_effect = exception.Conflict(
            reason='reserved instances use it')
        exc = self.assertRaises(test_plugin._BlazarError,
                                self.plugin.delete_computehost, 'h1')
        self.assertEqual('CantUpdateParameter', type(exc).__name__)
        self.ours.ensure_reservation_provider.side_effect = (
            exception.NotFound(kind='compute node resource provider',
                               id='h9'))
        exc = self.assertRaises(test_plugin._BlazarError,
                                self.plugin.create_computehost, {'name': 'h9'})
        self.assertEqual('NotFound', type(exc).__name__)
