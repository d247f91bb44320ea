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


class TestBlazarFilterOptions(testtools.TestCase):
    """``[blazar:physical:host]`` as BlazarFilter 10.0.0 reads it."""

    def test_another_zone_prefix_makes_those_pools_host_leases(self):
        pool = rules.Aggregate('r5', 'lease_r5', {'blazar:owner': 'p1'})
        custom = rules.Settings(az_prefix='lease_')
        self.assertEqual([], rules.host_lease_pools([pool]))
        self.assertEqual([pool], rules.host_lease_pools([pool], custom))
        # the other project's ordinary server stays off the leased host
        self.assertFalse(rules.host_passes(
            request(project='p2'), [ZONE, pool], custom)[0])
        self.assertTrue(rules.host_passes(
            request(hint=['r5']), [ZONE, pool], custom)[0])
        # the older "blazar:" zones stay host leases, as for BlazarFilter
        old = rules.Aggregate('r3', 'blazar:r3', {'blazar:owner': 'p1'})
        self.assertEqual([old], rules.host_lease_pools([old], custom))

    def test_owner_key(self):
        pool = rules.Aggregate('r6', 'blazar_r6', {'lease:owner': 'p1'})
        custom = rules.Settings(owner_key='lease:owner')
        self.assertTrue(rules.host_passes(
            request(hint=['r6']), [pool], custom)[0])
        self.assertFalse(rules.host_passes(request(hint=['r6']), [pool])[0])

    def test_free_pool_by_name_or_mark(self):
        named = rules.Aggregate('pool0', None, {})
        custom = rules.Settings(freepool_name='pool0')
        self.assertFalse(rules.host_passes(request(), [named], custom)[0])
        self.assertTrue(rules.host_passes(request(), [named])[0])
        self.assertFalse(rules.host_passes(request(), [FREEPOOL], custom)[0])

    def test_preemptible_instances(self):
        preemptible = {rules.PREEMPTIBLE_SPEC: 'true'}
        allowed = rules.Settings(allow_preemptibles=True)
        spare = rules.Aggregate('spare', None, {})
        table = [
            # allowed: the preemptible aggregate's hosts alone
            (allowed, [ZONE, FREEPOOL], True),
            (allowed, [ZONE], False),
            (allowed, [FREEPOOL, LEASED], False),
            (rules.Settings(allow_preemptibles=True,
                            preemptible_aggregate='spare'), [spare], True),
            # not allowed: an ordinary request
            (rules.DEFAULTS, [ZONE, FREEPOOL], False),
            (rules.DEFAULTS, [ZONE], True),
        ]
        for settings, aggregates, expected in table:
            passes, why = rules.host_passes(request(preemptible),
                                            aggregates, settings)
            self.assertEqual(expected, passes, (settings, aggregates, why))
        self.assertFalse(rules.is_preemptible_request(
            {rules.PREEMPTIBLE_SPEC: 'false'}))
