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
VNF of ``placement_ext/testing/tacker_vnf_package``: VDU1 x2 zone
affinity, VDU2 x2 zone anti-affinity, all ``vdu.small``): ``instantiate``
with AZ-1 full (Tacker's local NFVO grants every VNFC AZ-1), then
``scale-out`` of VDU1 by one with AZ-1 still full. A Heat attempt is one
stack create or update Heat started for the VNF's stack (its
``Stack CREATE/UPDATE started`` events). Each (mode, scenario) runs
``--repeat`` times; every run starts from an empty cloud.

Usage (the cloud up: ``tools/minicloud/minicloud up``)::

    .venv/bin/python benchmarks/bench_tacker.py [--repeat N]

``--az-retry [--pairs N]`` (with ``PLACEMENT_EXT_MINICLOUD_TACKER_AZ_RETRY=1``,
the addon's az-retry environment) instead runs Tacker's own zone-retry
functional test (``test_update_stack_retry``) with Tacker's conductor
(``tacker``) and ours (``ours``) alternately, ``N`` pairs in the order
tacker, ours, ours, tacker, ..., then once with our NFVO
(``ours+nfvo``): wall time, the Heat attempts and heat-api requests of
the run, and, read from heat-api's and tacker-conductor's logs
(:mod:`tacker_az_retry`), the time from Tacker seeing the failed stack
to the retry update and the retry window's requests per attempt, with
the machine's load average before each run.

Writes ``benchmarks/results/tacker.json`` and ``.rst`` (each part keeps
the other's figures).
"""

import argparse
import contextlib
import datetime
import json
import os
import pathlib
import statistics
import sys
import time
import uuid
from collections.abc import Iterator

import report
import tacker_az_retry

from placement_ext.testing import tacker_api
from placement_ext.tests.functional.cloud import fixture
from placement_ext.tests.functional.tacker import base
from placement_ext.tests.functional.tacker import test_upstream_az_retry

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


def az_retry_order(pairs: int) -> list[tuple[str, int]]:
    """(mode, pair): tacker, ours, ours, tacker, ...: neither conductor
    always runs first after a restart or on a warmer cloud."""
    order = []
    for pair in range(pairs):
        modes = ('tacker', 'ours') if pair % 2 == 0 else ('ours', 'tacker')
        order += [(mode, pair) for mode in modes]
    return order + [('ours+nfvo', None)]


def _log_sizes(log_dir: pathlib.Path) -> dict[str, int]:
    return {name: (log_dir / name).stat().st_size
            for name in ('heat-api.log', 'tacker-conductor.log')}


def _log_since(log_dir: pathlib.Path, name: str, offset: int) -> str:
    with open(log_dir / name, 'rb') as f:
        f.seek(offset)
        return f.read().decode('utf-8', 'replace')


# the package's software image (az_retry_package), by the name its Heat
# template asks for
NFVO_IMAGE = 'VDU1-VirtualStorage-image'


@contextlib.contextmanager
def nfvo_image(cloud: object, mode: str) -> Iterator[None]:
    """Tacker's local NFVO uploads the package's image itself; with an
    external NFVO it is the NFVO's (the operator's) to provide: a public
    image of that name for the run, deleted afterwards (Tacker's own
    would then be a second of the name)."""
    if mode != 'ours+nfvo':
        yield
        return
    image = cloud.admin.image.create_image(
        name=NFVO_IMAGE, data=b'\0' * 1024, disk_format='raw',
        container_format='bare', visibility='public', min_ram=256,
        allow_duplicates=True, wait=True)
    try:
        yield
    finally:
        cloud.admin.image.delete_image(image, ignore_missing=True)


def az_retry_run(addon: dict, mode: str, pair: int | None) -> dict:
    """One run of Tacker's test with ``mode``'s conductor, measured."""
    if base.write_mode(addon['etc'], mode_sections(mode, addon)):
        base.restart_tacker()
    log_dir = pathlib.Path(addon['etc']).parents[1] / 'log'
    sizes = _log_sizes(log_dir)
    load = os.getloadavg()
    with nfvo_image(addon['cloud'], mode):
        started = time.monotonic()
        result = test_upstream_az_retry.run_upstream_test(addon)
        took = time.monotonic() - started
    record = tacker_az_retry.measure(
        _log_since(log_dir, 'heat-api.log', sizes['heat-api.log']),
        _log_since(log_dir, 'tacker-conductor.log',
                   sizes['tacker-conductor.log']))
    record.update(mode=mode, pair=pair, passed=result.returncode == 0,
                  seconds=round(took, 1), load1=round(load[0], 2),
                  load_after=[round(x, 2) for x in os.getloadavg()])
    if not record['passed']:
        record['output'] = (result.stdout + result.stderr)[-1500:]
    return record


def main_az_retry(args: argparse.Namespace) -> int:
    if not tacker_az_retry_env_on():
        print(f'--az-retry needs {test_upstream_az_retry.VARIABLE}=1',
              file=sys.stderr)
        return 2
    records = []
    with tacker_on_cloud() as addon:
        for mode, pair in az_retry_order(args.pairs):
            record = az_retry_run(addon, mode, pair)
            print(json.dumps(record), flush=True)
            records.append(record)
    write_az_retry(args.out, {
        'date': datetime.date.today().isoformat(), 'pairs': args.pairs,
        'cores': os.cpu_count(), 'records': records,
        'ratios': tacker_az_retry.pair_ratios(records)})
    return 0


@contextlib.contextmanager
def tacker_on_cloud() -> Iterator[dict]:
    """The tacker addon's status and ``cloud`` (a MiniCloud); Tacker's
    default mode (ours) again afterwards."""
    fixture.ensure_cloud()
    addon = {**fixture.ensure_addon('tacker')}
    cloud = fixture.MiniCloud()
    cloud.setUp()
    addon['cloud'] = cloud
    try:
        yield addon
    finally:
        if base.write_mode(addon['etc'], {}):
            base.restart_tacker()
        cloud.cleanUp()


def tacker_az_retry_env_on() -> bool:
    return os.environ.get(test_upstream_az_retry.VARIABLE) == '1'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--repeat', type=int, default=2)
    parser.add_argument('--az-retry', action='store_true',
                        help="time Tacker's own zone-retry test with "
                             "both conductors")
    parser.add_argument('--pairs', type=int, default=2)
    parser.add_argument('--out', default=os.path.join(HERE, 'results'))
    args = parser.parse_args()
    if args.az_retry:
        return main_az_retry(args)
    records = []
    load_began = report.load_now()
    with tacker_on_cloud() as addon_status:
        cloud = addon_status['cloud']
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
    write(args.out, records, args.repeat,
          [load_began, report.load_now()])
    return 0


def _load(out: str) -> dict:
    try:
        with open(os.path.join(out, 'tacker.json')) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def write(out: str, records: list[dict], repeat: int,
          load: list[float]) -> None:
    data = _load(out)
    data.update(date=datetime.date.today().isoformat(), repeat=repeat,
                records=records, load=load)
    _write(out, data)


def write_az_retry(out: str, az_retry: dict) -> None:
    data = _load(out)
    data['az_retry'] = az_retry
    _write(out, data)


def _write(out: str, data: dict) -> None:
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'tacker.json'), 'w') as f:
        json.dump(data, f, indent=1)
    paragraphs, tables = [], []
    if data.get('records'):
        table = report.rst_table(
            ['mode', 'scenario', 'completed', 'Heat attempts (mean)',
             'min-max', 'anti-affinity kept', 'seconds (mean)'],
            summarize(data['records']))
        tables.append(table)
        paragraphs += [
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
            'where Placement says it fits. '
            + report.load_sentence(*data.get('load', (None, None)))]
    if data.get('az_retry'):
        section, section_tables = az_retry_paragraphs(data['az_retry'])
        paragraphs += section
        tables += section_tables
    report.write_rst(
        os.path.join(out, 'tacker.rst'),
        'A real Tacker 16: its reselection, ours, ours and our NFVO',
        paragraphs, verbatim=tuple(tables))


def az_retry_paragraphs(az: dict) -> tuple[list[str], list[str]]:
    """The zone-retry section of tacker.rst: (paragraphs, the verbatim
    ones)."""
    heading = ("Tacker's own zone-retry test, both conductors in one run\n"
               + '-' * 56)
    records = az['records']
    table = report.rst_table(
        ['conductor', 'passed', 'wall s', 'Heat attempts',
         'heat-api requests', 'failed stack to retry update s',
         'retry s', 'retry requests per attempt', 'load1'],
        tacker_az_retry.summary_rows(records, MODES))
    runs = report.rst_table(
        ['run', 'conductor', 'passed', 'wall s', 'to next Heat call s',
         'to retry update s', 'retry s', 'retry window requests',
         'load1'],
        [[str(n + 1), r['mode'], 'yes' if r['passed'] else 'no',
          f'{r["seconds"]:.0f}', _fmt(r['to_next_heat_call_s']),
          _fmt(r['to_retry_update_s']), _fmt(r['retry_s']),
          _fmt(r['window_requests']), f'{r["load1"]:.1f}']
         for n, r in enumerate(records)])
    ratios = report.rst_table(
        ['pair', 'wall ours/Tacker', 'to retry update ours/Tacker',
         'requests per attempt ours/Tacker'],
        [[str(r['pair'] + 1), _fmt(r['wall']), _fmt(r['to_retry_update']),
          _fmt(r['requests_per_attempt'])] for r in az['ratios']])
    kinds = '; '.join(
        f'{r["mode"]} run {n + 1}: ' + ', '.join(
            f'{k} {v}' for k, v in (r['window_kinds'] or {}).items())
        for n, r in enumerate(records) if r['window_kinds'])
    return [
        heading,
        f'benchmarks/bench_tacker.py --az-retry --pairs {az["pairs"]} '
        f'({az["date"]}, {az["cores"]} cores: '
        'load1 is the 1-minute load average before each run). Tacker\'s '
        'AzRetryTest.test_update_stack_retry, unchanged, on the addon\'s '
        'az-retry environment (PLACEMENT_EXT_MINICLOUD_TACKER_AZ_RETRY=1: '
        'zones az-1 and nova, Heat rollback on, Tacker\'s local NFVO '
        'granting az-1): instantiate, then scale out until a VNFC lands '
        'in nova; the scale-out that finds az-1 full fails and is '
        'retried. tacker: Tacker\'s own _update_stack_retry '
        '([placement_ext] zone_reselection = false); ours: our '
        'reselection in the same placement-ext-tacker-conductor; the '
        'pairs alternate which runs first. ours+nfvo: our NFVO grants '
        '(placement-ext-nfvo, [v2_nfvo] use_external_nfvo).',
        table,
        'From the services\' logs: "failed stack" is tacker-conductor\'s '
        '"Stack update ... failed." (Tacker has read the rolled-back '
        'stack and its failed event); the retry update is the next stack '
        'PATCH heat-api processed; the retry window ends at Tacker\'s '
        '"Stack update ... done." or our "Operation ... completed"; its '
        'requests are every heat-api request in it (redirects count), per '
        'Heat attempt in it. Heat attempts: stack creates and updates of '
        'the whole run. Each run:',
        runs,
        'Ours against Tacker\'s in each pair (same load, minutes apart):',
        ratios,
        f'Requests of the retry windows by kind: {kinds}.' if kinds
        else 'No retry window was found.',
    ], [heading, table, runs, ratios]


def _fmt(value: object) -> str:
    if value is None:
        return '-'
    if isinstance(value, float):
        return f'{value:.2f}'
    return str(value)


if __name__ == '__main__':
    sys.exit(main())
