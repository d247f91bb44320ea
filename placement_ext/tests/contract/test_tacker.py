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
        runtimes = driver.Runtimes(build=lambda: None)
        driver.install(runtimes)
        self.assertIs(driver.Openstack, openstack.Openstack)
        self.assertIsInstance(openstack.Openstack(), upstream)
        # the Runtime reaches what Tacker builds without arguments
        self.assertIs(runtimes, openstack.Openstack().runtimes)

    def test_the_stack_is_named_by_name_and_id_when_tacker_knows_it(self):
        from tacker.sol_refactored import objects

        from placement_ext.adapters.tacker import driver

        objects.register_all()
        inst = objects.VnfInstanceV2(id='i1')
        self.assertEqual('vnf-i1', driver._stack_ref('vnf-i1', inst, None))
        self.assertEqual('vnf-i1/s0', driver._stack_ref('vnf-i1', inst, 's0'))
        inst.instantiatedVnfInfo = objects.VnfInstanceV2_InstantiatedVnfInfo(
            flavourId='f', vnfState='STARTED', metadata={'stack_id': 's1'})
        self.assertEqual('vnf-i1/s1', driver._stack_ref('vnf-i1', inst, None))

    def test_an_lcm_call_warms_our_runtime_and_the_vims_token(self):
        import threading
        from unittest import mock

        from tacker.sol_refactored import objects

        from placement_ext.adapters.tacker import driver

        objects.register_all()
        inst = objects.VnfInstanceV2(id='i1', vimConnectionInfo={
            'vim1': objects.VimConnectionInfo(
                vimType='ETSINFV.OPENSTACK_KEYSTONE.V_3',
                interfaceInfo={'endpoint': 'http://keystone/v3'},
                accessInfo={'username': 'u', 'password': 'p',
                            'project': 'nfv'})})
        runtimes = mock.Mock()
        session = runtimes.get.return_value.sessions.get
        driver._warm_up(inst, runtimes)
        for thread in threading.enumerate():
            if thread.name == 'placement-ext-warm-up':
                thread.join(10)
        runtimes.get.assert_called_once_with()
        session.return_value.get_token.assert_called_once_with()
        self.assertEqual('u', session.call_args.args[1]['username'])

    def test_a_stack_out_of_our_sight_is_reported_not_skipped(self):
        from tacker.sol_refactored import objects

        from placement_ext.adapters.tacker import driver

        objects.register_all()
        vim = objects.VimConnectionInfo(
            vimType='ETSINFV.OPENSTACK_KEYSTONE.V_3',
            interfaceInfo={'endpoint': 'http://keystone/v3'},
            accessInfo={'username': 'u', 'password': 'p', 'project': 'nfv',
                        'region': 'RegionTwo'})
        error = driver._not_found('vnf-i1', vim,
                                  ValueError('Resource CREATE failed: x'))
        self.assertIn('Resource CREATE failed: x (placement-ext did not '
                      "reselect: stack vnf-i1 was not found through Heat of "
                      "region 'RegionTwo'", error.detail)
