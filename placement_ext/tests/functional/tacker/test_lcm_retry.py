"""Tacker's retry, rollback and fail of an LCM operation occurrence our
reselection ran in, and tacker-conductor killed mid-reselection, through
Tacker 16's own v2 API on the embedded cloud.

Tacker's local NFVO grants every VNFC AZ-1 (see ``test_reselection``);
four VNFCs (VDU1 x2, VDU2 x2). The mode makes our claims go stale in 20 s
and the conductor look at Tacker's occurrences every 2 s.
"""

import os
import pathlib
import signal
import time

from testtools import content

from placement_ext import errors
from placement_ext.tests.functional.cloud import fixture
from placement_ext.tests.functional.tacker import base
from placement_ext.vocabulary import states

TAKEOVER_S = 20
SYNC_S = 2
WAIT_S = 300        # a bound for the waits below, not a speed goal


class TestTackerLcmRetry(base.TackerTestCase):

    def mode(self):
        return {'conductor': {'operation_takeover_timeout': TAKEOVER_S,
                              'operation_heartbeat_interval': 5},
                'placement_ext': {'lcm_sync_interval': SYNC_S}}

    def occ_action(self, lcm_id: str, action: str) -> dict:
        """POST retry, rollback or fail; the occurrence once it has
        left FAILED_TEMP and ended again."""
        return self.tacker.occ_action(lcm_id, action, timeout=WAIT_S)

    def wait_until(self, what: str, check):
        deadline = time.monotonic() + WAIT_S
        while True:
            found = check()
            if found:
                return found
            if time.monotonic() > deadline:
                self.fail(f'{what}: not within {WAIT_S} s')
            time.sleep(0.2)

    def wait_ours(self, inst_id: str, state: str):
        def ended():
            ops = self.operations(inst_id)
            return ops if ops and ops[-1].state == state else None
        return self.wait_until(f'our operation {state}', ended)

    def assertNotTriedAgain(self, op, zone='AZ-1'):
        """``zone``, found full by Tacker's try (our attempt 0), was never
        sent again (an attempt's zone is its moved or blamed VNFC's)."""
        first = op.attempts[0]
        self.assertEqual((zone, states.OUTCOME_INSUFFICIENT_CAPACITY),
                         (first.zone, first.outcome))
        self.assertEqual([], [a.seq for a in op.attempts[1:]
                              if a.zone == zone])
        self.assertNotIn(zone, op.placement.values())

    def test_retry_of_failed_temp_resumes_ours_without_its_full_zone(self):
        # Tacker's try finds AZ-1 full; our move then fails on the
        # instances quota (the four failed servers still count): FAILED_TEMP
        self.cloud.fill_zone('AZ-1')
        self.quota_left(4)
        inst_id, lcm_id = self.start()
        occ = self.tacker.wait(lcm_id)
        self.assertEqual('FAILED_TEMP', occ['operationState'])
        [failed] = self.operations(inst_id)
        self.assertEqual(states.STATE_FAILED_TEMP, failed.state,
                         failed.error)
        self.assertEqual(lcm_id, failed.params['lcm_op_occ_id'])
        self.assertIn(failed.id, occ['error']['detail'])

        self.cloud.admin.set_compute_quotas('admin', instances=-1)
        self.assertCompleted(self.occ_action(lcm_id, 'retry'))
        [op] = self.operations(inst_id)
        self.assertEqual((failed.id, states.STATE_COMPLETED),
                         (op.id, op.state))
        self.assertEqual(failed.attempts, op.attempts[:len(failed.attempts)])
        self.assertNotTriedAgain(op)
        self.assertEqual(op.placement, self.zones(inst_id))

    def test_rollback_and_fail_end_ours_the_same_way(self):
        self.quota_left(1)
        rolled, rolled_lcm = self.start()
        self.assertEqual('FAILED_TEMP',
                         self.tacker.wait(rolled_lcm)['operationState'])
        failed, failed_lcm = self.start()
        self.assertEqual('FAILED_TEMP',
                         self.tacker.wait(failed_lcm)['operationState'])
        for inst_id in (rolled, failed):
            [op] = self.operations(inst_id)
            self.assertEqual(states.STATE_FAILED_TEMP, op.state)
        self.cloud.admin.set_compute_quotas('admin', instances=-1)

        self.assertEqual('ROLLED_BACK', self.occ_action(
            rolled_lcm, 'rollback')['operationState'])
        self.assertEqual('FAILED', self.occ_action(
            failed_lcm, 'fail')['operationState'])
        [op] = self.wait_ours(rolled, states.STATE_ROLLED_BACK)
        self.assertIn(f'{rolled_lcm} ROLLED_BACK', op.error['detail'])
        self.assertIn('Quota exceeded', op.error['detail'])  # the cause
        [op] = self.wait_ours(failed, states.STATE_FAILED)
        self.assertIn(f'{failed_lcm} FAILED', op.error['detail'])
        self.assertNotEqual(errors.HOST_ENDED, op.error['code'])

    def test_conductor_killed_mid_reselection_then_tackers_retry(self):
        self.cloud.fill_zone('AZ-1')
        inst_id, lcm_id = self.start()

        def reselecting():
            ops = self.operations(inst_id)
            if ops and ops[0].state in (states.STATE_COMPLETED,
                                        states.STATE_FAILED,
                                        states.STATE_FAILED_TEMP):
                self.fail(f'ours ended {ops[0].state} before the kill')
            return ops and len(ops[0].attempts) >= 2 and ops[0].in_flight
        self.wait_until('our reselection sending a move', reselecting)
        os.killpg(self.conductor_pid(), signal.SIGKILL)
        [killed] = self.operations(inst_id)

        result = fixture.run_minicloud('addon', 'restart', 'tacker',
                                       'tacker-conductor', timeout=600)
        self.assertEqual(0, result.returncode, result.stdout)
        # Tacker's start-up marks its interrupted occurrence FAILED_TEMP;
        # ours is still the killed process's, claim not yet stale
        occ = self.tacker.lcmocc(lcm_id)
        self.assertEqual('FAILED_TEMP', occ['operationState'])
        self.assertEqual(states.STATE_PROCESSING,
                         self.operations(inst_id)[0].state)

        began = time.monotonic()
        self.assertCompleted(self.occ_action(lcm_id, 'retry'))
        self.addDetail('retry-seconds', content.text_content(
            f'{time.monotonic() - began:.1f}'))
        [op] = self.operations(inst_id)
        self.assertEqual((killed.id, states.STATE_COMPLETED, None),
                         (op.id, op.state, op.owner))
        # the move in flight at the kill was finished, not started anew
        n = len(killed.attempts)
        self.assertEqual(killed.attempts[:-1], op.attempts[:n - 1])
        in_flight, finished = killed.attempts[-1], op.attempts[n - 1]
        self.assertEqual(
            (in_flight.seq, in_flight.vdu_id, in_flight.started_at),
            (finished.seq, finished.vdu_id, finished.started_at))
        self.assertNotTriedAgain(op)
        self.assertEqual([], [a.seq for a in op.attempts
                              if a.outcome is None])
        # Nova has the VNF's four servers where our record says
        zones = self.zones(inst_id)
        self.assertEqual(op.placement, zones)
        servers = self.stack_servers(inst_id)
        self.assertEqual(sorted(zones.values()), sorted(
            s.availability_zone for s in servers))
        self.assertEqual({'ACTIVE'}, {s.status for s in servers})

    def conductor_pid(self) -> int:
        base_dir = fixture.ensure_cloud()['base']
        return int(pathlib.Path(base_dir, 'run', 'tacker-conductor.pid')
                   .read_text().split()[0])

    def stack_servers(self, inst_id: str) -> list:
        ids = {v['computeResource']['resourceId'] for v in self.tacker
               .instance(inst_id)['instantiatedVnfInfo']['vnfcResourceInfo']}
        return [self.cloud.admin.compute.get_server(i) for i in ids]
