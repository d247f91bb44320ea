"""The drivers and the tests' fakes implement the same interfaces.

A fake that drifts from its driver (a renamed parameter, a missing
method) would let the core's unit tests pass against an interface the
real driver does not have; this compares both with
:mod:`placement_ext.drivers.protocols`, parameter by parameter.
"""

import inspect
import pathlib
import re

import testtools

from placement_ext import manager as manager_pkg
from placement_ext.conductor import zone_inputs
from placement_ext.drivers import heat
from placement_ext.drivers import nfvo as nfvo_driver
from placement_ext.drivers import nova
from placement_ext.drivers import protocols
from placement_ext.drivers import vnfpkgm
from placement_ext.tests.fixtures import nfvo as fake_nfvo
from placement_ext.tests.fixtures import nova as fake_nova
from placement_ext.tests.fixtures import stacks as fake_stacks

IMPLEMENTATIONS = {
    protocols.Stacks: (heat.HeatDriver, fake_stacks.FakeHeat),
    protocols.Zones: (zone_inputs.ZoneSource, fake_stacks.FakeZones),
    protocols.Grants: (nfvo_driver.NfvoDriver, fake_nfvo.FakeNfvo),
    protocols.Packages: (vnfpkgm.VnfPackages, fake_nfvo.FakePackages),
    protocols.ReservationCompute: (nova.NovaDriver, fake_nova.FakeNova),
}


def members(protocol):
    return sorted(name for name, value in vars(protocol).items()
                  if callable(value) and not name.startswith('_'))


def shape(function):
    """Parameter names, kinds and which have defaults; no annotations."""
    return [(p.name, p.kind, p.default is inspect.Parameter.empty)
            for p in inspect.signature(function).parameters.values()]


class TestProtocols(testtools.TestCase):

    def test_every_protocol_has_members(self):
        for protocol in IMPLEMENTATIONS:
            self.assertTrue(members(protocol), protocol.__name__)

    def test_drivers_and_fakes_match_the_protocols(self):
        for protocol, classes in IMPLEMENTATIONS.items():
            for cls in classes:
                for name in members(protocol):
                    with self.subTest(f'{cls.__name__}.{name}'):
                        self.assertTrue(hasattr(cls, name),
                                        f'{cls.__name__} lacks {name}')
                        self.assertEqual(
                            shape(getattr(protocol, name)),
                            shape(getattr(cls, name)),
                            f'{cls.__name__}.{name} differs from '
                            f'{protocol.__name__}.{name}')

    def test_the_manager_calls_only_what_the_protocol_declares(self):
        # the reservation manager is typed on ReservationCompute: a Nova
        # method it calls outside the protocol would go unchecked in the
        # fake (its server-group calls once did)
        called = set()
        for path in pathlib.Path(manager_pkg.__path__[0]).glob('*.py'):
            called |= set(re.findall(r'\bnova\.([a-z_]+)\(',
                                     path.read_text()))
        self.assertTrue(called)
        self.assertEqual(
            set(), called - set(members(protocols.ReservationCompute)))
