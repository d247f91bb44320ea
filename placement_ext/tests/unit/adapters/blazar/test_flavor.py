"""Blazar's flavor:instance reservations translated into our instance
reservation request, and served by the same adapter."""

import json
from unittest import mock

import testtools

from placement_ext import exception
from placement_ext.adapters.blazar import flavor
from placement_ext.adapters.blazar import recovery
from placement_ext.adapters.blazar import translate
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.unit.adapters.blazar import test_workflows as tw

MEDIUM = {'id': '3', 'name': 'm1.medium', 'vcpus': 2, 'ram': 4096,
          'disk': 40, 'swap': '', 'OS-FLV-EXT-DATA:ephemeral': 0,
          'links': [{'href': 'x'}], 'extra_specs': {'hw_rng:allowed': 'True'}}
VALUES = {key: value for key, value in tw.VALUES.items()
          if key not in ('vcpus', 'memory_mb', 'disk_gb')}
VALUES.update(resource_type='flavor:instance', flavor_id='3')


def refusal(func, *args):
    """The field and reason of the InvalidInput ``func`` raises."""
    try:
        func(*args)
    except exception.InvalidInput as exc:
        return exc.field, str(exc)
    raise AssertionError(f'{func.__name__} accepted {args!r}')


class TestInstanceValues(testtools.TestCase):

    def test_the_flavor_sizes_the_request(self):
        out = flavor.instance_values(VALUES, MEDIUM)
        self.assertEqual((2, 4096, 40), (out['vcpus'], out['memory_mb'],
                                         out['disk_gb']))
        self.assertNotIn('flavor_id', out)
        self.assertEqual('3', out['amount'])
        request = translate.reservation_request(out)
        self.assertEqual({'resource_type': 'virtual:instance', 'amount': 3,
                          'vcpus': 2, 'memory_mb': 4096, 'disk_gb': 40,
                          'affinity': 'None'}, request)

    def test_disk_is_what_nova_claims(self):
        big = dict(MEDIUM, swap=1536, **{'OS-FLV-EXT-DATA:ephemeral': 5})
        self.assertEqual(47, flavor.instance_values(VALUES, big)['disk_gb'])

    def test_the_source_flavor_is_kept_as_upstream(self):
        kept = flavor.instance_values(VALUES, MEDIUM)['resource_properties']
        self.assertNotIn('links', json.loads(kept))
        self.assertEqual('m1.medium', flavor.parse_snapshot(kept)['name'])
        # it is no host filter
        self.assertEqual((), translate.conditions(kept))
        self.assertIsNone(flavor.parse_snapshot('["==", "$gpu", "1"]'))
        self.assertIsNone(flavor.parse_snapshot(''))

    def test_carried_specs_ours_win(self):
        kept = flavor.snapshot(dict(MEDIUM, extra_specs={
            'hw_rng:allowed': 'True',
            'aggregate_instance_extra_specs:reservation': 'other'}))
        specs = flavor.carried_specs(kept, tw.RES)
        self.assertEqual('True', specs['hw_rng:allowed'])
        self.assertEqual(tw.RES, specs[
            'aggregate_instance_extra_specs:reservation'])
        self.assertIn('resources:CUSTOM_RESERVATION_' +
                      tw.RES.upper().replace('-', '_'), specs)

    def test_missing_fields_are_named(self):
        self.assertEqual('flavor_id', refusal(
            flavor.required, {'amount': 1}, 'flavor_id')[0])
        self.assertEqual('flavor_id', refusal(
            flavor.required, {'flavor_id': ' '}, 'flavor_id')[0])
        no_amount = {k: v for k, v in VALUES.items() if k != 'amount'}
        field, why = refusal(flavor.instance_values, no_amount, MEDIUM)
        self.assertEqual('amount', field)
        self.assertIn('flavor:instance', why)

    def test_flavors_claiming_other_resources_are_refused(self):
        for specs in ({'resources:VGPU': '1'}, {'trait:HW_GPU': 'required'},
                      {'resources1:PCPU': '2'}, {'hw:cpu_policy': 'dedicated'},
                      {'accel:device_profile': 'gpu'}):
            field, why = refusal(flavor.instance_values, VALUES,
                                 dict(MEDIUM, extra_specs=specs))
            self.assertEqual('flavor_id', field)
            self.assertIn('flavor 3', why)
        self.assertEqual([], flavor.claiming_specs(
            {'hw:cpu_policy': 'shared', 'hw_rng:allowed': 'True'}))

    def test_an_update_keeps_the_flavor(self):
        kept = flavor.snapshot(MEDIUM)
        flavor.same_flavor({'flavor_id': '3'}, kept)
        flavor.same_flavor({'amount': 2}, kept)
        flavor.same_flavor({'flavor_id': '4'}, '')   # not a flavor one
        field, why = refusal(flavor.same_flavor, {'flavor_id': '4'}, kept)
        self.assertEqual('flavor_id', field)
        self.assertIn('keeps its flavor 3', why)


class TestAdapter(tw.AdapterTestCase):
    """A flavor reservation takes the virtual:instance path."""

    def setUp(self):
        super().setUp()
        self.nova = self.adapter.workflows.nova = mock.Mock()

    def reserve_flavor(self):
        return self.adapter.reserve(
            tw.RES, flavor.instance_values(VALUES, MEDIUM), 'p1', 'u1')

    def test_reserve_records_both_sides_and_carries_the_specs(self):
        resource_id = self.reserve_flavor()
        (_what, body, _project, _ids), = self.leases.calls
        self.assertEqual(2, body['reservations'][0]['vcpus'])
        row = self.blazar.instance_reservation_get(resource_id)
        self.assertEqual('m1.medium', json.loads(
            row['resource_properties'])['name'])
        self.assertEqual(3, len(self.blazar.allocations))
        kwargs = self.nova.ensure_private_flavor.call_args.kwargs
        self.assertEqual('True', kwargs['extra_specs']['hw_rng:allowed'])
        self.assertEqual('p1', kwargs['project_id'])

    def test_start_carries_the_specs_again(self):
        resource_id = self.reserve_flavor()
        self.adapter.start(resource_id)
        self.assertEqual(2, self.nova.ensure_private_flavor.call_count)

    def test_instance_reservations_carry_nothing(self):
        self.reserve()
        self.nova.ensure_private_flavor.assert_not_called()

    def test_update_keeps_the_flavor(self):
        self.reserve_flavor()
        exc = self.assertRaises(exception.InvalidInput, self.adapter.update,
                                tw.RES, {'flavor_id': '4'})
        self.assertEqual('flavor_id', exc.field)
        self.adapter.update(tw.RES, {'flavor_id': '3', 'amount': 2})
        self.assertEqual(2, lease_obj.find(self.db, tw.RES)
                         .reservations[0].amount)


class TestRecovery(testtools.TestCase):

    def test_flavor_leases_are_ours_to_recover(self):
        def lease(*types):
            return {'reservations': [{'resource_type': t} for t in types]}
        self.assertTrue(recovery._all_ours(lease('flavor:instance',
                                                 'virtual:instance')))
        self.assertFalse(recovery._all_ours(lease('flavor:instance',
                                                  'physical:host')))
