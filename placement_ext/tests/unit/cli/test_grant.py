"""``placement-ext grant evaluate``: the Grant, a refusal, bad input."""

import json

from placement_ext.cli import grant as grant_cli
from placement_ext.cli import shell
from placement_ext.sol import grant as grant_mod
from placement_ext.tests.unit.cli import test_reselection as base

REQUEST = {
    'vnfInstanceId': 'inst-1', 'vnfLcmOpOccId': 'op-1', 'vnfdId': 'vnfd-1',
    'operation': 'INSTANTIATE', 'isAutomaticInvocation': False,
    '_links': {'vnfLcmOpOcc': {'href': 'http://vnfm/op-1'},
               'vnfInstance': {'href': 'http://vnfm/inst-1'}},
    'addResources': [{'id': f'r{i}', 'type': 'COMPUTE',
                      'resourceTemplateId': 'VDU1'} for i in range(3)],
    'placementConstraints': [{
        'affinityOrAntiAffinity': 'ANTI_AFFINITY', 'scope': 'ZONE',
        'resource': [{'idType': 'GRANT', 'resourceId': f'r{i}'}
                     for i in range(3)],
        'fallbackBestEffort': True}],
}

ZONES = {
    'vimConnectionId': 'vim-1',
    'zones': [{'zoneId': f'AZ-{z}', 'hosts': [
        {'name': f'az{z}-h1', 'free': {'VCPU': 4, 'MEMORY_MB': 8192}}]}
        for z in (1, 2)],
    'flavours': {'VDU1': {'VCPU': 1, 'MEMORY_MB': 1024}},
}


class TestEvaluate(base.CliTestCase):

    def evaluate(self, request=REQUEST, zones=ZONES, *options):
        return self.run_cli(
            'grant', 'evaluate', '--request', self.write('req.json', request),
            '--zones', self.write('zones.json', zones), '-f', 'json',
            *options)

    def test_prints_the_grant_with_relaxed_constraints(self):
        status, out, err = self.evaluate()
        self.assertEqual((0, ''), (status, err))
        grant = grant_mod.parse(json.loads(out))
        self.assertEqual(['AZ-1', 'AZ-2'], [z.zone_id for z in grant.zones])
        self.assertEqual({'AZ-1', 'AZ-2'},
                         {grant.zone_name(f'r{i}') for i in range(3)})
        relaxed = grant.additional_params['relaxedPlacementConstraints']
        self.assertEqual(0, relaxed[0]['index'])

    def test_grant_id_is_repeatable_or_given(self):
        first = json.loads(self.evaluate()[1])['id']
        self.stdout.seek(0)
        self.stdout.truncate()
        self.assertEqual(first, json.loads(self.evaluate()[1])['id'])
        self.stdout.seek(0)
        self.stdout.truncate()
        out = self.evaluate(REQUEST, ZONES, '--grant-id', 'g-42')[1]
        self.assertEqual('/grant/v1/grants/g-42',
                         json.loads(out)['_links']['self']['href'])

    def test_refusal_exits_1_with_the_reason(self):
        hard = json.loads(json.dumps(REQUEST))
        del hard['placementConstraints'][0]['fallbackBestEffort']
        status, out, err = self.evaluate(hard)
        self.assertEqual((1, ''), (status, out))
        self.assertEqual(
            'ERROR placement_ext.grant.refused: Grant refused: '
            'placementConstraints[0] (ANTI_AFFINITY/ZONE [r0, r1, r2]) '
            'cannot be honoured: it needs 3 different zones; 2 are usable\n',
            err)

    def test_bad_request_exits_2(self):
        bad = dict(REQUEST, operation='FLY')
        status, _, err = self.evaluate(bad)
        self.assertEqual(2, status)
        self.assertIn('ERROR placement_ext.input.invalid: Invalid operation: '
                      "'FLY' is not one of", err)

    def test_bad_zones_exit_2(self):
        status, _, err = self.evaluate(REQUEST, dict(ZONES, flavours={}))
        self.assertEqual(2, status)
        self.assertEqual(
            'ERROR placement_ext.input.invalid: Invalid '
            "addResources[0].resourceTemplateId: no flavour for 'VDU1' in "
            'the zones (flavours)\n', err)

    def test_registered_entry_point(self):
        command, _, _ = shell.PlacementExtApp().command_manager.find_command(
            ['grant', 'evaluate'])
        self.assertIs(grant_cli.Evaluate, command)
