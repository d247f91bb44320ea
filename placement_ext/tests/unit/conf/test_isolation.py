"""Configuration objects of one process stay independent."""

import fixtures
import testtools

from placement_ext import conf as pe_conf
from placement_ext.drivers import keystone


class TestIsolation(testtools.TestCase):

    def test_loading_a_session_leaves_other_confs_alone(self):
        path = self.useFixture(fixtures.TempDir()).join('heat.conf')
        with open(path, 'w', encoding='utf-8') as conf_file:
            conf_file.write('[heat]\nauth_type = password\n'
                            'auth_url = http://127.0.0.1:1/v3\n'
                            'username = u\npassword = p\n')
        loaded = pe_conf.new_conf(['--config-file', path])
        keystone.load_session(loaded, 'heat')
        # the password plugin's required auth_url was registered on
        # `loaded` only: a fresh configuration still validates
        fresh = pe_conf.new_conf([])
        self.assertNotIn('auth_url', fresh.heat)
