"""Servers whose nested template lost its scheduler hints."""

import testtools
import yaml

from placement_ext.adapters.tacker import hints


def _nested(**servers: bool) -> dict:
    """A nested template: one server per name, with hints when True."""
    return {'resources': {
        name: {'type': hints.SERVER, 'properties': {
            'flavor': 'f', **({'scheduler_hints': {'group': 'g'}}
                              if hinted else {})}}
        for name, hinted in servers.items()}}


class TestLost(testtools.TestCase):

    def test_a_stripped_server_is_named_with_its_file(self):
        package = {'VDU1.yaml': _nested(VDU1=True),
                   'VDU2.yaml': _nested(VDU2=True)}
        # Heat gives the stack's files as text, Tacker's VNFD parsed
        stack = {'VDU1.yaml': yaml.safe_dump(_nested(VDU1=False)),
                 'VDU2.yaml': yaml.safe_dump(_nested(VDU2=True))}
        self.assertEqual(['VDU1.yaml:VDU1'], hints.lost(package, stack))

    def test_nothing_lost_when_the_package_gives_no_hints(self):
        self.assertEqual([], hints.lost(
            {'VDU1.yaml': _nested(VDU1=False)},
            {'VDU1.yaml': _nested(VDU1=False)}))

    def test_a_file_the_stack_lacks_or_other_types_are_not_compared(self):
        package = {'VDU1.yaml': _nested(VDU1=True),
                   'net.yaml': {'resources': {'n': {
                       'type': 'OS::Neutron::Net',
                       'properties': {'scheduler_hints': {}}}}}}
        self.assertEqual([], hints.lost(package, {'net.yaml': '{}'}))

    def test_a_template_that_is_not_a_mapping_hints_nothing(self):
        self.assertEqual(['VDU1.yaml:VDU1'], hints.lost(
            {'VDU1.yaml': _nested(VDU1=True)}, {'VDU1.yaml': '[]'}))
