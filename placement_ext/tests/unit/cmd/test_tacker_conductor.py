"""placement-ext-tacker-conductor refuses Tacker releases it was not
checked against, naming the version and the supported range."""

import testtools

from placement_ext.cmd import tacker_conductor

RANGE = 'Tacker 13.x (2025.1 Epoxy) to 16.x (2026.2 Hibiscus)'


class TestSupportedTacker(testtools.TestCase):

    def test_tacker_13_to_16_are_supported(self):
        for version in ('13.0.0', '14.0.0', '15.0.0', '16.0.0',
                        '16.1.0.dev3'):
            self.assertIsNone(tacker_conductor.unsupported(version))

    def test_other_releases_are_refused_by_name(self):
        for version in ('12.0.0', '17.0.0', 'master'):
            why = tacker_conductor.unsupported(version)
            self.assertIn(f'Tacker {version} is not supported (supported: '
                          f'{RANGE})', why)

    def test_no_tacker_is_said(self):
        self.assertIn('not installed', tacker_conductor.unsupported(None))

    def test_main_exits_2_on_an_unsupported_tacker(self):
        self.patch(tacker_conductor, 'tacker_version', lambda: '12.0.0')
        self.assertEqual(2, tacker_conductor.main())
