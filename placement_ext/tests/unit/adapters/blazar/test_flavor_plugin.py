"""The flavor:instance plugin class against the fake blazar modules: the
source flavor is read as the user sees it and the request reaches the
instance adapter translated; bad input names its field."""

import importlib
import sys
import types
from unittest import mock

import testtools

from placement_ext.tests.unit.adapters.blazar import fakes
from placement_ext.tests.unit.adapters.blazar import test_flavor
from placement_ext.tests.unit.adapters.blazar import test_plugin

MODULES = ('placement_ext.adapters.blazar.plugin',
           'placement_ext.adapters.blazar.flavor_plugin')


class NotFound(Exception):
    code = 404


class FakeFlavor:
    def __init__(self, details):
        self.details = dict(details)

    def to_dict(self):
        return {k: v for k, v in self.details.items() if k != 'extra_specs'}

    def get_keys(self):
        return dict(self.details['extra_specs'])


class FakeFlavors:
    def get(self, flavor_id):
        if flavor_id != test_flavor.MEDIUM['id']:
            raise NotFound(flavor_id)
        return FakeFlavor(test_flavor.MEDIUM)


class TestFlavorPlugin(testtools.TestCase):

    def setUp(self):
        super().setUp()
        modules = test_plugin.fake_blazar(fakes.FakeBlazarDB())
        client = types.SimpleNamespace(nova=types.SimpleNamespace(
            nova=types.SimpleNamespace(flavors=FakeFlavors())))
        modules['blazar.utils.openstack.nova'].NovaClientWrapper = \
            lambda: client
        patcher = mock.patch.dict(sys.modules, modules)
        patcher.start()
        self.addCleanup(patcher.stop)
        for name in MODULES:
            sys.modules.pop(name, None)
            self.addCleanup(sys.modules.pop, name, None)
        self.module = importlib.import_module(MODULES[1])
        self.adapter = mock.Mock()

    def plugin(self, *loaded):
        conf = types.SimpleNamespace(manager=types.SimpleNamespace(
            plugins=list(loaded)))
        with mock.patch.object(self.module, 'CONF', conf):
            plugin = self.module.FlavorInstancePlugin()
        plugin._adapter = self.adapter
        return plugin

    def test_the_instance_plugin_heals_when_loaded(self):
        beside = self.plugin('placement_ext.instance.plugin')
        self.assertEqual('flavor:instance', beside.resource_type)
        self.assertIsNone(beside.monitor)
        alone = self.plugin('placement_ext.host.plugin')
        self.assertEqual(alone.heal_reservations, alone.monitor.handler)

    def test_reserve_is_an_instance_reservation_of_the_flavor(self):
        self.adapter.reserve.return_value = 'ir-1'
        values = dict(test_flavor.VALUES)
        self.assertEqual('ir-1', self.plugin().reserve_resource('r1', values))
        (res_id, sent, project, user), _kw = self.adapter.reserve.call_args
        self.assertEqual(('r1', 'p1', 'u1'), (res_id, project, user))
        self.assertEqual((2, 4096, 40), (sent['vcpus'], sent['memory_mb'],
                                         sent['disk_gb']))
        self.adapter.allocation_candidates.return_value = ['h1']
        self.assertEqual(['h1'], self.plugin().allocation_candidates(values))

    def test_an_update_asks_no_flavor(self):
        self.plugin().allocation_candidates({'id': 'r1', 'amount': 2})
        self.adapter.allocation_candidates.assert_called_once_with(
            {'id': 'r1', 'amount': 2})

    def test_bad_input_names_the_field(self):
        plugin = self.plugin()
        for values, field in (({'amount': 1}, 'flavor_id'),
                              ({'amount': 1, 'flavor_id': '9'}, 'flavor_id'),
                              ({'flavor_id': '3'}, 'amount')):
            exc = self.assertRaises(test_plugin._BlazarError,
                                    plugin.reserve_resource, 'r1', values)
            self.assertEqual('InvalidInput', type(exc).__name__)
            self.assertIn(f'Invalid {field}', str(exc))
        self.assertIn("no flavor '9' visible", str(self.assertRaises(
            test_plugin._BlazarError, plugin.reserve_resource, 'r1',
            {'amount': 1, 'flavor_id': '9'})))
        self.adapter.reserve.assert_not_called()
