"""Our driver against the installed Tacker: ``_update_stack_retry``'s
signature, the LCM entry points, the v2 conductor's lookup of
``openstack.Openstack``, and install() putting our driver there."""

from placement_ext.adapters.tacker import compat
from placement_ext.tests.contract import base


def _instance(**fields: object) -> object:
    """Tacker's VnfInstanceV2 ``i1`` with one OpenStack VIM."""
    from tacker.sol_refactored import objects

    objects.register_all()
    return objects.VnfInstanceV2(id='i1', vimConnectionInfo={
        'vim1': objects.VimConnectionInfo(
            vimType='ETSINFV.OPENSTACK_KEYSTONE.V_3',
            interfaceInfo={'endpoint': 'http://keystone/v3'},
            accessInfo={'username': 'u', 'password': 'p',
                        'project': 'nfv'})}, **fields)

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

        from placement_ext.adapters.tacker import driver

        inst = _instance()
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

    def test_a_scale_out_into_a_template_without_its_hints_is_refused(self):
        from unittest import mock

        from tacker.sol_refactored import objects
        from tacker.sol_refactored.common import exceptions as sol_ex

        from placement_ext.adapters.tacker import driver

        objects.register_all()
        inst = _instance(
            instantiatedVnfInfo=objects.VnfInstanceV2_InstantiatedVnfInfo(
                flavourId='simple', vnfState='STARTED',
                metadata={'stack_id': 's1'}))
        server = {'type': 'OS::Nova::Server', 'properties': {
            'scheduler_hints': {'group': {'get_param': 'group'}}}}
        vnfd = mock.Mock()
        vnfd.get_base_hot.return_value = {
            'template': {'resources': {'VDU1': {'type': 'VDU1.yaml'},
                                       'VDU2': {'type': 'VDU2.yaml'}}},
            'files': {'VDU1.yaml': {'resources': {'VDU1': server}},
                      'VDU2.yaml': {'resources': {'VDU2': server}}}}
        stripped = 'resources: {VDU1: {type: OS::Nova::Server}}'
        heat = mock.patch.object(driver.heat_utils, 'HeatClient').start()
        self.addCleanup(mock.patch.stopall)
        heat.return_value.get_files.return_value = {
            'VDU1.yaml': stripped, 'VDU2.yaml': stripped.replace('1', '2')}

        with self.assertRaises(sol_ex.StackOperationFailed) as caught:
            driver._refuse_without_groups(inst, vnfd, {'VDU1'})
        self.assertIn('lost the scheduler hints of VDU1.yaml:VDU1:',
                      caught.exception.detail)
        heat.return_value.get_files.assert_called_once_with('vnf-i1/s1')
        # the package gives VDU3 no template of its own: nothing to lose
        driver._refuse_without_groups(inst, vnfd, {'VDU3'})


def _tls_matrix() -> list[dict]:
    """[v2_vnfm] settings whose sessions ours and Tacker's must agree
    on (``__file__`` stands for a CA file)."""
    return [
        {},
        {'heat_verify_cert': True},
        {'heat_verify_cert': True, 'heat_ca_cert_file': __file__},
        {'heat_verify_cert': False, 'heat_ca_cert_file': __file__},
        {'nova_verify_cert': True},
        {'nova_verify_cert': True, 'nova_ca_cert_file': __file__},
        {'nova_verify_cert': False, 'nova_ca_cert_file': __file__},
    ]


class _WithTacker(base.ContractTestCase):
    """Tests that need Tacker installed, not the release checks again."""

    compat = compat
    test_release_is_supported = None
    test_libraries_meet_the_release_requirements = None
    test_hook_points_are_as_our_code_expects = None


class TestTackerTls(_WithTacker):
    """Our VIM sessions verify certificates and authenticate Heat as
    Tacker's own HeatClient and NovaClient do, for the same
    ``[v2_vnfm]`` settings."""


    def _vim(self) -> object:
        from tacker.sol_refactored import objects
        objects.register_all()
        return objects.VimConnectionInfo(
            vimType='ETSINFV.OPENSTACK_KEYSTONE.V_3',
            interfaceInfo={'endpoint': 'https://keystone/v3',
                           'tokenEndpoint': 'https://auth/token',
                           'heatEndpoint': 'https://heat/v1/p',
                           'skipCertificateVerification': True},
            accessInfo={'username': 'u', 'password': 'p', 'project': 'nfv',
                        'userDomain': 'Default',
                        'projectDomain': 'Default'})

    def _both(self, settings: dict) -> tuple:
        """(Tacker's HeatClient, NovaClient, our Sessions) under
        ``settings``."""
        from oslo_config import cfg
        from tacker.sol_refactored.common import config  # noqa: F401
        from tacker.sol_refactored.infra_drivers.openstack import heat_utils
        from tacker.sol_refactored.infra_drivers.openstack import nova_utils

        from placement_ext.adapters.tacker import vim as tacker_vim

        for name, value in settings.items():
            cfg.CONF.set_override(name, value, group='v2_vnfm')
            self.addCleanup(cfg.CONF.clear_override, name, group='v2_vnfm')
        vim = self._vim()
        ours = tacker_vim.Sessions(tacker_vim.Tls.from_conf(
            base.tacker_conf(**settings)))
        return (heat_utils.HeatClient(vim).client,
                nova_utils.NovaClient(vim).client, ours, vim)

    def test_password_sessions_verify_as_tackers(self):
        from placement_ext.adapters.tacker import vim as tacker_vim

        for settings in _tls_matrix():
            with self.subTest(**settings):
                heat, nova, ours, vim = self._both(settings)
                for service, client in ((tacker_vim.HEAT, heat),
                                        (tacker_vim.NOVA, nova)):
                    session = ours.get(vim.interfaceInfo, vim.accessInfo,
                                       30, service)
                    self.assertEqual(client.auth_handle.verify,
                                     session.verify, service)

    def test_heat_over_oauth2_mtls_as_tackers(self):
        from placement_ext.adapters.tacker import vim as tacker_vim

        for ca in ('', __file__):
            with self.subTest(ca=ca):
                heat, nova, ours, vim = self._both({
                    'use_oauth2_mtls_for_heat': True,
                    'heat_mtls_ca_cert_file': ca,
                    'heat_mtls_client_cert_file': __file__,
                    # not read for Heat under mTLS
                    'heat_verify_cert': True})
                session = ours.get(vim.interfaceInfo, vim.accessInfo, 30,
                                   tacker_vim.HEAT)
                handle = heat.auth_handle
                self.assertEqual(handle.verify_cert, session.verify)
                self.assertEqual(handle.client_cert, session.cert)
                self.assertEqual(heat.base_url, session.auth.endpoint)
                self.assertEqual(handle.token_endpoint,
                                 session.auth.token_endpoint)
                self.assertEqual(handle.client_id, session.auth.client_id)
                # Nova still by the VIM's password
                self.assertEqual(nova.auth_handle.verify, ours.get(
                    vim.interfaceInfo, vim.accessInfo, 30,
                    tacker_vim.NOVA).verify)


class TestNoReselection(_WithTacker):
    """Why ours could not reselect is on Tacker's error."""


    def test_a_certificate_failure_names_the_tls_options(self):
        from keystoneauth1 import exceptions as ks_exc

        from placement_ext import exception
        from placement_ext.adapters.tacker import driver
        from placement_ext.drivers import keystone

        try:
            with keystone.transport_errors('Nova', 'GET /flavors'):
                raise ks_exc.SSLError('CERTIFICATE_VERIFY_FAILED')
        except exception.PlacementExtError as exc:
            why = exc
        error = driver._no_reselection(ValueError('Resource CREATE failed'),
                                       why)
        self.assertIn('Resource CREATE failed (no zone reselection: ',
                      error.detail)
        self.assertIn('CERTIFICATE_VERIFY_FAILED', error.detail)
        self.assertIn('nova_verify_cert and nova_ca_cert_file', error.detail)


class TestStart(_WithTacker):
    """What placement-ext-tacker-conductor reads when it starts, and
    what it refuses then."""


    def setUp(self):
        super().setUp()
        import tempfile
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def _file(self, name: str, text: str) -> str:
        import os
        path = os.path.join(self.dir.name, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as stream:
            stream.write(text)
        return path

    def _start(self, text: str, *extra: str):
        from placement_ext.adapters.tacker import driver
        return driver.start(['--config-file', self._file('tacker.conf', text),
                             '--debug', *extra])

    def _refused(self, text: str) -> str:
        from placement_ext import exception
        with self.assertRaises(exception.InvalidInput) as caught:
            self._start(text)
        return str(caught.exception)

    def test_reselection_off_reads_and_builds_nothing_of_ours(self):
        # an unreachable database and a bad option of ours: not read
        self.assertIsNone(self._start(
            '[placement_ext]\nzone_reselection = false\n'
            'database_connection = mysql+pymysql://u:p@127.0.0.1:1/none\n'
            '[v2_vnfm]\nplacement_az_select_retry = many\n'))

    def test_a_bad_option_stops_the_start_named(self):
        error = self._refused('[v2_vnfm]\nplacement_az_select_retry = many\n')
        self.assertIn('[v2_vnfm] placement_az_select_retry', error)

    def test_an_unusable_database_stops_the_start_named(self):
        error = self._refused(
            '[placement_ext]\ndatabase_connection = '
            'mysql+pymysql://u:secret@127.0.0.1:1/none\n'
            '[database]\nmax_retries = 0\n')
        self.assertIn('[placement_ext] database_connection', error)
        self.assertNotIn('secret', error)

    def test_the_config_dir_is_read_as_tackers(self):
        from placement_ext.adapters.tacker import driver
        self._file('tacker.conf.d/90-pe.conf',
                   '[v2_vnfm]\nplacement_az_select_timeout = 77\n'
                   '[placement_ext]\ndatabase_connection = sqlite://\n')
        runtimes = driver.start([
            '--config-file', self._file('tacker.conf', '[DEFAULT]\n'),
            '--config-dir', self.dir.name + '/tacker.conf.d'])
        self.assertEqual(
            77, runtimes.get().conf.v2_vnfm.placement_az_select_timeout)

    def test_regrant_is_refused_with_the_reason(self):
        error = self._refused(
            '[v2_vnfm]\nplacement_regrant_before_move = true\n'
            '[nfvo]\nendpoint_override = http://nfvo\n'
            '[placement_ext]\ndatabase_connection = sqlite://\n')
        self.assertIn('[v2_vnfm] placement_regrant_before_move: not '
                      'supported inside tacker-conductor', error)

    def test_the_command_exits_before_tackers_start(self):
        import os
        import subprocess
        import sys
        conf = self._file('tacker.conf',
                          '[v2_vnfm]\nheat_verify_cert = true\n'
                          'heat_ca_cert_file = /nonexistent/ca.pem\n')
        result = subprocess.run(
            [sys.executable, '-m', 'placement_ext.cmd.tacker_conductor',
             '--config-file', conf], capture_output=True, text=True,
            timeout=120, env={**os.environ, 'PYTHONPATH': os.getcwd()})
        self.assertEqual(2, result.returncode, result.stderr)
        self.assertIn('Invalid [v2_vnfm] heat_ca_cert_file: '
                      '/nonexistent/ca.pem is not a file', result.stderr)
