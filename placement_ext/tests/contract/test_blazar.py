"""Our plugins against the installed Blazar: ``BasePlugin``'s abstract
methods, the upstream classes and helpers our plugins reuse, and our
entry points loading as concrete plugin classes."""

from placement_ext.adapters.blazar import compat
from placement_ext.tests.contract import base


class TestBlazarContract(base.ContractTestCase):

    compat = compat

    def test_our_plugins_implement_every_abstract_method(self):
        from blazar.plugins import base as blazar_base

        from placement_ext.adapters.blazar import host_plugin
        from placement_ext.adapters.blazar import plugin

        for ours in (plugin.InstancePlugin, host_plugin.HostPlugin):
            self.assertTrue(issubclass(ours, blazar_base.BasePlugin))
            self.assertEqual(frozenset(), ours.__abstractmethods__, ours)
