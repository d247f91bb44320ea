"""Tacker's own zone-retry functional test, against our conductor.

``tacker/tests/functional/sol_v2_az_retry/test_az_retry.py``
(``AzRetryTest.test_update_stack_retry``, from the tacker wheel, its
assertions unchanged) instantiates a VNF with Tacker's local NFVO
granting zone ``az-1``, then scales it out one VNFC at a time until the
newest VNFC is in zone ``nova``; the VNFCs are 4 GB servers, so ``az-1``
fills and a stack update fails: ``placement-ext-tacker-conductor``'s
reselection must move that VNFC to ``nova``. It runs in the tacker
addon's venv (``upstream_tests.py``, :mod:`upstream`) on the addon's
upstream environment, upstream's job rebuilt on the embedded cloud
(``tools/minicloud/tacker_az_retry.py``), which renames the cloud's
zones: so only where ``PLACEMENT_EXT_MINICLOUD_TACKER_AZ_RETRY=1`` (the
last functional pass of ``./run tests``), skipped otherwise.
"""

import subprocess

import testtools

from placement_ext.db import migration
from placement_ext.objects import operation as op_obj
from placement_ext.testing import tacker_api
from placement_ext.tests.functional.cloud import fixture
from placement_ext.tests.functional.tacker import base
from placement_ext.tests.functional.tacker import upstream
from placement_ext.vocabulary import states

VARIABLE = upstream.VARIABLE
TEST = 'sol_v2_az_retry.test_az_retry.AzRetryTest.test_update_stack_retry'
TIMEOUT = 1500


def run_upstream_test(addon: dict) -> subprocess.CompletedProcess:
    """Tacker's test in the addon's venv (with our Cinder-free package
    only, no sdist); also what ``benchmarks/bench_tacker.py --az-retry``
    times."""
    return upstream.run(addon, [TEST], with_samples=False, timeout=TIMEOUT)


class TestTackersOwnAzRetry(testtools.TestCase):

    def setUp(self):
        super().setUp()
        if not upstream.environment_on():
            self.skipTest(f'{VARIABLE}=1 builds the environment this test '
                          f'needs (it renames the cloud\'s zones)')
        self.addon = fixture.use_addon(self, 'tacker')
        # Tacker's local NFVO grants (and makes the image), as upstream's
        if base.write_mode(self.addon['etc'], {}):
            base.restart_tacker()

    def test_update_stack_retry(self):
        database = tacker_api.our_database(self.addon['etc'])
        # the conductor makes our tables on its first reselection
        migration.upgrade(database.conf, database=database)
        before = {op.id for op in op_obj.list_operations(
            database)}
        result = run_upstream_test(self.addon)
        self.assertEqual(0, result.returncode,
                         f'{result.stdout[-6000:]}\n{result.stderr[-6000:]}')
        # our conductor, not Tacker's, moved the VNFC to nova
        ours = [op for op in op_obj.list_operations(database)
                if op.id not in before]
        self.assertIn((states.STATE_COMPLETED, 'nova'), {
            (op.state, zone) for op in ours
            for zone in (op.placement or {}).values()},
            [(op.state, op.placement) for op in ours])
