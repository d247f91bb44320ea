"""One ownership context for every process that runs operations."""

import threading

import testtools

from placement_ext import conf as pe_conf
from placement_ext import exception
from placement_ext.conductor import ownership
from placement_ext.objects import operation as op_obj
from placement_ext.tests.fixtures import database as db_fixture


class TestOwnership(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database()).db
        self.conf = pe_conf.new_conf([])
        self.op = op_obj.create(
            self.db, vnf_instance_id='vnf-1', operation='INSTANTIATE',
            params={}, placement={'VDU1-0': 'AZ-1'})
        self.a = ownership.Ownership(self.db, 'a', self.conf.conductor)
        self.b = ownership.Ownership(self.db, 'b', self.conf.conductor)

    def owner(self):
        return op_obj.get(self.db, self.op.id).owner

    def test_owned_for_the_block_then_given_up(self):
        with self.a.owned(self.op.id):
            self.assertEqual('a', self.owner())
            self.assertTrue(self.a.driving(self.op.id))
        self.assertIsNone(self.owner())
        self.assertFalse(self.a.driving(self.op.id))

    def test_fails_when_the_claim_fails(self):
        with self.a.owned(self.op.id):
            error = self.assertRaises(ownership.NotClaimed,
                                      self.b.owned(self.op.id).__enter__)
            self.assertIn('driven by a', error.detail)
            # the same host drives an operation once at a time
            self.assertRaises(ownership.NotClaimed,
                              self.a.owned(self.op.id).__enter__)
        self.assertIsInstance(error, exception.Conflict)

    def test_an_unexpected_error_keeps_the_claim(self):
        with testtools.ExpectedException(RuntimeError):
            with self.a.owned(self.op.id):
                raise RuntimeError('a bug')
        self.assertEqual('a', self.owner())
        self.assertFalse(self.a.driving(self.op.id))

    def test_a_concurrent_update_gives_it_up(self):
        with testtools.ExpectedException(exception.ConcurrentUpdate):
            with self.a.owned(self.op.id):
                raise exception.ConcurrentUpdate(kind='operation',
                                                 id=self.op.id)
        self.assertIsNone(self.owner())

    def test_its_own_heartbeat_renews_the_claim(self):
        self.conf.set_override('operation_heartbeat_interval', 1,
                               'conductor')
        renewed = threading.Event()
        heartbeat = self.a.heartbeat

        def counted():
            renewed.set()
            return heartbeat()

        self.a.heartbeat = counted
        with self.a.owned(self.op.id, beat=True):
            self.assertTrue(renewed.wait(10))
        self.assertIsNone(self.owner())
