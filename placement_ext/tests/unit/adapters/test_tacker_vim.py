"""One Keystone session per VIM in tacker-conductor."""

import testtools

from placement_ext import exception
from placement_ext.adapters.tacker import vim

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
