"""Which servers a lease's end may delete."""

import testtools

from placement_ext.decision import lease_servers as ls

P = 'p1'
FLAVOR = 'reservation:r1'


class TestAdmitted(testtools.TestCase):

    def test_project_and_flavor(self):
        servers = [ls.Server('s3', 'p2', FLAVOR), ls.Server('s1', P, FLAVOR),
                   ls.Server('s2', P, 'm1.small'), ls.Server('s4', P, None),
                   ls.Server('s5', None, FLAVOR)]
        verdict = ls.admitted(servers, P, FLAVOR)
        self.assertEqual(['s1', 's4'], [s.id for s in verdict.delete])
        self.assertEqual(['s2', 's3', 's5'], verdict.kept_ids)
        text = ls.describe(verdict)
        self.assertIn("s2 (of flavor m1.small, not the reservation's "
                      "reservation:r1)", text)
        self.assertIn("s3 (of project p2, not the lease's p1)", text)

    def test_host_lease_checks_the_project_only(self):
        verdict = ls.admitted([ls.Server('s1', P, 'any'),
                               ls.Server('s2', 'p2', 'any')], P)
        self.assertEqual((['s1'], ['s2']),
                         ([s.id for s in verdict.delete], verdict.kept_ids))

    def test_nothing(self):
        verdict = ls.admitted([], P, FLAVOR)
        self.assertEqual(((), ()), (verdict.delete, verdict.keep))
        self.assertEqual('', ls.describe(verdict))
