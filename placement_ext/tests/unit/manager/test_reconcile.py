"""The reconciler runs every repair the drift finder names."""

import testtools

from placement_ext.decision import reservation_drift as drift
from placement_ext.manager import reconcile


class TestRepairs(testtools.TestCase):

    def test_each_repair_has_its_method(self):
        self.assertEqual(sorted(drift.REPAIRS),
                         sorted(reconcile.Reconciler.REPAIRS))
