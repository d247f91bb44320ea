"""GrantRequest and PlacementConstraint: wire format and validation."""

import copy

import jsonschema
import testtools

from placement_ext import exception
from placement_ext.schemas import sol003
from placement_ext.sol import grant_request as gr
from placement_ext.sol import placement_constraint as pc
from placement_ext.vocabulary import sol_enums

DOC = {
    'vnfInstanceId': 'inst-1', 'vnfLcmOpOccId': 'op-1', 'vnfdId': 'vnfd-1',
    'flavourId': 'simple', 'operation': 'SCALE',
    'isAutomaticInvocation': False,
    'addResources': [
        {'id': 'r1', 'type': 'COMPUTE', 'vduId': 'VDU1',
         'resourceTemplateId': 'VDU1'},
        {'id': 'r2', 'type': 'STORAGE', 'resourceTemplateId': 'VS1'}],
    'removeResources': [
        {'id': 'r0', 'type': 'COMPUTE',
         'resource': {'resourceId': 'srv-0', 'vimConnectionId': 'vim-1'}}],
    'placementConstraints': [
        {'affinityOrAntiAffinity': 'ANTI_AFFINITY', 'scope': 'ZONE',
         'resource': [{'idType': 'GRANT', 'resourceId': 'r1'},
                      {'idType': 'RES_MGMT', 'resourceId': 'srv-0',
                       'vimConnectionId': 'vim-1'}],
         'fallbackBestEffort': True}],
    'vimConstraints': [{'sameResourceGroup': True, 'resource': [
        {'idType': 'GRANT', 'resourceId': 'r1'}]}],
    'additionalParams': {'anything': [1, {'goes': True}]},
    '_links': {'vnfLcmOpOcc': {'href': 'http://x/op-1'},
               'vnfInstance': {'href': 'http://x/inst-1'}},
}


def changed(path, value=None, delete=False):
    doc = copy.deepcopy(DOC)
    *parents, last = path
    target = doc
    for key in parents:
        target = target[key]
    if delete:
        del target[last]
    else:
        target[last] = value
    return doc


class TestWire(testtools.TestCase):

    def test_round_trip(self):
        request = gr.parse(DOC)
        self.assertEqual(DOC, request.to_dict())
        self.assertEqual('VDU1', request.add_resources[0].template)
        self.assertTrue(request.add_resources[0].is_compute)
        constraint = request.constraints()[0]
        self.assertEqual(('r1', 'srv-0'), constraint.resource_ids)
        self.assertFalse(constraint.is_affinity)
        self.assertTrue(constraint.best_effort)
        self.assertEqual(['addResources', 'addResources', 'removeResources'],
                         [wire for wire, _, _ in request.definitions()])

    def test_to_dict_does_not_alias(self):
        request = gr.parse(DOC)
        request.to_dict()['additionalParams']['anything'].append(2)
        self.assertEqual([1, {'goes': True}],
                         request.additional_params['anything'])

    def test_schemas_are_valid(self):
        for schema in (sol003.GRANT_REQUEST_V3_3_1, sol003.GRANT_V3_3_1):
            jsonschema.Draft202012Validator.check_schema(schema)


class TestInvalid(testtools.TestCase):

    CASES = [
        (changed(['placementConstraints', 0, 'scope'], 'REGION'),
         'placementConstraints[0].scope', "'REGION' is not one of: NFVI_POP"),
        (changed(['placementConstraints', 0, 'scope'], delete=True),
         'placementConstraints[0].scope', 'is required'),
        (changed(['placementConstraints', 0, 'affinityOrAntiAffinity'],
                 'SAME'),
         'placementConstraints[0].affinityOrAntiAffinity', 'not one of'),
        (changed(['placementConstraints', 0, 'resource'],
                 [{'idType': 'GRANT', 'resourceId': 'r1'}]),
         'placementConstraints[0].resource', 'needs at least 2'),
        (changed(['placementConstraints', 0, 'fallbackBestEffort'], 'yes'),
         'placementConstraints[0].fallbackBestEffort', "is not of type"),
        (changed(['placementConstraints', 0, 'weight'], 1),
         'placementConstraints[0].weight', 'is not allowed here'),
        (changed(['placementConstraints', 0, 'resource', 0, 'idType'],
                 'NAME'),
         'placementConstraints[0].resource[0].idType', 'not one of'),
        (changed(['placementConstraints', 0, 'resource', 0, 'resourceId'],
                 'r9'),
         'placementConstraints[0].resource[0].resourceId',
         "GRANT reference 'r9' names no resource definition"),
        (changed(['vimConstraints', 0, 'resource', 0, 'resourceId'], 'r9'),
         'vimConstraints[0].resource[0].resourceId', 'names no resource'),
        (changed(['addResources', 1, 'id'], 'r1'), 'addResources[1].id',
         "'r1' is already the id of addResources[0].id"),
        (changed(['removeResources', 0, 'id'], 'r2'),
         'removeResources[0].id', 'already the id'),
        (changed(['addResources', 0, 'resourceTemplateId'], delete=True),
         'addResources[0].resourceTemplateId', 'is required'),
        (changed(['removeResources', 0, 'resource'], delete=True),
         'removeResources[0].resource', 'is required'),
        (changed(['operation'], 'MODIFY'), 'operation', 'not one of'),
        (changed(['_links'], delete=True), '_links', 'is required'),
        (changed(['vnfdId'], ''), 'vnfdId', 'must not be empty'),
        ([], 'GrantRequest', 'is not of type'),
    ]

    def test_field_and_reason(self):
        for doc, field, reason in self.CASES:
            exc = self.assertRaises(exception.InvalidInput, gr.parse, doc)
            self.assertEqual(field, exc.field, exc.reason)
            self.assertIn(reason, exc.reason, field)
            self.assertEqual(f'Invalid {field}: {exc.reason}', exc.detail)


class TestPlacementConstraint(testtools.TestCase):

    def test_builders_renamed_and_describe(self):
        constraint = pc.PlacementConstraint(
            affinity_or_anti_affinity=sol_enums.AFFINITY, scope=sol_enums.ZONE,
            resource=(pc.ConstraintResourceRef.grant('g1'),
                      pc.ConstraintResourceRef.res_mgmt('srv', 'vim-1')))
        self.assertFalse(constraint.best_effort)  # absent = false
        renamed = constraint.renamed({'g1': 'VDU1-2', 'srv': 'VDU1-0'})
        self.assertEqual(('VDU1-2', 'VDU1-0'), renamed.resource_ids)
        self.assertEqual('vim-1', renamed.resource[1].vim_connection_id)
        self.assertEqual('AFFINITY/ZONE [VDU1-2, VDU1-0]',
                         renamed.describe())
        self.assertEqual(('g1', 'srv'),
                         constraint.renamed({}).resource_ids)
        self.assertEqual(constraint, pc.PlacementConstraint.from_dict(
            constraint.to_dict()))
