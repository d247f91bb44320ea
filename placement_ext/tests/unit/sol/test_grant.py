"""Grant: wire format and the zone references a schema cannot check."""

import copy

import testtools

from placement_ext import exception
from placement_ext.sol import grant as grant_mod

DOC = {
    'id': 'g-1', 'vnfInstanceId': 'inst-1', 'vnfLcmOpOccId': 'op-1',
    'zones': [{'id': 'z-a', 'zoneId': 'AZ-1', 'vimConnectionId': 'vim-1'},
              {'id': 'z-b', 'zoneId': 'AZ-2'}],
    'zoneGroups': [{'zoneId': ['z-a', 'z-b']}],
    'addResources': [{'resourceDefinitionId': 'r1', 'zoneId': 'z-b'},
                     {'resourceDefinitionId': 'r2'}],
    'removeResources': [{'resourceDefinitionId': 'r0'}],
    'vimConnectionInfo': {
        'vim-1': {'vimType': 'ETSINFV.OPENSTACK_KEYSTONE.V_3'}},
    'extVirtualLinks': [{'id': 'ext'}],
    '_links': {'self': {'href': '/g-1'}, 'vnfLcmOpOcc': {'href': '/op-1'},
               'vnfInstance': {'href': '/inst-1'}},
}


def changed(mutate):
    doc = copy.deepcopy(DOC)
    mutate(doc)
    return doc


class TestGrant(testtools.TestCase):

    def test_round_trip_and_zone_lookup(self):
        grant = grant_mod.parse(DOC)
        self.assertEqual(DOC, grant.to_dict())
        self.assertEqual('AZ-2', grant.zone_name('r1'))
        self.assertIsNone(grant.zone_name('r2'))
        self.assertIsNone(grant.zone_name('nope'))

    def test_invalid(self):
        cases = [
            (lambda d: d['addResources'][0].update(zoneId='AZ-2'),
             'addResources[0].zoneId', 'must refer to ZoneInfo.id'),
            (lambda d: d['zones'][1].update(id='z-a'), 'zones[1].id',
             'id of another zone'),
            (lambda d: d['zoneGroups'][0]['zoneId'].append('z-c'),
             'zoneGroups[0].zoneId[2]', 'is not the id of a ZoneInfo'),
            (lambda d: d['removeResources'][0].update(zoneId='z-a'),
             'removeResources[0].zoneId', 'must be absent'),
            (lambda d: d['_links'].pop('self'), '_links.self', 'is required'),
            (lambda d: d['zones'][0].pop('zoneId'), 'zones[0].zoneId',
             'is required'),
            (lambda d: d.update(zoneGroups=[{'zoneId': []}]),
             'zoneGroups[0].zoneId', 'needs at least 1'),
        ]
        for mutate, field, reason in cases:
            exc = self.assertRaises(exception.InvalidInput, grant_mod.parse,
                                    changed(mutate))
            self.assertEqual(field, exc.field, exc.reason)
            self.assertIn(reason, exc.reason)
