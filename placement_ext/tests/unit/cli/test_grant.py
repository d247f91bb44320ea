"""``placement-ext grant request|evaluate``: documents, refusal, bad input."""

import json
import os

import yaml

from placement_ext.cli import grant as grant_cli
from placement_ext.cli import shell
from placement_ext.sol import grant as grant_mod
from placement_ext.sol import grant_request
from placement_ext.tests.unit.cli import test_reselection as base
from placement_ext.tests.unit.rpc import base as rpc_base

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


EXAMPLES = os.path.join(os.path.dirname(__file__), *['..'] * 4, 'doc',
                        'source', 'examples')
VNFD = os.path.join(EXAMPLES, 'vnfd_anti_affinity.yaml')
EXISTING = os.path.join(EXAMPLES, 'existing_vnfcs.json')
ZONES_EXAMPLE = os.path.join(EXAMPLES, 'zones_two_az.json')
SKIPPED_VDU2 = ('Policy affinity_vdu2_zone gives no placement constraint: '
                'only one resource: SOL 003 needs at least two per '
                'constraint\n')


class TestRequest(base.CliTestCase):
    """The documented example VNFD, existing VNFCs and zones."""

    def request(self, operation, *options, config=''):
        return self.run_cli(
            '--config-file', rpc_base.write_config(self.tmp, config),
            'grant', 'request', '--vnfd', VNFD, '--operation', operation,
            '--vnf-instance', 'inst-1', '-f', 'json', *options)

    def parsed(self, operation, *options, config=''):
        status, out, _ = self.request(operation, *options, config=config)
        self.assertEqual(0, status)
        self.stdout.seek(0)
        self.stdout.truncate()
        return grant_request.parse(json.loads(out)).to_dict()

    def test_instantiate_expands_the_placement_group(self):
        status, out, err = self.request('INSTANTIATE')
        self.assertEqual((0, SKIPPED_VDU2), (status, err))
        request = grant_request.parse(json.loads(out))
        self.assertEqual(
            ('INSTANTIATE', 'simple', 'b1bb0ce7-ebca-4fa7-95ed-4840d70a1177'),
            (request.operation, request.flavour_id, request.vnfd_id))
        self.assertEqual(['VDU1-0', 'VDU1-1', 'VDU2-0'],
                         [r.id for r in request.add_resources])
        hosts, zones = request.placement_constraints
        self.assertEqual(('NFVI_NODE', ('VDU1-0', 'VDU1-1', 'VDU2-0')),
                         (hosts.scope, hosts.resource_ids))
        self.assertEqual(('ZONE', ('VDU1-0', 'VDU1-1')),
                         (zones.scope, zones.resource_ids))
        self.assertEqual([False, False], [
            c.fallback_best_effort for c in request.placement_constraints])

    def test_output_is_what_grant_evaluate_reads(self):
        out = self.request('INSTANTIATE', '--add', 'VDU1=2', 'VDU2=2')[1]
        self.stdout.seek(0)
        self.stdout.truncate()
        status, out, _ = self.run_cli(
            'grant', 'evaluate', '--request', self.write('req.json', out),
            '--zones', ZONES_EXAMPLE, '-f', 'json')
        self.assertEqual(0, status)
        grant = grant_mod.parse(json.loads(out))
        self.assertEqual(['AZ-1', 'AZ-2'], sorted(
            grant.zone_name(f'VDU1-{i}') for i in range(2)))

    def test_scale_out_existing_vnfcs_and_the_configured_default(self):
        def fallbacks(*options, config=''):
            request = self.parsed('SCALE', '--add', 'VDU1=1', '--existing',
                                  EXISTING, *options, config=config)
            return [c['fallbackBestEffort']
                    for c in request['placementConstraints']]

        request = self.parsed('SCALE', '--add', 'VDU1=1', '--existing',
                              EXISTING)
        self.assertEqual([{'id': 'VDU1-2', 'type': 'COMPUTE',
                           'resourceTemplateId': 'VDU1'}],
                         request['addResources'])
        zones = request['placementConstraints'][1]['resource']
        self.assertEqual(
            [{'idType': 'GRANT', 'resourceId': 'VDU1-2'}] + [
                {'idType': 'RES_MGMT', 'resourceId': rid,
                 'vimConnectionId': 'vim-1'}
                for rid in ('srv-vdu1-0', 'srv-vdu1-1')], zones)
        self.assertEqual([False, False], fallbacks())
        true = '[v2_vnfm]\nplacement_fallback_best_effort = true\n'
        self.assertEqual([True, True], fallbacks(config=true))
        self.assertEqual([True, False], fallbacks(
            '--fallback-best-effort', 'anti_affinity_vdu1_zones=false',
            config=true))
        self.assertEqual([False, True], fallbacks(
            '--fallback-best-effort', 'anti_affinity_vdu1_zones=True'))

    def test_heal_recreates_and_constrains_against_the_others(self):
        request = self.parsed('HEAL', '--existing', EXISTING,
                              '--heal', 'VDU1-1', '--op-occ', 'op-7')
        self.assertEqual('op-7', request['vnfLcmOpOccId'])
        self.assertEqual(['VDU1-1'],
                         [r['id'] for r in request['addResources']])
        self.assertEqual(['srv-vdu1-1'],
                         [r['id'] for r in request['removeResources']])
        self.assertEqual(
            [['VDU1-1', 'srv-vdu1-0', 'srv-vdu2-0'], ['VDU1-1', 'srv-vdu1-0']],
            [[ref['resourceId'] for ref in c['resource']]
             for c in request['placementConstraints']])

    def test_a_json_vnfd(self):
        with open(VNFD, encoding='utf-8') as stream:
            path = self.write('vnfd.json', yaml.safe_load(stream))
        status, out, _ = self.run_cli(
            'grant', 'request', '--vnfd', path, '--operation', 'instantiate',
            '--vnf-instance', 'inst-1', '--vnfd-id', 'vnfd-9', '-f', 'json')
        self.assertEqual(0, status)
        self.assertEqual('vnfd-9', json.loads(out)['vnfdId'])

    def test_bad_input_exits_2_naming_the_option(self):
        invalid = 'ERROR placement_ext.input.invalid: Invalid '
        scale = ('SCALE', '--existing', EXISTING)
        for argv, line in (
                (scale + ('--add', 'VDU9=1'),
                 "add.VDU9: 'VDU9' is not a VDU of the VNFD (VDU1, VDU2)"),
                (scale + ('--add', 'VDU1=two'),
                 "--add: 'VDU1=two': COUNT must be a whole number"),
                (scale + ('--add', 'VDU1=0'),
                 'add.VDU1: the count must be a whole number from 1 to '
                 '10000, not 0'),
                (scale + ('--add', 'VDU1=1', 'VDU1=2'),
                 "--add: 'VDU1' is given twice"),
                (scale + ('--add', 'VDU1=1', '--heal', 'VDU1-0'),
                 'heal: only for HEAL, not SCALE'),
                (('HEAL', '--existing', EXISTING, '--heal', 'VDU3-0'),
                 "heal: 'VDU3-0' is not an existing VNFC (VDU1-0, VDU1-1, "
                 'VDU2-0)'),
                (('HEAL', '--add', 'VDU1=1', '--existing', EXISTING),
                 'add: only for INSTANTIATE and SCALE; HEAL re-creates the '
                 'healed VNFCs'),
                (('INSTANTIATE', '--fallback-best-effort', 'anti=maybe'),
                 "--fallback-best-effort: 'anti=maybe': must be true or "
                 'false'),
                (('INSTANTIATE', '--fallback-best-effort', 'anti=true'),
                 'fallback_best_effort.anti: no AffinityRule or '
                 'AntiAffinityRule of that name in the VNFD '
                 '(anti_affinity_hosts, anti_affinity_vdu1_zones, '
                 'affinity_vdu2_zone)'),
                (('INSTANTIATE', '--existing', self.write('e.json', {})),
                 "existing: {} is not of type 'array'")):
            self.stderr.seek(0)
            self.stderr.truncate()
            status, _, err = self.request(*argv)
            self.assertEqual((2, invalid + line + '\n'), (status, err))

    def test_unreadable_vnfd_exits_2(self):
        path = self.write('vnfd.yaml', 'topology_template: [\n')
        status, _, err = self.run_cli(
            'grant', 'request', '--vnfd', path, '--operation', 'INSTANTIATE',
            '--vnf-instance', 'inst-1')
        self.assertEqual(2, status)
        self.assertTrue(err.startswith(
            f"ERROR placement_ext.input.invalid: Invalid --vnfd: {path!r} "
            'is not YAML or JSON: while parsing'), err)
        self.assertEqual(1, len(err.splitlines()))

    def test_registered_entry_point(self):
        command, _, _ = shell.PlacementExtApp().command_manager.find_command(
            ['grant', 'request'])
        self.assertIs(grant_cli.Request, command)
