"""Blazar's placement client calls for ``blazar_<host>`` reach our
reservation providers (canned Placement answers, no blazar): create
reuses what exists, delete empties; every other call is Blazar's."""

from unittest import mock

import testtools

from placement_ext.adapters.blazar import providers as adapter
from placement_ext.drivers.placement import client as pclient
from placement_ext.drivers.placement import reservation
from placement_ext.tests.fixtures import placement_api as fakes

CN = fakes.CN1
RP = '99999999-9999-4999-8999-999999999999'
RPS = '/resource_providers'


def _listed(*bodies):
    return (200, {'resource_providers': list(bodies)})


def _body(uuid, name, parent=None):
    return {'uuid': uuid, 'name': name, 'generation': 0,
            'parent_provider_uuid': parent, 'root_provider_uuid': parent}


COMPUTE = _body(CN, 'h1')
OURS = _body(RP, 'blazar_h1', CN)


class TestReservationProviderClient(testtools.TestCase):

    def _client(self, routes):
        self.placement = fakes.FakeAdapter(routes)
        self.upstream = mock.Mock()
        providers = reservation.ReservationProviders(
            pclient.PlacementClient(self.placement))
        return adapter.ReservationProviderClient(self.upstream,
                                                 lambda: providers)

    def test_create_reuses_the_provider_a_delete_kept(self):
        client = self._client({('GET', RPS): [_listed(COMPUTE),
                                              _listed(OURS)]})
        self.assertEqual(OURS, client.create_reservation_provider('h1'))
        self.assertEqual([], self.placement.paths('POST'))

    def test_create_makes_a_missing_provider(self):
        client = self._client({('GET', RPS): [_listed(COMPUTE), _listed()],
                               ('POST', RPS): (200, OURS)})
        self.assertEqual(OURS, client.create_reservation_provider('h1'))
        self.assertEqual({'name': 'blazar_h1', 'parent_provider_uuid': CN},
                         self.placement.sent[-1].json)

    def test_delete_empties_and_keeps_the_provider(self):
        inventories = f'{RPS}/{RP}/inventories'
        client = self._client({('GET', RPS): _listed(OURS),
                               ('DELETE', inventories): (204, None)})
        client.delete_reservation_provider('h1')
        self.assertEqual([inventories], self.placement.paths('DELETE'))

    def test_delete_of_a_missing_provider_does_nothing(self):
        client = self._client({('GET', RPS): _listed()})
        client.delete_reservation_provider('h1')
        self.assertEqual([], self.placement.paths('DELETE'))

    def test_other_calls_are_blazars(self):
        client = self._client({})
        self.upstream.get_inventory.return_value = {'inventories': {}}
        self.assertEqual({'inventories': {}}, client.get_inventory(CN))
        self.upstream.get_inventory.assert_called_once_with(CN)
        self.assertEqual([], self.placement.sent)
