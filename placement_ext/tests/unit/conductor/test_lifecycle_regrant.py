"""Reselection that asks the NFVO for a new Grant before each move."""

import re

import testtools

from placement_ext import errors
from placement_ext import exception
from placement_ext.conductor import lifecycle
from placement_ext.conf import v2_vnfm
from placement_ext.objects import operation as op_obj
from placement_ext.sol import grant as grant_mod
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import nfvo
from placement_ext.tests.fixtures import stacks as fake_stacks
from placement_ext.tests.unit.conductor import test_lifecycle
from placement_ext.vocabulary import states

ZONES = test_lifecycle.ZONES
GRANT_REQUEST = {
    'vnfInstanceId': 'vnf-1', 'vnfLcmOpOccId': 'op-1', 'vnfdId': 'vnfd-1',
    'operation': 'INSTANTIATE', 'isAutomaticInvocation': False,
    '_links': {'vnfLcmOpOcc': {'href': '/op-1'},
               'vnfInstance': {'href': '/vnf-1'}},
    'addResources': [{'id': 'res-1', 'type': 'COMPUTE',
                      'resourceTemplateId': 'VDU1'},
                     {'id': 'res-2', 'type': 'COMPUTE',
                      'resourceTemplateId': 'VDU2'}],
}


def grant(zones: dict[str, str]) -> grant_mod.Grant:
    """A Grant placing resource id -> zone name."""
    return grant_mod.parse(nfvo.grant_document(GRANT_REQUEST, zones))


def as_proposed(request):
    return grant(nfvo.proposed_zones(request))


class TestRegrant(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.db = self.useFixture(db_fixture.Database()).db

    def _run(self, room, answer, **extra):
        self.heat = fake_stacks.FakeHeat(room)
        self.nfvo = nfvo.FakeNfvo(answer)
        settings = lifecycle.Settings(
            capacity_error=re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR),
            regrant=True)
        self.runner = lifecycle.LifecycleRunner(
            self.db, self.heat, fake_stacks.FakeZones(ZONES, self.heat),
            settings,
            nfvo=self.nfvo)
        body = test_lifecycle.request(
            grant_request=GRANT_REQUEST,
            resource_names={'res-1': 'VDU1-0', 'res-2': 'VDU2-0'}, **extra)
        self.op = op_obj.create(self.db, vnf_instance_id='vnf-1',
                                operation='INSTANTIATE', params=body,
                                placement=body['placement'])
        return self.runner.run(self.op.id)

    def test_nfvo_is_told_what_failed_and_what_is_proposed(self):
        op = self._run({'AZ-1': 0, 'AZ-2': 1, 'AZ-4': 3}, as_proposed)
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        (sent,) = self.nfvo.requests
        extension = sent['additionalParams']['zoneReselection']
        self.assertEqual({'attempt': 1,
                          'proposedZones': {'res-1': 'AZ-4',
                                            'res-2': 'AZ-2'},
                          'failedZones': {'res-1': ['AZ-1']}}, extension)
        # the rest is the GrantRequest the operation was granted with
        self.assertEqual(GRANT_REQUEST['addResources'],
                         sent['addResources'])
        decision = op.attempts[-1].decision
        self.assertEqual({'id': 'grant-2', 'overridden': [],
                          'zones': {'VDU1-0': 'AZ-4', 'VDU2-0': 'AZ-2'}},
                         decision['grant'])
        self.assertIn('NFVO Grant grant-2 agrees with the proposal',
                      decision['reasons'])

    def test_the_grants_zone_wins_over_the_proposal(self):
        op = self._run({'AZ-1': 0, 'AZ-2': 1, 'AZ-3': 1, 'AZ-4': 3},
                       lambda request: grant({'res-1': 'AZ-3',
                                              'res-2': 'AZ-2'}))
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        self.assertEqual('AZ-3', op.placement['VDU1-0'])
        decision = op.attempts[-1].decision
        self.assertEqual(['VDU1-0'], decision['grant']['overridden'])
        self.assertEqual({'VDU1-0': ['AZ-1', 'AZ-3']}, decision['moved'])
        self.assertIn('NFVO Grant grant-2 places VDU1-0 in AZ-3 instead of '
                      'the proposal', decision['reasons'])

    def test_a_refusal_fails_the_operation_without_another_attempt(self):
        def refuse(request):
            raise exception.GrantRefused(reason='the NFVO says: no quota')

        op = self._run({'AZ-1': 0, 'AZ-4': 3}, refuse)
        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        self.assertEqual(errors.GRANT_REFUSED, op.error['code'])
        self.assertIn('no quota', op.error['detail'])
        self.assertEqual([states.OUTCOME_INSUFFICIENT_CAPACITY],
                         [a.outcome for a in op.attempts])

    def test_a_grant_into_a_failed_zone_is_refused(self):
        op = self._run({'AZ-1': 0, 'AZ-2': 1, 'AZ-4': 3},
                       lambda request: grant({'res-1': 'AZ-1',
                                              'res-2': 'AZ-2'}))
        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        self.assertIn('places VDU1-0 in AZ-1, where it already failed',
                      op.error['detail'])
        self.assertEqual(1, len(op.attempts))

    def test_retry_after_a_refusal_grants_again_without_resending(self):
        answers = [exception.GrantRefused(reason='busy'), None]

        def first_refuse(request):
            answer = answers.pop(0)
            if answer:
                raise answer
            return as_proposed(request)

        op = self._run({'AZ-1': 0, 'AZ-2': 1, 'AZ-4': 3}, first_refuse)
        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        op = op_obj.set_state(self.db, op, states.STATE_PROCESSING)
        op = self.runner.run(op.id)
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        # AZ-1 was not sent again: the retry went straight to the move
        self.assertEqual(['AZ-1', 'AZ-4'], [a.zone for a in op.attempts])
        self.assertEqual(2, len(self.nfvo.requests))

    def test_a_precheck_move_is_granted_before_the_first_attempt(self):
        op = self._run({'AZ-1': 0, 'AZ-2': 1, 'AZ-3': 1, 'AZ-4': 3},
                       lambda request: grant({'res-1': 'AZ-3',
                                              'res-2': 'AZ-2'}),
                       flavors={'VDU1': {'vcpus': 1, 'memory_mb': 512,
                                         'disk_gb': 1}},
                       grant_zones=list(ZONES))
        self.assertEqual(states.STATE_COMPLETED, op.state, op.error)
        (sent,) = self.nfvo.requests
        self.assertEqual({'attempt': 0,
                          'proposedZones': {'res-1': 'AZ-4',
                                            'res-2': 'AZ-2'},
                          'failedZones': {}},
                         sent['additionalParams']['zoneReselection'])
        (attempt,) = op.attempts
        self.assertTrue(attempt.decision['precheck'])
        self.assertEqual(['VDU1-0'], attempt.decision['grant']['overridden'])
        self.assertEqual('AZ-3', op.placement['VDU1-0'])
