"""tools/minicloud/firewall.py: one HA service's packets dropped (the
nft scripts and the cgroup wrapper checked, nothing run)."""

import pathlib
import sys
from unittest import mock

import fixtures
import testtools

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4]
                       / 'tools'))
from minicloud import firewall  # noqa: E402


def settings(offset=0):
    return mock.Mock(ports={'keystone': firewall.netns.mc_settings.BASE_PORTS[
        'keystone'] + offset})


class TestCut(testtools.TestCase):

    def script(self, direction):
        with mock.patch.object(firewall, '_nft') as nft:
            firewall.cut(settings(), ['ha-manager2'],
                         [('10.213.1.13', 28400)], direction)
        return nft.call_args.args[0]

    def test_both_ways_drops_what_it_sends_and_is_sent(self):
        script = self.script('both')
        self.assertIn('table inet pe1cut {', script)
        self.assertIn('hook output', script)
        self.assertIn('hook input', script)
        match = 'socket cgroupv2 level 1 "pe1-ha-manager2"'
        self.assertIn(f'add rule inet pe1cut out {match} ip daddr '
                      '10.213.1.13 tcp dport 28400 drop', script)
        self.assertIn(f'add rule inet pe1cut in {match} ip saddr '
                      '10.213.1.13 tcp sport 28400 drop', script)

    def test_one_way_drops_one_direction(self):
        self.assertNotIn('add rule inet pe1cut in', self.script('out'))
        self.assertNotIn('add rule inet pe1cut out', self.script('in'))
        self.assertIn('add rule inet pe1cut in', self.script('in'))

    def test_an_unknown_direction_is_refused_by_name(self):
        exc = self.assertRaises(ValueError, firewall.cut, settings(),
                                ['ha-manager2'], [], 'sideways')
        self.assertIn('direction', str(exc))
        self.assertIn('sideways', str(exc))

    def test_each_cloud_has_its_own_table_and_cgroups(self):
        self.assertNotEqual(firewall.table(settings(0)),
                            firewall.table(settings(2000)))
        self.assertNotEqual(firewall.cgroup(settings(0), 'ha-manager1'),
                            firewall.cgroup(settings(2000), 'ha-manager1'))


class TestWrap(testtools.TestCase):

    def test_unchanged_without_the_means(self):
        with mock.patch.object(firewall, 'available', return_value=False):
            self.assertEqual(['prog', '-x'], firewall.wrap(
                settings(), 'ha-manager1', ['prog', '-x']))

    def test_joins_its_cgroup_then_execs(self):
        root = pathlib.Path(self.useFixture(fixtures.TempDir()).path)
        with mock.patch.object(firewall, 'available', return_value=True), \
                mock.patch.object(firewall, 'cgroup_root',
                                  return_value=root):
            argv = firewall.wrap(settings(), 'ha-manager1', ['prog', '-x'])
        procs = root / 'pe1-ha-manager1' / 'cgroup.procs'
        self.assertTrue(procs.parent.is_dir())
        self.assertEqual(['sh', '-c', 'echo $$ > "$0" && exec "$@"',
                          str(procs), 'prog', '-x'], argv)

    def test_nft_sees_a_cgroup_mounted_elsewhere_where_it_looks(self):
        with mock.patch.object(firewall, 'cgroup_root',
                               return_value=pathlib.Path(
                                   '/sys/fs/cgroup/unified')), \
                mock.patch.object(firewall.subprocess, 'run') as run:
            firewall._nft('x')
        argv = run.call_args.args[0]
        self.assertEqual(['unshare', '-m'], argv[:2])
        self.assertEqual('/sys/fs/cgroup/unified', argv[-1])
