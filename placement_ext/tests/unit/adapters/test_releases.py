"""The supported Tacker and Blazar releases, and the start-up refusal
naming them."""

import testtools

from placement_ext.adapters import releases
from placement_ext.adapters.blazar import compat as blazar_compat
from placement_ext.adapters.tacker import compat as tacker_compat


class TestSupported(testtools.TestCase):

    def test_ranges_name_the_openstack_series(self):
        self.assertEqual('Tacker 13.x (2025.1 Epoxy) to 16.x (2026.2 '
                         'Hibiscus)', tacker_compat.SUPPORTED.describe())
        self.assertEqual('Blazar 15.x (2025.1 Epoxy) to 18.x (2026.2 '
                         'Hibiscus)', blazar_compat.SUPPORTED.describe())

    def test_both_ranges_are_the_same_series(self):
        self.assertEqual(sorted(tacker_compat.SUPPORTED.series.values()),
                         sorted(blazar_compat.SUPPORTED.series.values()))

    def test_refusal_names_the_release_and_the_range(self):
        self.assertIsNone(blazar_compat.refusal('15.1.0'))
        self.assertEqual(
            'Blazar 14.0.1 is not supported (supported: Blazar 15.x '
            '(2025.1 Epoxy) to 18.x (2026.2 Hibiscus))',
            blazar_compat.refusal('14.0.1'))
        self.assertIn('Tacker 19.0.0.0rc1 is not supported',
                      tacker_compat.refusal('19.0.0.0rc1'))
        self.assertEqual('Blazar is not installed in this Python '
                         'environment', blazar_compat.refusal(None))

    def test_series_without_a_name(self):
        supported = releases.Supported('x', 'X', {1: '2030.1'})
        self.assertEqual('X 1.x (2030.1) to 1.x (2030.1)',
                         supported.describe())


class TestBlazarRequire(testtools.TestCase):

    def patch_version(self, version):
        self.patch(releases, 'installed_version', lambda name: version)

    def test_unsupported_release_refuses_to_load(self):
        self.patch_version('14.0.0')
        error = self.assertRaises(blazar_compat.UnsupportedRelease,
                                  blazar_compat.require)
        self.assertIn('placement_ext: Blazar 14.0.0 is not supported '
                      '(supported: Blazar 15.x', str(error))
        self.assertIsInstance(error, ImportError)

    def test_supported_or_unknown_release_loads(self):
        for version in ('15.0.0', '18.0.0', None):
            self.patch_version(version)
            self.assertIsNone(blazar_compat.require())



class TestTackerConductorMain(testtools.TestCase):

    def test_moved_in_16(self):
        self.assertEqual('tacker.cmd.eventlet.conductor',
                         tacker_compat.conductor_main('13.0.0'))
        self.assertEqual('tacker.cmd.eventlet.conductor',
                         tacker_compat.conductor_main('15.1.0'))
        self.assertEqual('tacker.cmd.conductor',
                         tacker_compat.conductor_main('16.0.0'))
