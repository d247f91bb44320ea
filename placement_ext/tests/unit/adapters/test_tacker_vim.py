"""One Keystone session per VIM in tacker-conductor."""

import testtools

from placement_ext import exception
from placement_ext.adapters.tacker import vim

INTERFACE = {'endpoint': 'http://keystone/v3'}
ACCESS = {'username': 'nfv_user', 'password': 'p', 'project': 'nfv'}


class TestSharedSession(testtools.TestCase):

    def test_a_vim_keeps_its_session_and_token(self):
        first = vim.shared_session(INTERFACE, ACCESS, 30)
        self.assertIs(first, vim.shared_session(INTERFACE, dict(ACCESS), 30))
        self.assertIsNot(first, vim.shared_session(
            INTERFACE, {**ACCESS, 'password': 'q'}, 30))

    def test_a_missing_credential_is_still_refused(self):
        self.assertRaises(exception.InvalidInput, vim.shared_session,
                          INTERFACE, {'username': 'u'}, 30)
