"""What the contract tests of both services share."""

import tempfile
import unittest

from placement_ext import conf as pe_conf
from placement_ext.adapters import releases


def tacker_conf(**v2_vnfm: object) -> object:
    """Our options read from a tacker.conf with ``v2_vnfm`` (read as at
    start-up, so its checks run). Standard library only: the contract
    tests run in the services' venvs, which have no test tools of ours."""
    with tempfile.NamedTemporaryFile('w', suffix='.conf') as conf_file:
        conf_file.write('[v2_vnfm]\n' + ''.join(
            f'{name} = {value}\n' for name, value in v2_vnfm.items()))
        conf_file.flush()
        return pe_conf.new_conf(['--config-file', conf_file.name])


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
