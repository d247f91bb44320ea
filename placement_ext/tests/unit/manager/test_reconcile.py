"""The reconciler runs every repair the drift finder names, and reports
the reservations that could not be adopted."""

import testtools

from placement_ext.decision import reservation_drift as drift
from placement_ext.manager import reconcile
from placement_ext.objects import unadopted
from placement_ext.tests.fixtures import database as db_fixture


class TestRepairs(testtools.TestCase):

    def test_each_repair_has_its_method(self):
        self.assertEqual(sorted(drift.REPAIRS),
                         sorted(reconcile.Reconciler.REPAIRS))


class TestNotAdopted(testtools.TestCase):

    def test_each_unadopted_reservation_is_reported_with_why(self):
        db = db_fixture.use_database(self).db
        unadopted.record(db, 'res-1', 'lease-1', 'its lease is CREATING')
        entry, = reconcile.Reconciler(db, None, None, None,
                                      None)._unadopted()
        self.assertEqual(('not adopted', 'res-1', None),
                         (entry['kind'], entry['subject'], entry['repair']))
        self.assertIn('lease lease-1', entry['detail'])
        self.assertIn('its lease is CREATING', entry['detail'])
