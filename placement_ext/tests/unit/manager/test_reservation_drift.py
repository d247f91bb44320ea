"""decision.reservation_drift: every kind of drift, table-driven."""

import testtools

from placement_ext.decision import reservation_drift as drift

RC_A = 'CUSTOM_RESERVATION_AAAAAAAA_AAAA_AAAA_AAAA_AAAAAAAAAAAA'
RC_B = 'CUSTOM_RESERVATION_BBBBBBBB_BBBB_BBBB_BBBB_BBBBBBBBBBBB'
HOSTS = (drift.HostRecord('cn1', 'cn1', 'rp1', True),
         drift.HostRecord('cn2', 'cn2', 'rp2', True))
ACTIVE_A = drift.ReservationRecord('a', RC_A, 'fa', drift.ACTIVE,
                                   {'cn1': 2, 'cn2': 1})


def observed(**changes):
    base = dict(providers={'cn1': 'rp1', 'cn2': 'rp2'},
                inventories={'cn1': {RC_A: 2}, 'cn2': {RC_A: 1}},
                classes=frozenset({RC_A}), flavors=frozenset({'fa'}),
                pool=frozenset({'cn1', 'cn2'}))
    base.update(changes)
    return drift.Observed(**base)


def found(hosts=HOSTS, reservations=(ACTIVE_A,), **changes):
    return [(f.kind, f.subject, f.repair, f.args) for f in
            drift.find_drift(hosts, reservations, observed(**changes))]


class TestDrift(testtools.TestCase):

    def test_consistent_state(self):
        self.assertEqual([], found())

    def test_cases(self):
        cases = [
            ('host without provider',
             dict(providers={'cn1': 'rp1'},
                  inventories={'cn1': {RC_A: 2}}),
             [('missing_provider', 'cn2', 'create_provider', ('cn2',)),
              ('missing_inventory', f'cn2/{RC_A}', 'set_inventory',
               ('cn2', RC_A, 1))]),
            ('provider not recorded',
             dict(providers={'cn1': 'rp1', 'cn2': 'other'}),
             [('provider_not_recorded', 'cn2', 'create_provider',
               ('cn2',))]),
            ('empty provider of a host not enrolled: kept',
             dict(providers={'cn1': 'rp1', 'cn2': 'rp2', 'cn9': 'rp9'}),
             []),
            ('provider of a host not enrolled: only its inventory goes',
             dict(providers={'cn1': 'rp1', 'cn2': 'rp2', 'cn9': 'rp9'},
                  inventories={'cn1': {RC_A: 2}, 'cn2': {RC_A: 1},
                               'cn9': {RC_A: 1}}),
             [('orphan_inventory', f'cn9/{RC_A}', 'delete_inventory',
               ('cn9', RC_A))]),
            ('wrong total',
             dict(inventories={'cn1': {RC_A: 5}, 'cn2': {RC_A: 1}}),
             [('wrong_inventory', f'cn1/{RC_A}', 'set_inventory',
               ('cn1', RC_A, 2))]),
            ('inventory on a host without slots, and an orphan class',
             dict(inventories={'cn1': {RC_A: 2, RC_B: 1},
                               'cn2': {RC_A: 1}},
                  classes=frozenset({RC_A, RC_B})),
             [('orphan_inventory', f'cn1/{RC_B}', 'delete_inventory',
               ('cn1', RC_B)),
              ('orphan_class', RC_B, 'delete_class', (RC_B,))]),
            ('missing class and flavor',
             dict(classes=frozenset(), flavors=frozenset()),
             [('missing_class', RC_A, 'create_class', (RC_A,)),
              ('missing_flavor', 'fa', 'create_flavor', ('a',))]),
            ('orphan flavor',
             dict(flavors=frozenset({'fa', 'fx'})),
             [('orphan_flavor', 'fx', 'delete_flavor', ('fx',))]),
            ('pool drift',
             dict(pool=frozenset({'cn1', 'cn7'})),
             [('missing_pool_member', 'cn2', 'add_to_pool', ('cn2',)),
              ('orphan_pool_member', 'cn7', 'remove_from_pool',
               ('cn7',))]),
            ('no pool aggregate',
             dict(pool=None),
             [('missing_pool_member', 'cn1', 'add_to_pool', ('cn1',)),
              ('missing_pool_member', 'cn2', 'add_to_pool', ('cn2',))]),
        ]
        for name, changes, expected in cases:
            self.assertEqual(expected, found(**changes), name)

    def test_states(self):
        pending = drift.ReservationRecord('a', RC_A, 'fa', drift.PENDING)
        busy = drift.ReservationRecord('a', RC_A, 'fa', drift.BUSY)
        ended = drift.ReservationRecord('a', RC_A, 'fa', drift.ENDED)
        # pending: class and flavor expected, inventories are not
        self.assertEqual(
            [('orphan_inventory', f'cn1/{RC_A}', 'delete_inventory',
              ('cn1', RC_A)),
             ('orphan_inventory', f'cn2/{RC_A}', 'delete_inventory',
              ('cn2', RC_A))],
            found(reservations=[pending]))
        self.assertEqual([], found(reservations=[pending],
                                   inventories={}))
        # busy: whatever exists is the event task's
        self.assertEqual([], found(reservations=[busy]))
        self.assertEqual([], found(reservations=[busy], inventories={},
                                   classes=frozenset(),
                                   flavors=frozenset()))
        # ended: nothing may remain
        self.assertEqual(
            ['orphan_inventory', 'orphan_inventory', 'orphan_class',
             'orphan_flavor'],
            [kind for kind, *_ in found(reservations=[ended])])

    def test_retired_host_may_leave_the_pool(self):
        hosts = (HOSTS[0], drift.HostRecord('cn2', 'cn2', 'rp2', False))
        self.assertEqual([], found(hosts=hosts,
                                   pool=frozenset({'cn1'})))
        self.assertEqual([], found(hosts=hosts))

    def test_repair_order(self):
        findings = drift.find_drift(
            HOSTS[:1], [],
            observed(providers={'cn9': 'rp9'}, inventories={'cn9': {
                RC_B: 1}}, classes=frozenset({RC_B}),
                flavors=frozenset(), pool=frozenset({'cn9'})))
        self.assertEqual(['create_provider', 'delete_inventory',
                          'delete_class', 'add_to_pool', 'remove_from_pool'],
                         [f.repair for f in findings])
        self.assertEqual({'kind', 'subject', 'detail', 'repair'},
                         set(findings[0].to_dict()))

    def test_unknown_state_is_a_bug(self):
        bad = drift.ReservationRecord('a', RC_A, 'fa', 'weird')
        self.assertRaises(ValueError, drift.find_drift, HOSTS, [bad],
                          observed())
