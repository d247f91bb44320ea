"""Our driver against the installed Tacker: ``_update_stack_retry``'s
signature, the LCM entry points, the v2 conductor's lookup of
``openstack.Openstack``, and install() putting our driver there."""

from placement_ext.adapters.tacker import compat
from placement_ext.tests.contract import base


class TestTackerContract(base.ContractTestCase):

    compat = compat

    def test_install_makes_the_conductor_build_our_driver(self):
        from tacker.sol_refactored.infra_drivers.openstack import openstack

        from placement_ext.adapters.tacker import driver

        upstream = openstack.Openstack
        self.addCleanup(setattr, openstack, 'Openstack', upstream)
        driver.install()
        self.assertIs(driver.Openstack, openstack.Openstack)
        self.assertIsInstance(openstack.Openstack(), upstream)
