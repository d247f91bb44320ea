"""placement-ext-tacker-conductor refuses Tacker releases it was not
checked against, naming the version."""

import testtools

from placement_ext.cmd import tacker_conductor


class TestSupportedTacker(testtools.TestCase):

    def test_tacker_16_is_supported(self):
        self.assertIsNone(tacker_conductor.unsupported('16.0.0'))
        self.assertIsNone(tacker_conductor.unsupported('16.1.0.dev3'))

    def test_other_releases_are_refused_by_name(self):
        for version in ('15.0.0', '17.0.0', 'master'):
            why = tacker_conductor.unsupported(version)
            self.assertIn(f'Tacker {version} is not supported', why)
            self.assertIn('16.x', why)

    def test_no_tacker_is_said(self):
        self.assertIn('not installed', tacker_conductor.unsupported(None))

    def test_main_exits_2_on_an_unsupported_tacker(self):
        self.patch(tacker_conductor, 'tacker_version', lambda: '15.1.0')
        self.assertEqual(2, tacker_conductor.main())
