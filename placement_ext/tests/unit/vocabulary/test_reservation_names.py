import testtools

from placement_ext import exception
from placement_ext.vocabulary import reservation_names as names

RID = '4d17d41a-830d-47b2-91c7-4f9fc0ae611e'
RC = 'CUSTOM_RESERVATION_4D17D41A_830D_47B2_91C7_4F9FC0AE611E'


class TestResourceClass(testtools.TestCase):

    def test_spec_example(self):
        # The example of Blazar's placement-api spec.
        self.assertEqual(RC, names.resource_class_for(RID))
        self.assertEqual(RC, names.resource_class_for(RID.upper()))

    def test_round_trip(self):
        self.assertEqual(RID, names.reservation_for_resource_class(RC))

    def test_not_ours(self):
        for resource_class in ('VCPU', 'CUSTOM_RESERVATION_', 'CUSTOM_GPU',
                               RC.lower(), RC + '_X', RC + '\n', '', None):
            self.assertIsNone(
                names.reservation_for_resource_class(resource_class),
                resource_class)

    def test_bad_reservation_ids(self):
        for value in ('', 'abc', RID + '\n', RID.replace('-', ''),
                      '{%s}' % RID, 'urn:uuid:' + RID, RID[:-1] + 'g',
                      None, 42):
            error = self.assertRaises(exception.InvalidInput,
                                      names.resource_class_for, value)
            self.assertEqual('reservation_id', error.field)


class TestProviderName(testtools.TestCase):

    def test_names(self):
        self.assertEqual('blazar_compute-1',
                         names.reservation_provider_name('compute-1'))
        self.assertEqual('compute-1',
                         names.hostname_for_provider('blazar_compute-1'))
        for other in ('compute-1', 'blazar_', '', None):
            self.assertIsNone(names.hostname_for_provider(other), other)

    def test_bad_hostnames(self):
        for value in ('', '  ', None, 'h' * 194):
            error = self.assertRaises(exception.InvalidInput,
                                      names.reservation_provider_name, value)
            self.assertEqual('hypervisor_hostname', error.field)
        # 7 + 193 = 200 characters: the longest Placement accepts
        self.assertEqual(200, len(names.reservation_provider_name('h' * 193)))


class TestFlavor(testtools.TestCase):

    def test_flavor(self):
        self.assertEqual('reservation:' + RID,
                         names.flavor_name_for(RID.upper()))
        self.assertEqual({'resources:' + RC: '1',
                          'aggregate_instance_extra_specs:reservation': RID},
                         names.flavor_extra_specs(RID.upper()))
        self.assertRaises(exception.InvalidInput, names.flavor_name_for,
                          'not-a-uuid')


class TestServerGroup(testtools.TestCase):

    def test_name_and_policy(self):
        self.assertEqual('reservation:' + RID,
                         names.server_group_name_for(RID.upper()))
        self.assertEqual(
            ['affinity', 'anti-affinity', None],
            [names.server_group_policy(a) for a in (True, False, None)])
