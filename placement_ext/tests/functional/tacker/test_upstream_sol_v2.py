"""Tacker's own ``sol_v2`` functional tests, against our conductor.

Tacker's test classes (from the tacker wheel, unchanged; their VNF
packages from Tacker's sdist, :mod:`upstream`) run in the tacker addon's
venv against ``placement-ext-tacker-conductor``, on the addon's upstream
environment (``PLACEMENT_EXT_MINICLOUD_TACKER_AZ_RETRY=1``,
``tools/minicloud/tacker_az_retry.py``: project ``nfv``, ``nfv_user``,
networks ``net0``, ``net1``, ``net_mgmt``, flavor ``m1.tiny``, image
``cirros-0.5.2-x86_64-disk``, Tacker's local NFVO, the default VIM
registered by the runner), skipped elsewhere. Each class runs twice:
with Tacker's defaults (no zone in the Grant, no fallback, no stack
rollback) and with ``[v2_vnfm] placement_fallback_best_effort = true``
and the Grant's zone ``az-1`` (upstream's zone-retry job's settings:
without a zone in the Grant the option has nothing to act on).

Upstream runs them on a devstack compute node with Nova's default VCPU
allocation ratio of 16; the embedded cloud's 2-vCPU hosts have 1, so
the heal of an affine pair (Heat creates the new servers before it
deletes the old ones, all on one host) finds no room: for these tests
every compute host's VCPU allocation ratio is 16 (Nova keeps a ratio
set in Placement: the cloud sets only the initial ones), then put back.

* ``VnfLcmMinTest`` (df_userdata basic_min): API versions, subscriptions,
  then create, instantiate, heal (all VNFCs and one), modify, scale out
  and in, terminate, instantiate again, terminate, delete.
* ``IndividualVnfcMgmtBasicMinTest`` (st_userdata basic_min): the same
  on StandardUserData, with change_vnfpkg.
"""

import testtools
from testtools import content

from placement_ext.tests.functional.cloud import fixture
from placement_ext.tests.functional.tacker import base
from placement_ext.tests.functional.tacker import upstream

DF_MIN = 'sol_v2.vnflcm.df_userdata.basic_min.test_basic_min.VnfLcmMinTest'
ST_MIN = ('sol_v2.vnflcm.st_userdata.basic_min.test_basic_min.'
          'IndividualVnfcMgmtBasicMinTest')
# Tacker's own defaults, over the environment's tacker.conf
TACKER_DEFAULTS = {
    'v2_nfvo': {'test_grant_zone_list': ''},
    'v2_vnfm': {'placement_fallback_best_effort': 'false',
                'enable_rollback_stack': 'false'}}
DEVSTACK_VCPU_RATIO = 16.0
FALLBACK = {
    'v2_nfvo': {'test_grant_zone_list': 'az-1'},
    'v2_vnfm': {'placement_fallback_best_effort': 'true',
                'enable_rollback_stack': 'false'}}


class _UpstreamCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        if not upstream.environment_on():
            self.skipTest(f'{upstream.VARIABLE}=1 builds the environment '
                          f'these tests need (it renames the cloud\'s '
                          f'zones)')
        self.addon = fixture.use_addon(self, 'tacker')
        placement = self.addon['cloud'].admin.placement
        for provider in placement.get('/resource_providers').json()[
                'resource_providers']:
            old = _set_vcpu_ratio(placement, provider['uuid'],
                                  DEVSTACK_VCPU_RATIO)
            if old is not None:
                self.addCleanup(_set_vcpu_ratio, placement,
                                provider['uuid'], old)

    def run_upstream(self, mode: dict[str, dict], names: list[str]) -> None:
        if base.write_mode(self.addon['etc'], mode):
            base.restart_tacker()
        result = upstream.run(self.addon, names)
        self.addDetail('upstream', content.text_content(
            f'{result.stdout[-20000:]}\n{result.stderr[-20000:]}'))
        self.addDetail('durations', content.text_content(
            upstream.durations(result.stdout)))
        self.assertEqual(0, result.returncode,
                         f'{result.stdout[-6000:]}\n{result.stderr[-6000:]}')


class TestVnfLcmMin(_UpstreamCase):

    def test_tacker_defaults(self):
        self.run_upstream(TACKER_DEFAULTS, [DF_MIN])

    def test_fallback_best_effort(self):
        self.run_upstream(FALLBACK, [DF_MIN])


class TestIndividualVnfcMgmtBasicMin(_UpstreamCase):

    def test_tacker_defaults(self):
        self.run_upstream(TACKER_DEFAULTS, [ST_MIN])

    def test_fallback_best_effort(self):
        self.run_upstream(FALLBACK, [ST_MIN])


def _set_vcpu_ratio(placement, provider: str, ratio: float,
                    tries: int = 3) -> float | None:
    """Set a provider's VCPU allocation ratio; the previous one (None:
    no VCPU inventory). Retried when nova-compute updated it between."""
    path = f'/resource_providers/{provider}/inventories/VCPU'
    headers = {'OpenStack-API-Version': 'placement 1.26'}
    for _ in range(tries):
        resp = placement.get(path, headers=headers, raise_exc=False)
        if resp.status_code == 404:
            return None
        inventory = resp.json()
        old = inventory['allocation_ratio']
        resp = placement.put(path, json={**inventory,
                                         'allocation_ratio': ratio},
                             headers=headers, raise_exc=False)
        if resp.status_code == 409:
            continue
        resp.raise_for_status()
        return old
    raise RuntimeError(f'VCPU inventory of {provider}: conflicts')
