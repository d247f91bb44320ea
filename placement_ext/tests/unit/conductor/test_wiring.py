"""Wiring shared by the conductor and Tacker's driver: drivers from the
configuration, and the one operation-create path, which checks first."""

import testtools

from placement_ext import conf as pe_conf
from placement_ext import exception
from placement_ext.conductor import wiring
from placement_ext.objects import operation as op_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.unit.conductor.test_lifecycle import request
from placement_ext.tests.unit.conductor.test_manager import conf_file
from placement_ext.vocabulary import states


class TestBuildDrivers(testtools.TestCase):

    def _conf(self, text=''):
        return pe_conf.new_conf(['--config-file', conf_file(self, text)])

    def test_no_nfvo_unless_moves_are_granted_again(self):
        self.assertIsNone(wiring.build_drivers(self._conf()).nfvo)

    def test_nfvo_from_its_group_when_moves_are_granted_again(self):
        drivers = wiring.build_drivers(self._conf(
            '[v2_vnfm]\nplacement_regrant_before_move = true\n'
            '[nfvo]\nauth_type = none\n'
            'endpoint_override = http://nfvo.example.org\n'))
        self.assertIsNotNone(drivers.nfvo)


class TestCreateOperation(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = db_fixture.use_database(self).db
        self.checked = []

    def create(self, body, needs_grant_request=False):
        return wiring.create_operation(
            self.db, body, needs_grant_request,
            check_stack=lambda: self.checked.append(body['stack_name']),
            request_id='req-1')

    def test_a_good_request_is_written_starting(self):
        op = self.create(request())
        stored = op_obj.get(self.db, op.id)
        self.assertEqual((states.STATE_STARTING, 'req-1'),
                         (stored.state, stored.request_id))
        self.assertEqual([], self.checked)   # INSTANTIATE makes the stack

    def test_a_change_checks_the_stack_first(self):
        self.create(request(operation='HEAL'))
        self.assertEqual(['vnf-1'], self.checked)

    def test_a_bad_request_writes_nothing(self):
        for body, needs_grant in (
                (request(targets=['VDU3-0']), False),
                (request(template=None), False),
                (request(), True)):
            if body.get('template') is None:
                body.pop('template')
            with self.subTest(body=body, needs_grant=needs_grant):
                self.assertRaises(exception.InvalidInput, self.create, body,
                                  needs_grant)
        self.assertEqual([], op_obj.list_operations(self.db))
