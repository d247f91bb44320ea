"""ReservationFilter's rule (the filter class itself runs inside
nova-scheduler; the cloud tests prove it there)."""

import testtools

from placement_ext.nova_filters import rules

RC = 'CUSTOM_RESERVATION_4D17D41A_830D_47B2_91C7_4F9FC0AE611E'
POOL = {rules.FREEPOOL_METADATA_KEY: 'true'}


class TestRules(testtools.TestCase):

    def test_reservation_requests(self):
        cases = [
            ({f'resources:{RC}': '1'}, True),
            ({f'resources1:{RC}': '1'}, True),
            ({f'resources_GROUP:{RC}': '1'}, True),
            ({f'resources:{RC}': '0'}, False),
            ({'resources:CUSTOM_OTHER': '1'}, False),
            ({'aggregate_instance_extra_specs:reservation': 'x'}, False),
            ({}, False),
            (None, False),
        ]
        for specs, expected in cases:
            self.assertEqual(expected, rules.is_reservation_request(specs),
                             specs)

    def test_free_pool(self):
        self.assertTrue(rules.in_free_pool([{}, POOL]))
        self.assertTrue(rules.in_free_pool(
            [{rules.FREEPOOL_METADATA_KEY: ' True '}]))
        self.assertFalse(rules.in_free_pool(
            [{rules.FREEPOOL_METADATA_KEY: 'false'}]))
        self.assertFalse(rules.in_free_pool([{'availability_zone': 'AZ'}]))
        self.assertFalse(rules.in_free_pool([]))

    def test_host_passes(self):
        reserved = {f'resources:{RC}': '1'}
        table = [
            (reserved, [POOL], True),
            (reserved, [], True),
            ({}, [POOL], False),
            ({}, [{}], True),
        ]
        for specs, metadata, expected in table:
            passes, why = rules.host_passes(specs, metadata)
            self.assertEqual(expected, passes, why)
            self.assertTrue(why)
