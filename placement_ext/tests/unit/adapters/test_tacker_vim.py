"""One Keystone session per VIM in tacker-conductor."""

import testtools

from placement_ext import exception
from placement_ext.adapters.tacker import vim
from placement_ext.tests.contract import base

INTERFACE = {'endpoint': 'http://keystone/v3'}
ACCESS = {'username': 'nfv_user', 'password': 'p', 'project': 'nfv'}


class TestSharedSession(testtools.TestCase):

    def test_a_vim_keeps_its_session_and_token(self):
        sessions = vim.Sessions()
        first = sessions.get(INTERFACE, ACCESS, 30)
        self.assertIs(first, sessions.get(INTERFACE, dict(ACCESS), 30))
        self.assertIsNot(first, sessions.get(
            INTERFACE, {**ACCESS, 'password': 'q'}, 30))

    def test_a_missing_credential_is_still_refused(self):
        self.assertRaises(exception.InvalidInput, vim.Sessions().get,
                          INTERFACE, {'username': 'u'}, 30)

    def test_no_password_in_the_key(self):
        secret = {**ACCESS, 'password': 'hunter2-secret'}
        sessions = vim.Sessions()
        sessions.get(INTERFACE, secret, 30)
        (key,) = sessions._sessions
        self.assertNotIn('hunter2', key)
        # another owner's key for the same credentials differs: the hash
        # cannot be checked against a guess elsewhere
        self.assertNotEqual(key, vim.Sessions().key(INTERFACE, secret, 30))

    def test_the_oldest_session_goes_beyond_the_limit(self):
        sessions = vim.Sessions()
        first = sessions.get(INTERFACE, ACCESS, 30)
        for n in range(vim.Sessions.MAX):
            sessions.get(INTERFACE, {**ACCESS, 'username': f'u{n}'}, 30)
        self.assertIsNot(first, sessions.get(INTERFACE, ACCESS, 30))


class TestTls(testtools.TestCase):
    """[v2_vnfm]'s options as Tacker's Heat and Nova clients read them."""

    def test_tackers_defaults_verify_nothing(self):
        sessions = vim.Sessions(vim.Tls.from_conf(base.tacker_conf()))
        self.assertFalse(sessions.get(INTERFACE, ACCESS, 30, vim.HEAT).verify)
        # Heat and Nova reached alike: one session, one token
        self.assertIs(sessions.get(INTERFACE, ACCESS, 30, vim.HEAT),
                      sessions.get(INTERFACE, ACCESS, 30, vim.NOVA))

    def test_a_ca_file_is_used_only_when_verifying(self):
        tls = vim.Tls.from_conf(base.tacker_conf(
            heat_verify_cert=True, heat_ca_cert_file=__file__,
            nova_verify_cert=False, nova_ca_cert_file=__file__))
        sessions = vim.Sessions(tls)
        self.assertEqual(
            __file__, sessions.get(INTERFACE, ACCESS, 30, vim.HEAT).verify)
        self.assertIs(
            False, sessions.get(INTERFACE, ACCESS, 30, vim.NOVA).verify)

    def test_verifying_without_a_ca_file_uses_the_systems(self):
        tls = vim.Tls.from_conf(base.tacker_conf(nova_verify_cert=True))
        self.assertIs(True, tls.verify(vim.NOVA))
        self.assertIs(False, tls.verify(vim.HEAT))

    def test_the_vims_skip_certificate_verification_is_not_read(self):
        # as Tacker: its registered VIMs all say true, its clients read
        # [v2_vnfm] alone
        sessions = vim.Sessions(vim.Tls(heat_verify=True, nova_verify=True))
        interface = {**INTERFACE, 'skipCertificateVerification': True}
        self.assertIs(True, sessions.get(interface, ACCESS, 30).verify)

    def test_a_missing_ca_file_is_refused_at_start_naming_the_option(self):
        error = self.assertRaises(
            exception.InvalidInput, base.tacker_conf, nova_verify_cert=True,
            nova_ca_cert_file='/nonexistent/ca.pem')
        self.assertIn('[v2_vnfm] nova_ca_cert_file', str(error))

    def test_mtls_settings_as_tacker_reads_them(self):
        tls = vim.Tls.from_conf(base.tacker_conf(
            use_oauth2_mtls_for_heat=True,
            heat_mtls_client_cert_file=__file__))
        self.assertEqual(vim.Mtls(True, __file__), tls.heat_mtls)
        sessions = vim.Sessions(tls)
        self.assertNotEqual(sessions.key(INTERFACE, ACCESS, 30, vim.HEAT),
                            sessions.key(INTERFACE, ACCESS, 30, vim.NOVA))
