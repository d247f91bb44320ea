"""Tacker's conductor swapped for ours under live VNFs, and back, as
``doc/source/tacker.rst`` ("Swapping the conductor in and out") tells an
operator: the addon's tacker-conductor restarted on the same
configuration as Tacker's own ``tacker-conductor`` or as
``placement-ext-tacker-conductor``, with VNFs (and a ``FAILED_TEMP``
occurrence) made by the other one.

Tacker's local NFVO grants every VNFC AZ-1 (see ``test_reselection``);
the VNF: VDU1 x2 (zone affinity), VDU2 x2 (zone anti-affinity). Each test
restarts the conductor twice (about 45 s each) and runs four to seven
LCM operations, 4 to 7 minutes in all: ``tox -e tacker-swap16`` and
``tacker-swap13`` run them, not ``./run tests``.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

from testtools import content

from placement_ext import polling
from placement_ext.testing import tacker_api
from placement_ext.tests.functional.tacker import base
from placement_ext.vocabulary import states


class SwapTestCase(base.TackerTestCase):
    """``swap``: restart tacker-conductor as Tacker's or ours; the test
    ends with ours running again (what the next test expects)."""

    tackers = False

    def swap(self, tackers: bool) -> None:
        if not tackers:
            self.cloud.admin.set_compute_quotas('admin', instances=-1)
        began = time.monotonic()
        if tackers and not self.tackers:
            self.addCleanup(self._ours_at_the_end)
        base.restart_conductor(tackers)
        self.tackers = tackers
        name = 'tackers' if tackers else 'ours'
        self.addDetail(f'swap-to-{name}-seconds', content.text_content(
            f'{time.monotonic() - began:.1f}'))

    def _ours_at_the_end(self) -> None:
        if self.tackers:
            base.restart_conductor(tackers=False)
            self.tackers = False

    def lcm(self, inst_id: str, action: str, body: dict) -> dict:
        """Run an LCM operation; the occurrence once ended (its
        duration a detail of the test)."""
        began = time.monotonic()
        occ = self.tacker.wait(self.tacker.lcm(inst_id, action, body))
        self.addDetail(f'{action}-{occ["id"][:8]}-seconds',
                       content.text_content(
                           f'{time.monotonic() - began:.1f}'))
        return occ

    def heal(self, inst_id: str, vnfc: str) -> dict:
        return self.lcm(inst_id, 'heal', tacker_api.heal_request([
            tacker_api.vnfc_info_id(self.tacker.instance(inst_id), vnfc)]))

    def terminate(self, inst_id: str) -> None:
        self.assertCompleted(self.lcm(inst_id, 'terminate', {
            'terminationType': 'FORCEFUL'}))
        self.tacker.delete_instance(inst_id)

    def assertKept(self, before: dict, after: dict, changed: str) -> None:
        """Every VNFC but ``changed`` is where it was."""
        self.assertEqual({k: v for k, v in before.items() if k != changed},
                         {k: v for k, v in after.items() if k != changed})


class TestSwapIn(SwapTestCase):
    """VNFs of Tacker's ``tacker-conductor``, continued by ours."""

    def test_tackers_vnf_scales_heals_changes_terminates_under_ours(self):
        self.swap(tackers=True)
        inst_id, occ = self.instantiate()
        self.assertCompleted(occ)
        zones = self.zones(inst_id)
        self.swap(tackers=False)

        # Tacker grants the new VNFC AZ-1, full: ours moves it alone
        self.cloud.fill_zone('AZ-1')
        self.assertCompleted(self.lcm(inst_id, 'scale',
                                      tacker_api.scale_out_request()))
        scaled = self.zones(inst_id)
        self.assertNotEqual('AZ-1', scaled['VDU1-2'])
        self.assertKept(zones, scaled, 'VDU1-2')
        [scale_op] = self.operations(inst_id)
        self.assertEqual(('SCALE', states.STATE_COMPLETED, ['VDU1-2']),
                         (scale_op.operation, scale_op.state,
                          scale_op.params['targets']))

        # VDU2-1's zone (AZ-1, where Tacker's conductor put it) is full
        self.assertCompleted(self.heal(inst_id, 'VDU2-1'))
        healed = self.zones(inst_id)
        self.assertKept(scaled, healed, 'VDU2-1')
        self.assertNotEqual('AZ-1', healed['VDU2-1'])
        heal_op = self.operations(inst_id)[-1]
        self.assertEqual(('HEAL', states.STATE_COMPLETED, ['VDU2-1']),
                         (heal_op.operation, heal_op.state,
                          heal_op.params['targets']))

        self.assertCompleted(self.tacker.wait(self.tacker.modify(
            inst_id, {'vnfInstanceDescription': 'changed under ours'})))
        self.assertEqual('changed under ours', self.tacker.instance(
            inst_id)['vnfInstanceDescription'])
        self.terminate(inst_id)

    def test_failed_temp_of_tackers_retried_and_rolled_back_by_ours(self):
        self.swap(tackers=True)
        # Nova's quota error, which Tacker's reselection leaves alone
        self.quota_left(1)
        retried, retried_lcm = self.start()
        rolled, rolled_lcm = self.start()
        for lcm_id in (retried_lcm, rolled_lcm):
            self.assertEqual('FAILED_TEMP',
                             self.tacker.wait(lcm_id)['operationState'])
        self.swap(tackers=False)   # the quota lifted

        # the retry's stack update finds AZ-1 full: ours reselects
        self.cloud.fill_zone('AZ-1')
        self.assertCompleted(self.tacker.occ_action(retried_lcm, 'retry'))
        zones = self.zones(retried)
        self.assertNotIn('AZ-1', zones.values())
        [op] = self.operations(retried)
        self.assertEqual(('INSTANTIATE', states.STATE_COMPLETED,
                          retried_lcm),
                         (op.operation, op.state,
                          op.params['lcm_op_occ_id']))
        self.assertEqual(('AZ-1', states.OUTCOME_INSUFFICIENT_CAPACITY),
                         (op.attempts[0].zone, op.attempts[0].outcome))
        self.assertEqual(op.placement, zones)

        self.assertEqual('ROLLED_BACK', self.tacker.occ_action(
            rolled_lcm, 'rollback')['operationState'])
        self.assertEqual('NOT_INSTANTIATED', self.tacker.instance(
            rolled)['instantiationState'])
        self.assertEqual([], self.operations(rolled))
        self.terminate(retried)
        self.tacker.delete_instance(rolled)


class TestSwapOut(SwapTestCase):
    """VNFs our conductor reselected, continued by Tacker's own."""

    def test_reselected_vnf_scales_heals_terminates_under_tackers(self):
        az1 = self.cloud.fill_zone('AZ-1')
        inst_id, occ = self.instantiate()
        self.assertCompleted(occ)
        zones = self.zones(inst_id)
        self.assertNotIn('AZ-1', zones.values())
        [op] = self.operations(inst_id)
        self.assertEqual(states.STATE_COMPLETED, op.state)
        self.swap(tackers=True)
        for server in az1:
            self.cloud.admin.compute.delete_server(server)
        for server in az1:
            self.cloud.admin.compute.wait_for_delete(server, wait=300)

        # the VNFCs ours moved stay where they are
        self.assertCompleted(self.lcm(inst_id, 'scale',
                                      tacker_api.scale_out_request()))
        scaled = self.zones(inst_id)
        self.assertKept(zones, scaled, 'VDU1-2')
        self.assertCompleted(self.heal(inst_id, 'VDU2-1'))
        self.assertKept(scaled, self.zones(inst_id), 'VDU2-1')
        self.terminate(inst_id)

        # Tacker's conductor wrote nothing of ours; ours stays readable
        self.assertEqual([op], self.operations(inst_id))
        shown = self.cli('operation', 'show', op.id)
        self.assertEqual((op.id, states.STATE_COMPLETED, inst_id,
                          len(op.attempts)),
                         (shown['id'], shown['state'],
                          shown['vnf_instance_id'], len(shown['attempts'])))
        listed = self.cli('operation', 'list')
        self.assertIn(op.id, [row['id'] for row in listed])

    def test_failed_temp_of_ours_completed_by_tackers_ends_ours(self):
        # ours fails on Nova's quota: FAILED_TEMP, left to Tacker's
        self.quota_left(1)
        inst_id, lcm_id = self.start()
        self.assertEqual('FAILED_TEMP',
                         self.tacker.wait(lcm_id)['operationState'])
        [failed] = self.operations(inst_id)
        self.assertEqual(states.STATE_FAILED_TEMP, failed.state)
        self.swap(tackers=True)
        self.cloud.admin.set_compute_quotas('admin', instances=-1)
        self.assertCompleted(self.tacker.occ_action(lcm_id, 'retry'))
        self.assertEqual([failed], self.operations(inst_id))

        # swapped in again, ours learns the occurrence ended without it
        self.swap(tackers=False)

        def ended():
            [op] = self.operations(inst_id)
            return None if op.state == states.STATE_FAILED_TEMP else op
        # its sync thread's first pass: 10 s after the start
        op = polling.until(ended, timeout=120, interval=1)
        self.assertEqual(states.STATE_FAILED, op and op.state)
        self.assertIn('Quota exceeded', op.error['detail'])  # the cause
        self.assertIn(f'{lcm_id} COMPLETED', op.error['detail'])
        self.terminate(inst_id)

    def cli(self, *argv: str) -> object:
        """``placement-ext ARGV -f json`` on our operation records (a
        config file naming their database, as in the docs)."""
        url = self.db.conf.database.connection
        with tempfile.NamedTemporaryFile('w', suffix='.conf') as conf:
            conf.write(f'[database]\nconnection = {url}\n')
            conf.flush()
            result = subprocess.run(
                [os.path.join(os.path.dirname(sys.executable),
                              'placement-ext'),
                 '--config-file', conf.name, *argv, '-f', 'json'],
                capture_output=True, text=True, timeout=120)
        self.assertEqual(0, result.returncode, result.stderr)
        return json.loads(result.stdout)
