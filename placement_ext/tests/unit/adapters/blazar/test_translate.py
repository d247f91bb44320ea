"""Blazar's values and blazar.conf in our terms."""

import datetime
import os

import fixtures
import testtools
from oslo_config import cfg

from placement_ext.adapters.blazar import translate
from placement_ext.drivers import keystone
from placement_ext.schemas import reservation as schema

START = datetime.datetime(2030, 1, 1, 10, 0)


def blazar_conf(**defaults):
    """A ConfigOpts with the blazar.conf options the adapter reads."""
    conf = cfg.ConfigOpts()
    conf.register_opts([cfg.StrOpt(name, default=value) for name, value in {
        'os_auth_protocol': 'http', 'os_auth_host': '127.0.0.1',
        'os_auth_port': '5000', 'os_auth_prefix': '', 'os_auth_version': 'v3',
        'os_admin_username': 'blazar', 'os_admin_password': 'secret',
        'os_admin_project_name': 'service',
        'os_admin_user_domain_name': 'Default',
        'os_admin_project_domain_name': 'Default',
        'os_region_name': 'RegionOne', 'cafile': None, **defaults}.items()])
    conf.register_opts([cfg.IntOpt('cleaning_time', default=15)])
    conf.register_opts([cfg.StrOpt('endpoint_type', default='internal'),
                        cfg.StrOpt('aggregate_freepool_name',
                                   default='freepool')], group='nova')
    conf.register_opts([cfg.StrOpt('endpoint_type', default='internal')],
                       group='placement')
    conf.register_opts([cfg.StrOpt(
        'connection', default='mysql+pymysql://u:p@db:3306/blazar')],
        group='database')
    conf([], default_config_files=[])
    return conf


class TestValues(testtools.TestCase):

    def test_cli_strings_become_our_request(self):
        body = translate.lease_body('r1', {
            'amount': '6', 'vcpus': '1', 'memory_mb': 512, 'disk_gb': '0',
            'affinity': 'None', 'resource_properties': None,
            'start_date': START, 'end_date': START.replace(hour=12)})
        self.assertEqual(
            {'name': 'r1', 'start_date': '2030-01-01T10:00:00',
             'end_date': '2030-01-01T12:00:00',
             'reservations': [{'resource_type': 'virtual:instance',
                               'amount': 6, 'vcpus': 1, 'memory_mb': 512,
                               'disk_gb': 0, 'affinity': 'None'}]},
            body)
        lease = schema.validate_lease(body, START)
        self.assertIsNone(lease['reservations'][0]['affinity'])

    def test_slots_per_blazar_host(self):
        self.assertEqual(['7', '7', '9'], translate.slots_per_blazar_host(
            {'cn2': 1, 'cn1': 2}, {'cn1': '7', 'cn2': '9'}))

    def test_database_beside_blazars(self):
        self.assertEqual(
            'mysql+pymysql://u:p@db:3306/blazar_placement_ext?charset=utf8',
            translate.database_url(
                'mysql+pymysql://u:p@db:3306/blazar?charset=utf8'))
        self.assertEqual('sqlite:////tmp/blazar_placement_ext.sqlite',
                         translate.database_url('sqlite:////tmp/blazar'))

    def test_auth_url_as_blazar_builds_it(self):
        self.assertEqual('http://127.0.0.1:5000/v3',
                         translate.auth_url(blazar_conf()))
        self.assertEqual('https://[::1]:443/identity/v3', translate.auth_url(
            blazar_conf(os_auth_protocol='https', os_auth_host='::1',
                        os_auth_port='443', os_auth_prefix='identity')))


class TestConf(testtools.TestCase):

    def test_blazar_conf_gives_our_defaults(self):
        conf = translate.build_conf(blazar_conf())
        self.assertEqual('http://127.0.0.1:5000/v3', conf.nova.auth_url)
        self.assertEqual(('blazar', 'secret', 'service'),
                         (conf.placement.username, conf.placement.password,
                          conf.placement.project_name))
        self.assertEqual(['internal'], conf.placement.valid_interfaces)
        self.assertEqual('freepool', conf.reservation.freepool_aggregate)
        self.assertEqual(15, conf.reservation.cleaning_time)
        self.assertEqual('mysql+pymysql://u:p@db:3306/blazar_placement_ext',
                         conf.database.connection)
        # keystoneauth loads the password plugin from these (no request)
        self.assertIsNotNone(keystone.load_session(conf, 'nova'))

    def test_our_config_file_wins(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'placement_ext.conf')
        with open(path, 'w') as out:
            out.write('[database]\nconnection = sqlite:////tmp/x.sqlite\n'
                      '[reservation]\nserver_delete_timeout = 30\n')
        conf = translate.build_conf(blazar_conf(), [path])
        self.assertEqual('sqlite:////tmp/x.sqlite', conf.database.connection)
        self.assertEqual(30, conf.reservation.server_delete_timeout)
        self.assertEqual('freepool', conf.reservation.freepool_aggregate)
