"""Our zone reselection inside the real tacker-conductor, through
Tacker's own v2 API, on the embedded cloud.

Tacker's local NFVO grants every VNFC AZ-1; the tests fill AZ-1 first,
so Tacker's first stack create fails there and
``placement-ext-tacker-conductor``'s driver reselects. The VNF: VDU1 x2
with a zone affinity rule, VDU2 x2 with a zone anti-affinity rule.
"""

import configparser
import pathlib

import requests
import sqlalchemy as sa

from placement_ext.db import models
from placement_ext.testing import tacker_api
from placement_ext.tests.functional.cloud import fixture
from placement_ext.tests.functional.tacker import base
from placement_ext.vocabulary import states


class TestOurReselectionInTacker(base.TackerTestCase):

    def test_instantiate_scale_out_and_heal_reselect_only_targets(self):
        az1 = self.cloud.fill_zone('AZ-1')
        inst_id, occ = self.instantiate()

        self.assertCompleted(occ)
        zones = self.zones(inst_id)
        self.assertNotIn('AZ-1', zones.values())
        self.assertEqual(zones['VDU1-0'], zones['VDU1-1'])     # affinity
        self.assertNotEqual(zones['VDU2-0'], zones['VDU2-1'])  # anti
        [op] = self.operations(inst_id)
        self.assertEqual(('INSTANTIATE', states.STATE_COMPLETED),
                         (op.operation, op.state))
        first, last = op.attempts[0], op.attempts[-1]
        # Tacker's own try, recorded as our first attempt
        self.assertEqual(('AZ-1', states.OUTCOME_INSUFFICIENT_CAPACITY),
                         (first.zone, first.outcome))
        self.assertIn('No valid host was found', first.error_text)
        self.assertEqual(states.OUTCOME_SUCCESS, last.outcome)
        self.assertEqual(op.placement, zones)
        self.assertEqual(len(op.attempts), tacker_api.heat_attempts(
            self.cloud.admin, inst_id))

        # scale out: Tacker grants VDU1-2 AZ-1 (full); only it moves
        occ = self.tacker.wait(self.tacker.lcm(
            inst_id, 'scale', tacker_api.scale_out_request()))
        self.assertCompleted(occ)
        scaled = self.zones(inst_id)
        self.assertNotEqual('AZ-1', scaled['VDU1-2'])
        self.assertEqual(zones, {k: v for k, v in scaled.items()
                                 if k != 'VDU1-2'})
        scale_op = self.operations(inst_id)[-1]
        self.assertEqual(('SCALE', ['VDU1-2']),
                         (scale_op.operation, scale_op.params['targets']))

        # heal VDU2-1 with its zone full and AZ-1 free again: only it moves
        healed_zone = scaled['VDU2-1']
        self.cloud.fill_zone(healed_zone)
        for server in az1:
            self.cloud.admin.compute.delete_server(server)
        for server in az1:
            self.cloud.admin.compute.wait_for_delete(server, wait=300)
        occ = self.tacker.wait(self.tacker.lcm(
            inst_id, 'heal', tacker_api.heal_request([tacker_api.vnfc_info_id(
                self.tacker.instance(inst_id), 'VDU2-1')])))
        self.assertCompleted(occ)
        healed = self.zones(inst_id)
        self.assertNotEqual(healed_zone, healed['VDU2-1'])
        self.assertNotEqual(healed['VDU2-0'], healed['VDU2-1'])
        self.assertEqual({k: v for k, v in scaled.items() if k != 'VDU2-1'},
                         {k: v for k, v in healed.items() if k != 'VDU2-1'})
        heal_op = self.operations(inst_id)[-1]
        self.assertEqual(('HEAL', ['VDU2-1']),
                         (heal_op.operation, heal_op.params['targets']))

    def test_other_heat_error_fails_at_once_with_heats_text(self):
        # no zone is full, but the project may start no more servers:
        # Heat fails with Nova's quota error, which no move can fix
        used = len(list(self.cloud.admin.compute.servers()))
        self.cloud.admin.set_compute_quotas('admin', instances=used + 1)
        inst_id, occ = self.instantiate()

        self.assertEqual('FAILED_TEMP', occ['operationState'])
        self.assertIn('Quota exceeded for instances', occ['error']['detail'])
        [op] = self.operations(inst_id)
        self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        [attempt] = op.attempts
        self.assertEqual(states.OUTCOME_ERROR, attempt.outcome)
        self.assertIn(op.id, occ['error']['detail'])


class TestWithOurNfvoInFrontOfTacker(base.TackerTestCase):
    """Tacker with ``[v2_nfvo] use_external_nfvo`` asking
    placement-ext-nfvo, which also serves it the VNF package. (Named to
    run after the other class: one restart of Tacker per run.)"""

    def mode(self):
        return base.external_nfvo(self.addon)

    def test_grant_places_every_vnfc_where_it_fits_in_one_attempt(self):
        self.cloud.fill_zone('AZ-1')
        inst_id, occ = self.instantiate()

        self.assertCompleted(occ)
        zones = self.zones(inst_id)
        self.assertNotIn('AZ-1', zones.values())
        self.assertEqual(zones['VDU1-0'], zones['VDU1-1'])
        self.assertNotEqual(zones['VDU2-0'], zones['VDU2-1'])
        # Heat's first stack create succeeded: no reselection was needed
        self.assertEqual(1, tacker_api.heat_attempts(self.cloud.admin,
                                                     inst_id))
        self.assertEqual([], self.operations(inst_id))

        # the Grant is in the database, and served after a restart of
        # placement-ext-nfvo (as by any other process on that database)
        grant = models.NfvoGrant
        with self.db.reader() as session:
            [given] = session.execute(
                sa.select(grant.id, grant.operation, grant.grant_body)
                .where(grant.vnf_instance_id == inst_id)).all()
        self.assertEqual('INSTANTIATE', given.operation)
        result = fixture.run_minicloud('addon', 'restart', 'tacker',
                                       'placement-ext-nfvo', timeout=300)
        self.assertEqual(0, result.returncode, result.stdout)
        url = self.addon['urls']['nfvo']
        reply = requests.get(f'{url}/grant/v1/grants/{given.id}',
                             headers=self._nfvo_token(url), timeout=60)
        self.assertEqual((200, given.grant_body), (reply.status_code,
                                                 reply.json()))

    def _nfvo_token(self, url):
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(pathlib.Path(self.addon['etc'], 'nfvo.conf'))
        client = parser['nfvo_api']
        reply = requests.post(f'{url}/token', timeout=60, auth=(
            client['client_id'], client['client_secret']),
            data={'grant_type': 'client_credentials'})
        reply.raise_for_status()
        return {'Authorization': f'Bearer {reply.json()["access_token"]}'}
