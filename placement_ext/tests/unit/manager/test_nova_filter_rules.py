"""ReservationFilter's rule (the filter class itself runs inside
nova-scheduler; the cloud tests prove it there)."""

import testtools

from placement_ext.nova_filters import rules

RC = 'CUSTOM_RESERVATION_4D17D41A_830D_47B2_91C7_4F9FC0AE611E'
FREEPOOL = rules.Aggregate('freepool', None,
                           {rules.FREEPOOL_METADATA_KEY: 'true'})
LEASED = rules.Aggregate('r1', 'blazar_r1', {'blazar:owner': 'p1'})
SHARED = rules.Aggregate('r2', 'blazar_r2', {'blazar:owner': 'p1',
                                             'p2': 'blazar:tenant'})
ZONE = rules.Aggregate('AZ-1', 'AZ-1', {'availability_zone': 'AZ-1'})
RESERVED = {f'resources:{RC}': '1'}


def request(specs=None, project='p1', hint=()):
    return rules.Request(specs, project, tuple(hint))


class TestRules(testtools.TestCase):

    def test_reservation_requests(self):
        cases = [
            ({f'resources:{RC}': '1'}, True),
            ({f'resources1:{RC}': '1'}, True),
            ({f'resources_GROUP:{RC}': '1'}, True),
            ({f'resources:{RC}': '0'}, False),
            ({'resources:CUSTOM_OTHER': '1'}, False),
            ({rules.BLAZAR_FLAVOR_SPEC: 'x'}, True),
            ({rules.BLAZAR_FLAVOR_SPEC: ''}, False),
            ({}, False),
            (None, False),
        ]
        for specs, expected in cases:
            self.assertEqual(expected, rules.is_reservation_request(specs),
                             specs)

    def test_free_pool(self):
        self.assertTrue(rules.in_free_pool([ZONE, FREEPOOL]))
        self.assertTrue(rules.in_free_pool([rules.Aggregate(
            metadata={rules.FREEPOOL_METADATA_KEY: ' True '})]))
        self.assertFalse(rules.in_free_pool([rules.Aggregate(
            metadata={rules.FREEPOOL_METADATA_KEY: 'false'})]))
        self.assertFalse(rules.in_free_pool([ZONE]))
        self.assertFalse(rules.in_free_pool([]))

    def test_host_lease_pools(self):
        old = rules.Aggregate('r3', 'blazar:r3', {})
        self.assertEqual([LEASED, old], rules.host_lease_pools(
            [ZONE, FREEPOOL, LEASED, old]))
        self.assertTrue(rules.may_use(SHARED, 'p2'))
        self.assertFalse(rules.may_use(LEASED, 'p2'))
        self.assertFalse(rules.may_use(LEASED, None))

    def test_host_passes(self):
        table = [
            # free pool: reserved instances only
            (request(RESERVED), [ZONE, FREEPOOL], True),
            (request(), [ZONE, FREEPOOL], False),
            # not reservable: ordinary and (Placement-picked) reserved
            (request(RESERVED), [ZONE], True),
            (request(), [ZONE], True),
            (request(), [], True),
            # a host lease's host: its project with the hint only
            (request(hint=['r1']), [ZONE, LEASED], True),
            (request(project='p2', hint=['r1']), [ZONE, LEASED], False),
            (request(project='p2', hint=['r2']), [SHARED], True),
            (request(), [ZONE, LEASED], False),
            (request(project='p2'), [ZONE, LEASED], False),
            (request(RESERVED, project='p2'), [ZONE, LEASED], False),
            (request(RESERVED), [ZONE, LEASED], True),
            # the hint names another pool, or the host is in none
            (request(hint=['r9']), [ZONE, LEASED], False),
            (request(hint=['r1']), [ZONE, FREEPOOL], False),
            (request(hint=['r1']), [ZONE], False),
        ]
        for req, aggregates, expected in table:
            passes, why = rules.host_passes(req, aggregates)
            self.assertEqual(expected, passes, (req, aggregates, why))
            self.assertTrue(why)
