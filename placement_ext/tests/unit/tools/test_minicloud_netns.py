"""tools/minicloud/netns.py: the HA nodes' namespaces, their names and
addresses, and the cut of a link (commands checked, none run)."""

import pathlib
import sys
from unittest import mock

import testtools

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4]
                       / 'tools'))
from minicloud import netns  # noqa: E402


class TestLinks(testtools.TestCase):

    def test_names_fit_the_kernel_and_addresses_are_private(self):
        links = netns.Links(tag=250)
        for member in links.members:
            # interface names: 15 characters at most
            self.assertLessEqual(len(links.veth(member) + 'p'), 15)
            self.assertTrue(links.address(member).startswith('10.213.250.'))
        self.assertLessEqual(len(links.bridge), 15)
        self.assertEqual(len(links.members),
                         len({links.address(m) for m in links.members}))
        self.assertEqual(['ip', 'netns', 'exec', 'pe250-galera1', 'x'],
                         links.wrap('galera1', ['x']))

    def test_each_cloud_has_its_own_subnet(self):
        def tag(offset):
            s = mock.Mock(ports={'keystone': netns.mc_settings.BASE_PORTS[
                'keystone'] + offset})
            return netns.tag_of(s)
        self.assertEqual(3, len({tag(0), tag(1000), tag(2000)}))

    def test_a_partition_cuts_both_sides_and_heal_undoes_it(self):
        links = netns.Links(tag=7)
        with mock.patch.object(netns, '_ip') as ip:
            netns.partition(links, ['rabbit2'], ['rabbit0', 'rabbit1'])
        cuts = [c.args for c in ip.call_args_list]
        self.assertIn(('-n', 'pe7-rabbit2', 'neigh', 'replace',
                       links.address('rabbit0'), 'lladdr', netns.NOWHERE_MAC,
                       'nud', 'permanent', 'dev', 'eth0'), cuts)
        self.assertIn(('-n', 'pe7-rabbit0', 'neigh', 'replace',
                       links.address('rabbit2'), 'lladdr', netns.NOWHERE_MAC,
                       'nud', 'permanent', 'dev', 'eth0'), cuts)
        self.assertEqual(4, len(cuts))
        with mock.patch.object(netns, '_ip') as ip:
            netns.heal(links)
        # every member forgets every cut it may hold (peers, controllers)
        self.assertEqual(
            len(links.members) * (len(links.members) + len(netns.CONTROLLERS)),
            ip.call_count)

    def test_a_controller_cut_is_on_the_nodes_side(self):
        links = netns.Links(tag=7)
        with mock.patch.object(netns, '_ip') as ip:
            netns.cut_controller(links, 2, ['galera0'])
        ip.assert_called_once_with(
            '-n', 'pe7-galera0', 'neigh', 'replace', '10.213.7.3', 'lladdr',
            netns.NOWHERE_MAC, 'nud', 'permanent', 'dev', 'eth0')
        self.assertNotIn(links.controller_address(1),
                         [links.address(m) for m in links.members])

    def test_wanted(self):
        with mock.patch.dict('os.environ', {netns.ENV: '0'}):
            self.assertFalse(netns.wanted())
        with mock.patch.dict('os.environ', {netns.ENV: '1'}):
            self.assertTrue(netns.wanted())
