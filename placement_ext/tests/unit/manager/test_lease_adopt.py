"""Adoption of a reservation another plugin made: our lease as it is,
once, and the record of those that could not be adopted (SQLite)."""

import datetime
from unittest import mock

import testtools

from placement_ext import exception
from placement_ext.manager import lease_adopt
from placement_ext.objects import lease as lease_obj
from placement_ext.objects import unadopted
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.unit.objects import test_host

RES = '0b0c3a39-8a61-4c0b-9df1-2e4f6f0f3b11'
START = datetime.datetime(2030, 1, 1, 10, 0, tzinfo=datetime.timezone.utc)


def adopted(**changes):
    values = dict(reservation_id=RES, project_id='p1', user_id='u1',
                  start_date=START,
                  end_date=START + datetime.timedelta(hours=2),
                  status='active', vcpus=1, memory_mb=512, disk_gb=1,
                  amount=3, affinity=None, slots={'cn1': 2, 'cn2': 1},
                  server_group_id=None)
    values.update(changes)
    return lease_adopt.Adopted(**values)


class TestAdopt(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = db_fixture.use_database(self).db
        for name in ('cn1', 'cn2'):
            test_host.make_host(self.db, name)
        self.adoption = lease_adopt.Adoption(self.db)

    def test_an_active_reservation_becomes_an_active_lease(self):
        lease = self.adoption.adopt(adopted(affinity=False,
                                            server_group_id='g1'))
        res, = lease.reservations
        self.assertEqual((RES, 'p1', 'ACTIVE'),
                         (lease.name, lease.project_id, lease.status))
        self.assertEqual((RES, 'active', {'cn1': 2, 'cn2': 1}, 'g1', False),
                         (res.id, res.status, res.slots_by_host,
                          res.server_group_id, res.affinity))
        self.assertEqual((RES, 'CUSTOM_RESERVATION_' +
                          RES.upper().replace('-', '_')),
                         (res.flavor_id, res.resource_class))
        self.assertEqual(datetime.datetime(2030, 1, 1, 10, 0),
                         lease.start_date)
        self.assertEqual(frozenset({RES}), self.adoption.adopted())

    def test_pending_and_error_keep_their_status(self):
        for status, lease_status, res_id in (
                ('pending', 'PENDING', RES),
                ('error', 'ERROR', RES.replace('0b0c', 'eeee'))):
            lease = self.adoption.adopt(adopted(reservation_id=res_id,
                                                status=status))
            self.assertEqual((lease_status, status),
                             (lease.status, lease.reservations[0].status))

    def test_adopting_again_changes_nothing(self):
        first = self.adoption.adopt(adopted())
        again = self.adoption.adopt(adopted(amount=9, slots={'cn2': 9}))
        self.assertEqual(first, again)
        self.assertEqual(1, len(lease_obj.list_leases(self.db)))

    def test_adopted_slots_are_held(self):
        self.adoption.adopt(adopted())
        begin = START.replace(tzinfo=None)
        held = lease_obj.holdings(
            self.db, None, (begin, begin + datetime.timedelta(hours=1)))
        self.assertEqual(3, sum(h.slots for h in held))

    def test_refusals_name_the_field_or_host(self):
        exc = self.assertRaises(exception.InvalidInput, self.adoption.adopt,
                                adopted(status='deleted'))
        self.assertIn('status', str(exc))
        exc = self.assertRaises(exception.NotFound, self.adoption.adopt,
                                adopted(slots={'cn9': 1}))
        self.assertIn('cn9', str(exc))
        self.assertEqual([], lease_obj.list_leases(self.db))

    def test_refused_reservations_are_recorded_until_adopted(self):
        self.adoption.refused(RES, 'blazar-lease', 'no row')
        self.adoption.refused(RES, 'blazar-lease', 'no row either')
        self.assertEqual([unadopted.Unadopted(RES, 'blazar-lease',
                                              'no row either')],
                         self.adoption.unadopted())
        self.adoption.adopt(adopted())
        self.assertEqual([], self.adoption.unadopted())
        self.adoption.refused('other', 'l2', 'why')
        self.adoption.forget(['other'])
        self.assertEqual([], self.adoption.unadopted())

    def test_two_managers_adopting_at_once_make_one_lease(self):
        first = self.adoption.adopt(adopted())
        real_find = lease_obj.find
        calls = []

        def find_late(*args, **kwargs):
            # the other manager's lease is not seen by the first look
            calls.append(args)
            if len(calls) == 1:
                raise exception.NotFound(kind='lease', id=RES)
            return real_find(*args, **kwargs)

        with mock.patch.object(lease_obj, 'find', find_late):
            again = self.adoption.adopt(adopted())
        self.assertEqual(first.id, again.id)
        self.assertEqual([], self.adoption.unadopted())
