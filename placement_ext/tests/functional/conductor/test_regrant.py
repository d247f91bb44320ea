"""A move granted again by the NFVO, on real Heat, Nova and Placement.

The NFVO is the SOL 003 Grant stand-in of ``tests/fixtures/nfvo.py`` over
real HTTP (no NFVO can be installed here); everything else is the
embedded cloud.
"""

from placement_ext import conf as pe_conf
from placement_ext import errors
from placement_ext.tests.fixtures import nfvo
from placement_ext.tests.functional.conductor import base
from placement_ext.vocabulary import states


class TestRegrantBeforeMove(base.ConductorCloudTestCase):

    def _use_nfvo(self, answer, asynchronous=False):
        self.nfvo = self.useFixture(nfvo.NfvoFixture(answer, asynchronous))
        with open(self.config_file, 'a', encoding='utf-8') as conf_file:
            conf_file.write(
                '\n[v2_vnfm]\nplacement_regrant_before_move = true\n'
                f'[nfvo]\nauth_type = none\n'
                f'endpoint_override = {self.nfvo.endpoint}\n')
        self.conf = pe_conf.new_conf(['--config-file', self.config_file])

    def _instantiate_into_full_az1(self):
        self.cloud.fill_zone('AZ-1')
        grant_request = {
            'vnfInstanceId': self.stack_name, 'vnfLcmOpOccId': 'op-1',
            'vnfdId': 'vnfd-1', 'operation': 'INSTANTIATE',
            'isAutomaticInvocation': False,
            '_links': {'vnfLcmOpOcc': {'href': '/op-1'},
                       'vnfInstance': {'href': f'/{self.stack_name}'}},
            'addResources': [{'id': 'VDU1-0', 'type': 'COMPUTE',
                              'resourceTemplateId': 'VDU1'}]}
        return self.run_operation(self.request(
            'INSTANTIATE', {'VDU1-0': 'AZ-1'}, ['VDU1-0'],
            grant_request=grant_request))

    def test_the_nfvo_decides_where_the_vnfc_moves(self):
        # whatever is proposed, this NFVO grants AZ-3 (asynchronously)
        self._use_nfvo(lambda request: nfvo.grant_document(
            request, {'VDU1-0': 'AZ-3'}), asynchronous=True)
        op = self._instantiate_into_full_az1()

        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        (sent,) = self.nfvo.requests
        extension = sent['additionalParams']['zoneReselection']
        self.assertEqual({'VDU1-0': ['AZ-1']}, extension['failedZones'])
        self.assertNotIn('AZ-1', extension['proposedZones'].values())
        _, zone = self.server_zones()['VDU1-0']
        self.assertEqual('AZ-3', zone)
        self.assertEqual({'VDU1-0': 'AZ-3'},
                         op.attempts[-1].decision['grant']['zones'])

    def test_a_refused_move_fails_without_another_attempt(self):
        self._use_nfvo(lambda request: (403, {
            'status': 403, 'detail': 'no capacity reserved elsewhere'}))
        op = self._instantiate_into_full_az1()

        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        self.assertEqual(errors.GRANT_REFUSED, op.error['code'])
        self.assertIn('no capacity reserved elsewhere', op.error['detail'])
        self.assertEqual([('AZ-1', states.OUTCOME_INSUFFICIENT_CAPACITY)],
                         [(a.zone, a.outcome) for a in op.attempts])
        self.assertIn('No valid host was found', op.attempts[0].error_text)
