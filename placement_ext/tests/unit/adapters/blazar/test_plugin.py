"""The plugin class against a tiny fake of the blazar modules it imports
(blazar is not a dependency of ours): Blazar's calls reach the adapter's
workflows and our errors come back as the Blazar exceptions its API
renders."""

import importlib
import sys
import types
from unittest import mock

import testtools

from placement_ext import exception
from placement_ext.tests.unit.adapters.blazar import fakes


class _BlazarError(Exception):
    code = 500

    def __init__(self, message=None, **kwargs):
        super().__init__(message)


class _BasePlugin:
    def get_query_options(self, params, index_type):
        return {k: v for k, v in params.items()
                if k in self.query_options[index_type]}


class _Monitor:
    def register_healing_handler(self, handler):
        self.handler = handler


def fake_blazar(db):
    """sys.modules entries standing for the blazar modules plugin.py
    imports."""
    errors = {name: type(name, (_BlazarError,), {}) for name in (
        'InvalidInput', 'NotFound', 'NotEnoughHostsAvailable',
        'CantUpdateParameter', 'AggregateNotFound',
        'ServerDeletionTimeout')}
    ctx = types.SimpleNamespace(project_id='p1', user_id='u1')
    modules = {
        'blazar': types.ModuleType('blazar'),
        'blazar.context': types.SimpleNamespace(current=lambda: ctx),
        'blazar.exceptions': types.SimpleNamespace(
            BlazarException=_BlazarError, **errors),
        'blazar.db': types.SimpleNamespace(api=db),
        'blazar.db.api': db,
        'blazar.db.utils': types.SimpleNamespace(),
        'blazar.manager': types.SimpleNamespace(),
        'blazar.manager.exceptions': types.SimpleNamespace(**errors),
        'blazar.plugins': types.SimpleNamespace(),
        'blazar.plugins.base': types.SimpleNamespace(BasePlugin=_BasePlugin),
        'blazar.plugins.oshosts': types.SimpleNamespace(),
        'blazar.plugins.oshosts.host_plugin': types.SimpleNamespace(
            PhysicalHostMonitorPlugin=_Monitor),
        'blazar.utils': types.SimpleNamespace(),
        'blazar.utils.trusts': types.SimpleNamespace(),
        'blazar.utils.openstack': types.SimpleNamespace(),
        'blazar.utils.openstack.nova': types.SimpleNamespace(
            ReservationPool=lambda: None),
    }
    modules['blazar.utils'].openstack = modules['blazar.utils.openstack']
    modules['blazar.utils'].trusts = modules['blazar.utils.trusts']
    modules['blazar.utils.openstack'].nova = modules[
        'blazar.utils.openstack.nova']
    modules['blazar.db'].utils = modules['blazar.db.utils']
    modules['blazar.plugins'].base = modules['blazar.plugins.base']
    modules['blazar.plugins.oshosts'].host_plugin = modules[
        'blazar.plugins.oshosts.host_plugin']
    modules['blazar.manager'].exceptions = modules['blazar.manager.exceptions']
    return modules


class TestPlugin(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = fakes.FakeBlazarDB()
        patcher = mock.patch.dict(sys.modules, fake_blazar(self.db))
        patcher.start()
        self.addCleanup(patcher.stop)
        sys.modules.pop('placement_ext.adapters.blazar.plugin', None)
        self.addCleanup(sys.modules.pop,
                        'placement_ext.adapters.blazar.plugin', None)
        self.module = importlib.import_module(
            'placement_ext.adapters.blazar.plugin')
        self.plugin = self.module.InstancePlugin()
        self.adapter = mock.Mock()
        self.plugin._adapter = self.adapter

    def test_interface(self):
        self.assertEqual('virtual:instance', self.plugin.resource_type)
        self.assertEqual(self.plugin.heal_reservations,
                         self.plugin.monitor.handler)

    def test_calls_reach_the_adapter(self):
        self.adapter.reserve.return_value = 'ir-1'
        self.assertEqual('ir-1', self.plugin.reserve_resource('r1', {'a': 1}))
        self.adapter.reserve.assert_called_once_with('r1', {'a': 1}, 'p1',
                                                     'u1')
        self.plugin.on_start('ir-1')
        self.plugin.on_end('ir-1')
        self.plugin.update_reservation('r1', {'amount': 2})
        self.adapter.start.assert_called_once_with('ir-1')
        self.adapter.end.assert_called_once_with('ir-1')
        self.adapter.update.assert_called_once_with('r1', {'amount': 2})

    def test_get_gives_the_extra_capabilities_as_upstream(self):
        host = self.db.add_host('cn1', {'gpu': 'true'}, vcpus=4)
        plain = self.db.add_host('cn2')
        self.assertEqual(dict(host, gpu='true'), self.plugin.get(host['id']))
        self.assertEqual(plain, self.plugin.get(plain['id']))
        self.assertIsNone(self.plugin.get('nope'))

    def test_our_errors_become_blazars(self):
        cases = [
            (exception.NoCapacity(reason='not enough capacity for x'),
             'NotEnoughHostsAvailable'),
            (exception.InvalidInput(field='amount', reason='bad'),
             'InvalidInput'),
            (exception.NotFound(kind='lease', id='x'), 'NotFound'),
            (exception.Conflict(reason='busy'), 'CantUpdateParameter'),
            (exception.ServiceUnavailable(service='nova', reason='down'),
             '_BlazarError'),
        ]
        for ours, theirs in cases:
            self.adapter.reserve.side_effect = ours
            exc = self.assertRaises(_BlazarError, self.plugin.reserve_resource,
                                    'r1', {})
            self.assertEqual(theirs, type(exc).__name__)
            self.assertEqual(str(ours), str(exc))
