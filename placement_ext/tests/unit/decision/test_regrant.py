"""The GrantRequest of a move and the placement its Grant gives."""

import copy

import fixtures
import testtools

from placement_ext import conf as pe_conf
from placement_ext import exception
from placement_ext.conductor import stack_request
from placement_ext.decision import regrant
from placement_ext.sol import grant as grant_mod
from placement_ext.tests.fixtures import nfvo
from placement_ext.tests.unit.conductor import test_lifecycle
from placement_ext.tests.unit.conductor import test_lifecycle_regrant

GRANT_REQUEST = test_lifecycle_regrant.GRANT_REQUEST
NAMES = {'res-1': 'VDU1-0', 'res-2': 'VDU2-0'}


class TestMoveRequest(testtools.TestCase):

    def test_ids_fall_back_to_the_vnfc_name(self):
        self.assertEqual({'VDU1-0': 'res-1', 'VDU3-0': 'VDU3-0'},
                         regrant.resource_ids(['VDU1-0', 'VDU3-0'], NAMES))

    def test_extension_is_added_and_the_original_untouched(self):
        original = copy.deepcopy(GRANT_REQUEST)
        original['additionalParams'] = {'theirs': 1}
        sent = regrant.move_request(
            original, attempt=3, proposed={'VDU1-0': 'AZ-2'},
            failed={'VDU1-0': ['AZ-1', 'AZ-3']}, resource_names=NAMES)
        self.assertEqual({'theirs': 1, 'zoneReselection': {
            'attempt': 3, 'proposedZones': {'res-1': 'AZ-2'},
            'failedZones': {'res-1': ['AZ-1', 'AZ-3']}}},
            sent['additionalParams'])
        self.assertEqual({'theirs': 1}, original['additionalParams'])


class TestGrantedPlacement(testtools.TestCase):

    def _grant(self, zones):
        return grant_mod.parse(nfvo.grant_document(GRANT_REQUEST, zones))

    def test_zone_names_through_zone_info(self):
        grant = self._grant({'res-1': 'AZ-3', 'res-2': 'AZ-2'})
        self.assertEqual({'VDU1-0': 'AZ-3', 'VDU2-0': 'AZ-2'},
                         regrant.granted_placement(
                             grant, ['VDU1-0', 'VDU2-0'], {}, NAMES))

    def test_target_without_a_zone_is_refused(self):
        grant = self._grant({'res-1': 'AZ-3'})
        error = self.assertRaises(
            exception.GrantRefused, regrant.granted_placement, grant,
            ['VDU1-0', 'VDU2-0'], {}, NAMES)
        self.assertIn("gives no zone to VDU2-0 (no addResources entry "
                      "'res-2'", error.detail)


class TestOperationRequest(testtools.TestCase):

    def test_regrant_needs_the_grant_request(self):
        error = self.assertRaises(exception.InvalidInput,
                                  stack_request.validate,
                                  test_lifecycle.request(), True)
        self.assertIn('grant_request', error.detail)

    def test_every_target_needs_a_resource_definition(self):
        body = test_lifecycle.request(grant_request=GRANT_REQUEST,
                                      resource_names={'res-1': 'VDU1-0'})
        error = self.assertRaises(exception.InvalidInput,
                                  stack_request.validate, body, True)
        self.assertIn('grant_request.addResources', error.detail)
        self.assertIn('VDU2-0', error.detail)

    def test_bad_grant_request_names_the_field(self):
        body = test_lifecycle.request(grant_request={'vnfdId': 'x'})
        error = self.assertRaises(exception.InvalidInput,
                                  stack_request.validate, body)
        self.assertEqual('grant_request.vnfInstanceId', error.field)

    def test_regrant_needs_the_nfvo_endpoint(self):
        path = self.useFixture(fixtures.TempDir()).join('pe.conf')
        with open(path, 'w', encoding='utf-8') as conf_file:
            conf_file.write('[v2_vnfm]\nplacement_regrant_before_move = '
                            'true\n')
        error = self.assertRaises(exception.InvalidInput, pe_conf.new_conf,
                                  ['--config-file', path])
        self.assertIn('[nfvo] endpoint_override', error.detail)
