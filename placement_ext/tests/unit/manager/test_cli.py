"""``placement-ext host ...`` and ``lease ...``: parsing and output, with
the manager API replaced by a recorder (the cloud tests run the same
commands against the real services)."""

import io
import json

import fixtures
import testtools

from placement_ext import exception
from placement_ext.cli import shell
from placement_ext.tests.unit.rpc import base

HOST = {'id': 1, 'hypervisor_hostname': 'cn1', 'service_name': 'cn1',
        'availability_zone': 'AZ-1', 'vcpus': 4, 'memory_mb': 8192,
        'local_gb': 100, 'reservable': True}
LEASE = {'id': 'l-1', 'name': 'l1', 'project_id': 'p', 'status': 'PENDING',
         'start_date': '2030-01-01T10:00:00',
         'end_date': '2030-01-02T10:00:00',
         'reservations': [{'allocations': {'cn1': 4, 'cn2': 2}}]}


class FakeManagerAPI:
    def __init__(self):
        self.calls = []
        self.raises = None

    def __getattr__(self, name):
        answers = {'create_host': HOST, 'get_host': HOST,
                   'list_hosts': [HOST], 'create_lease': LEASE,
                   'get_lease': LEASE, 'list_leases': [LEASE],
                   'reconcile': {'findings': [
                       {'kind': 'orphan_class', 'subject': 'X',
                        'detail': 'd', 'repair': 'delete_class'}]}}

        def call(context, *args, **kwargs):
            self.calls.append((name, args, kwargs))
            if self.raises:
                raise self.raises
            return answers.get(name)
        return call


class TestCli(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(base.KeepLogging(shell._SERVICE_LOGGERS))
        tmp = self.useFixture(fixtures.TempDir()).path
        self.config = base.write_config(tmp)
        self.stdout, self.stderr = io.StringIO(), io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', self.stdout))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', self.stderr))
        self.api = FakeManagerAPI()
        self.useFixture(fixtures.MonkeyPatch(
            'placement_ext.cli.common.ClientManager.manager',
            property(lambda _self: self.api)))

    def run_cli(self, *argv):
        return shell.main(['--config-file', self.config, *argv])

    def test_host_commands(self):
        self.assertEqual(0, self.run_cli('host', 'create', 'cn1', '-f',
                                         'json'))
        self.assertEqual(HOST, json.loads(self.stdout.getvalue()))
        for argv in (('host', 'show', 'cn1'), ('host', 'list'),
                     ('host', 'delete', 'cn1')):
            self.assertEqual(0, self.run_cli(*argv, *(
                ('-f', 'json') if argv[1] != 'delete' else ())))
        self.assertEqual(
            [('create_host', ('cn1',), {}), ('get_host', ('cn1',), {}),
             ('list_hosts', (), {}), ('delete_host', ('cn1',), {})],
            self.api.calls)

    def test_lease_create_parses_blazar_reservation_strings(self):
        status = self.run_cli(
            'lease', 'create', 'l1', '--start-date', '2030-01-01 10:00',
            '--end-date', '2030-01-02 10:00', '--project-id', 'p',
            '--reservation', 'resource_type=virtual:instance,amount=6,'
            'vcpus=1,memory_mb=1024,disk_gb=1,affinity=None', '-f', 'json')
        self.assertEqual(0, status, self.stderr.getvalue())
        self.assertEqual(LEASE, json.loads(self.stdout.getvalue()))
        (name, args, kwargs), = self.api.calls
        self.assertEqual('create_lease', name)
        self.assertEqual(
            ({'name': 'l1', 'start_date': '2030-01-01 10:00',
              'end_date': '2030-01-02 10:00',
              'reservations': [{'resource_type': 'virtual:instance',
                                'amount': 6, 'vcpus': 1, 'memory_mb': 1024,
                                'disk_gb': 1, 'affinity': 'None'}]},),
            args)
        self.assertEqual({'project_id': 'p', 'user_id': None}, kwargs)

    def test_lease_create_defaults_to_a_day_from_now(self):
        self.run_cli('lease', 'create', 'l1', '--reservation',
                     'resource_type=virtual:instance,amount=1,vcpus=1,'
                     'memory_mb=1,disk_gb=0')
        body = self.api.calls[0][1][0]
        self.assertEqual('now', body['start_date'])
        self.assertRegex(body['end_date'], r'^\d{4}-\d\d-\d\d \d\d:\d\d$')

    def test_bad_reservation_string_is_one_error_line(self):
        status = self.run_cli('lease', 'create', 'l1', '--reservation',
                              'amount=1,colour=red')
        self.assertEqual(2, status)
        self.assertEqual('ERROR placement_ext.input.invalid: Invalid colour: '
                         'unknown key; expected one of id, resource_type, '
                         'amount, vcpus, memory_mb, disk_gb, affinity, '
                         'resource_properties\n', self.stderr.getvalue())
        self.assertEqual([], self.api.calls)

    def test_lease_show_list_delete(self):
        self.assertEqual(0, self.run_cli('lease', 'list', '-f', 'json'))
        rows = json.loads(self.stdout.getvalue())
        self.assertEqual([{'id': 'l-1', 'name': 'l1', 'project_id': 'p',
                           'start_date': '2030-01-01T10:00:00',
                           'end_date': '2030-01-02T10:00:00',
                           'status': 'PENDING'}], rows)
        self.run_cli('lease', 'show', 'l1', '--project-id', 'p')
        self.run_cli('lease', 'delete', 'l1')
        self.assertEqual(
            [('list_leases', (), {'project_id': None}),
             ('get_lease', ('l1',), {'project_id': 'p'}),
             ('delete_lease', ('l1',), {'project_id': None})],
            self.api.calls)

    def test_reconcile_exits_1_when_drift_is_left(self):
        self.assertEqual(1, self.run_cli('lease', 'reconcile', '-f',
                                         'json'))
        self.assertEqual('orphan_class',
                         json.loads(self.stdout.getvalue())[0]['kind'])
        self.assertEqual('1 difference(s) found\n', self.stderr.getvalue())
        self.assertEqual(('reconcile', (), {'repair': False}),
                         self.api.calls[0])

    def test_manager_errors_are_one_line(self):
        self.api.raises = exception.Conflict(reason='host cn1 has 2 slots')
        self.assertEqual(1, self.run_cli('host', 'delete', 'cn1'))
        self.assertEqual('ERROR placement_ext.resource.conflict: host cn1 '
                         'has 2 slots\n', self.stderr.getvalue())
