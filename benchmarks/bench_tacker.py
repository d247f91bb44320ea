"""Benchmark: Heat attempts of a real Tacker 16 on the embedded cloud,
with Tacker's own zone reselection, ours, and ours behind our NFVO.

The minicloud addon ``tacker`` runs tacker-server and tacker-conductor
(through ``placement-ext-tacker-conductor``); the mode is the last config
file of both, written and applied (restart) per mode:

* ``tacker``: ``[placement_ext] zone_reselection = false``, Tacker's own
  ``Openstack._update_stack_retry``;
* ``ours``: our reselection (the default);
* ``ours+nfvo``: ours, and Tacker asks ``placement-ext-nfvo`` for its
  Grants (``[v2_nfvo] use_external_nfvo``).

Scenarios, on the default topology (AZ-1..AZ-3 of two 2-vCPU hosts; the
VNF of ``placement_ext/tests/fixtures/tacker_vnf_package``: VDU1 x2 zone
affinity, VDU2 x2 zone anti-affinity, all ``vdu.small``): ``instantiate``
with AZ-1 full (Tacker's local NFVO grants every VNFC AZ-1), then
``scale-out`` of VDU1 by one with AZ-1 still full. A Heat attempt is one
stack create or update Heat started for the VNF's stack (its
``Stack CREATE/UPDATE started`` events). Each (mode, scenario) runs
``--repeat`` times; every run starts from an empty cloud.

Usage (the cloud up: ``tools/minicloud/minicloud up``)::

    .venv/bin/python benchmarks/bench_tacker.py [--repeat N]

Writes ``benchmarks/results/tacker.json`` and ``.rst``.
"""

import argparse
import datetime
import json
import os
import statistics
import sys
import time
import uuid

import report

from placement_ext.tests.fixtures import tacker_api
from placement_ext.tests.functional.cloud import fixture
from placement_ext.tests.functional.tacker import base

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ('tacker', 'ours', 'ours+nfvo')


def mode_sections(mode: str, addon: dict) -> dict:
    if mode == 'tacker':
        return {'placement_ext': {'zone_reselection': 'false'}}
    if mode == 'ours+nfvo':
        return base.external_nfvo(addon)
    return {}


def anti_affinity_kept(zones: dict) -> bool:
    return zones.get('VDU2-0') != zones.get('VDU2-1')


def run_once(addon: dict, api: tacker_api.TackerApi, cloud: object,
             vnfd_id: str, vim: dict) -> list[dict]:
    cloud.free_capacity()
    cloud.fill_zone('AZ-1')
    inst_id = api.create_instance(vnfd_id, fixture.unique_name('bench'))
    records = []
    started = time.monotonic()
    occ = api.wait(api.lcm(inst_id, 'instantiate',
                           tacker_api.instantiate_request(vim)))
    records.append(_record('instantiate', occ, cloud, api, inst_id,
                           time.monotonic() - started, before=0))
    if occ['operationState'] == 'COMPLETED':
        before = records[-1]['heat_attempts_total']
        started = time.monotonic()
        occ = api.wait(api.lcm(inst_id, 'scale',
                               tacker_api.scale_out_request()))
        records.append(_record('scale-out', occ, cloud, api, inst_id,
                               time.monotonic() - started, before=before))
    return records


def _record(scenario: str, occ: dict, cloud: object,
            api: tacker_api.TackerApi, inst_id: str, took: float,
            before: int) -> dict:
    total = tacker_api.heat_attempts(cloud.admin, inst_id)
    zones = {}
    if occ['operationState'] == 'COMPLETED':
        zones = tacker_api.vnfc_zones(api.instance(inst_id))
    return {'scenario': scenario, 'state': occ['operationState'],
            'heat_attempts': total - before, 'heat_attempts_total': total,
            'seconds': round(took, 1), 'zones': zones,
            'anti_affinity_kept': anti_affinity_kept(zones) if zones
            else None,
            'error': (occ.get('error') or {}).get('detail', '')[:300]}


def summarize(records: list[dict]) -> list[list[str]]:
    rows = []
    for mode in MODES:
        for scenario in ('instantiate', 'scale-out'):
            runs = [r for r in records if r['mode'] == mode
                    and r['scenario'] == scenario]
            if not runs:
                continue
            done = [r for r in runs if r['state'] == 'COMPLETED']
            attempts = [r['heat_attempts'] for r in runs]
            kept = sum(1 for r in done if r['anti_affinity_kept'])
            rows.append([
                mode, scenario, f'{len(done)}/{len(runs)}',
                f'{statistics.mean(attempts):.1f}',
                f'{min(attempts)}-{max(attempts)}',
                f'{kept}/{len(done)}',
                f'{statistics.mean(r["seconds"] for r in runs):.0f}'])
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--repeat', type=int, default=2)
    parser.add_argument('--out', default=os.path.join(HERE, 'results'))
    args = parser.parse_args()
    fixture.ensure_cloud()
    addon_status = fixture.ensure_addon('tacker')
    cloud = fixture.MiniCloud()
    cloud.setUp()
    records = []
    try:
        cloud.admin.set_compute_quotas('admin', instances=-1, cores=-1,
                                       ram=-1)
        api = tacker_api.TackerApi(addon_status['urls']['tacker'],
                                   cloud.admin)
        vim = tacker_api.vim_connection_info(
            cloud.admin.config.config['auth'], 'RegionOne')
        vnfd_id = None
        for mode in MODES:
            if base.write_mode(addon_status['etc'],
                               mode_sections(mode, addon_status)):
                base.restart_tacker()
            if vnfd_id is None:
                vnfd_id = str(uuid.uuid4())
                api.upload_package(tacker_api.build_package(
                    addon_status['venv'], vnfd_id))
            for run in range(args.repeat):
                for rec in run_once(addon_status, api, cloud, vnfd_id, vim):
                    rec.update(mode=mode, run=run)
                    print(json.dumps(rec), flush=True)
                    records.append(rec)
    finally:
        if base.write_mode(addon_status['etc'], {}):
            base.restart_tacker()
        cloud.cleanUp()
    write(args.out, records, args.repeat)
    return 0


def write(out: str, records: list[dict], repeat: int) -> None:
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'tacker.json'), 'w') as f:
        json.dump({'date': datetime.date.today().isoformat(),
                   'repeat': repeat, 'records': records}, f, indent=1)
    table = report.rst_table(
        ['mode', 'scenario', 'completed', 'Heat attempts (mean)',
         'min-max', 'anti-affinity kept', 'seconds (mean)'],
        summarize(records))
    report.write_rst(
        os.path.join(out, 'tacker.rst'),
        'Heat attempts of a real Tacker 16: its reselection, ours, ours '
        'and our NFVO', [
            'benchmarks/bench_tacker.py on the embedded cloud (AZ-1..AZ-3 '
            'of two 2-vCPU hosts), AZ-1 full before each run; Tacker 16.0.0 '
            '(tacker-server, tacker-conductor through '
            'placement-ext-tacker-conductor); the VNF: VDU1 x2 zone '
            'affinity, VDU2 x2 zone anti-affinity, 1 vCPU each. '
            'Instantiate (Tacker\'s local NFVO grants every VNFC AZ-1 and '
            'lists AZ-1..AZ-3 in the Grant\'s zones: [v2_nfvo] '
            'test_grant_zone_list), '
            'then scale-out of VDU1 by one. A Heat attempt is a stack '
            'create or update Heat started for the VNF.',
            table,
            'tacker: Tacker\'s own _update_stack_retry ([placement_ext] '
            'zone_reselection = false); ours: our reselection in the same '
            'conductor; ours+nfvo: Tacker asks placement-ext-nfvo for its '
            'Grants ([v2_nfvo] use_external_nfvo), which places each VNFC '
            'where Placement says it fits.'],
        verbatim=(table,))


if __name__ == '__main__':
    sys.exit(main())
