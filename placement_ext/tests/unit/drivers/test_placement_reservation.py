import testtools

from placement_ext import exception
from placement_ext.drivers.placement import client as pclient
from placement_ext.drivers.placement import reservation
from placement_ext.tests.fixtures import placement_api as fakes

RP = fakes.CN1
INV = f'/resource_providers/{RP}/inventories'
RC = 'CUSTOM_RESERVATION_4D17D41A_830D_47B2_91C7_4F9FC0AE611E'
INV_RC = f'{INV}/{RC}'
VCPU = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
        'step_size': 1, 'allocation_ratio': 16.0}
CONFLICT = (409, fakes.error_body(409, 'generation conflict',
                                  'placement.concurrent_update'))


def _inventories(generation, **inventories):
    return (200, {'resource_provider_generation': generation,
                  'inventories': inventories})


def _providers(routes, max_attempts=3):
    adapter = fakes.FakeAdapter(routes)
    return reservation.ReservationProviders(
        pclient.PlacementClient(adapter), max_attempts=max_attempts,
        max_wait=0.001), adapter


def _sent(adapter):
    """Paths sent, without the version discovery."""
    return [path for path in adapter.paths() if path != '/']


class TestSetInventory(testtools.TestCase):

    def test_keeps_other_classes_and_sends_the_generation(self):
        providers, adapter = _providers({
            ('GET', INV): _inventories(4, VCPU=VCPU),
            ('PUT', INV): _inventories(5, VCPU=VCPU)})
        providers.set_inventory(RP, RC, 3)
        put = adapter.sent[-1]
        self.assertEqual(4, put.json['resource_provider_generation'])
        self.assertEqual(VCPU, put.json['inventories']['VCPU'])
        self.assertEqual(dict(reservation.INVENTORY_DEFAULTS, total=3),
                         put.json['inventories'][RC])
        self.assertEqual('1.29', put.microversion)

    def test_retries_a_generation_conflict_from_the_read(self):
        providers, adapter = _providers({
            ('GET', INV): [_inventories(4), _inventories(5)],
            ('PUT', INV): [CONFLICT, _inventories(6)]})
        providers.set_inventory(RP, RC, 3)
        self.assertEqual(1, providers.conflicts)
        self.assertEqual([4, 5], [s.json['resource_provider_generation']
                                  for s in adapter.sent if s.method == 'PUT'])

    def test_gives_up_after_max_attempts(self):
        providers, adapter = _providers({
            ('GET', INV): _inventories(4), ('PUT', INV): CONFLICT},
            max_attempts=3)
        self.assertRaises(exception.ConcurrentUpdate,
                          providers.set_inventory, RP, RC, 3)
        self.assertEqual(3, len(adapter.paths('PUT')))

    def test_unchanged_inventory_is_not_written(self):
        current = dict(reservation.INVENTORY_DEFAULTS, total=3)
        providers, adapter = _providers({
            ('GET', INV): _inventories(4, **{RC: current})})
        providers.set_inventory(RP, RC, 3)
        self.assertEqual([], adapter.paths('PUT'))

    def test_total_must_be_positive(self):
        providers, _ = _providers({})
        for total in (0, -1, True, '3'):
            err = self.assertRaises(exception.InvalidInput,
                                    providers.set_inventory, RP, RC, total)
            self.assertEqual('total', err.field)


class TestDeleteInventory(testtools.TestCase):

    def test_one_call_when_nothing_is_in_the_way(self):
        providers, adapter = _providers({('DELETE', INV_RC): (204, None)})
        providers.delete_inventory(RP, RC)
        self.assertEqual([INV_RC], _sent(adapter))

    def test_absent_class_is_done(self):
        providers, adapter = _providers({
            ('DELETE', INV_RC): (404, fakes.error_body(404, 'No inventory'))})
        providers.delete_inventory(RP, RC)
        self.assertEqual([INV_RC], _sent(adapter))

    def test_absent_provider_is_done(self):
        providers, _ = _providers({
            ('DELETE', INV_RC): (404, fakes.error_body(404, 'No provider'))})
        providers.delete_inventory(RP, RC)

    def test_a_conflict_is_told_apart_by_the_generation_checked_path(self):
        # Placement answers "concurrent update" for a class in use too
        current = dict(reservation.INVENTORY_DEFAULTS, total=3)
        providers, adapter = _providers({
            ('DELETE', INV_RC): CONFLICT,
            ('GET', INV): _inventories(4, VCPU=VCPU, **{RC: current}),
            ('PUT', INV): (409, fakes.error_body(
                409, 'in use', 'placement.inventory.inuse'))})
        err = self.assertRaises(exception.Conflict,
                                providers.delete_inventory, RP, RC)
        self.assertEqual('placement.inventory.inuse', err.placement_code)
        self.assertEqual([INV_RC, INV, INV], _sent(adapter))

    def test_a_race_is_retried_on_the_generation_checked_path(self):
        current = dict(reservation.INVENTORY_DEFAULTS, total=3)
        providers, adapter = _providers({
            ('DELETE', INV_RC): CONFLICT,
            ('GET', INV): [_inventories(4, VCPU=VCPU, **{RC: current}),
                           _inventories(5, VCPU=VCPU)],
            ('PUT', INV): CONFLICT})
        providers.delete_inventory(RP, RC)
        self.assertEqual([INV_RC, INV, INV, INV], _sent(adapter))


class TestNames(testtools.TestCase):

    def test_only_custom_classes(self):
        providers, _ = _providers({})
        for name in ('VCPU', 'CUSTOM_lower', '', 'CUSTOM_'):
            err = self.assertRaises(exception.InvalidInput,
                                    providers.ensure_resource_class, name)
            self.assertEqual('resource_class', err.field)

    def test_hostname_checked_before_any_call(self):
        providers, adapter = _providers({})
        self.assertRaises(exception.InvalidInput,
                          providers.ensure_reservation_provider, '')
        self.assertEqual([], adapter.sent)
