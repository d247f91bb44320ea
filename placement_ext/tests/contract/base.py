"""What the contract tests of both services share."""

import unittest

from placement_ext.adapters import releases


class ContractTestCase(unittest.TestCase):
    """``compat`` (the service's compatibility module) against the
    installed release."""

    compat = None

    def setUp(self):
        super().setUp()
        version = releases.installed_version(self.compat.SUPPORTED.service)
        if version is None:
            self.skipTest(f'{self.compat.SUPPORTED.title} is not installed')
        self.version = version

    def test_release_is_supported(self):
        self.assertIsNone(self.compat.refusal(self.version))

    def test_libraries_meet_the_release_requirements(self):
        self.assertEqual(
            [], releases.unmet_requirements(self.compat.SUPPORTED.service))

    def test_hook_points_are_as_our_code_expects(self):
        self.assertEqual([], self.compat.contract_problems())
