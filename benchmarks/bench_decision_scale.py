"""Benchmark: grant evaluation and reselection planning at scale.

Issue 12 found ``grant evaluate`` failing with "maximum recursion depth"
above about 985 new COMPUTE resources (and taking 115 s with a 1,000
member best-effort anti-affinity constraint), and ``reselection plan``
quadratic in the targets of one anti-affinity constraint (126 s at
4,000 targets over 50 zones). This times both decisions, the documents
parsed as the CLI parses them, on generated inputs of growing size:

* grant: N new VNFCs of one VDU (1 vCPU, 1 GB), one ZONE anti-affinity
  constraint over all of them with fallbackBestEffort (it cannot hold
  beyond 50 zones, so it is relaxed), 50 zones of 20 hosts with room;
* plan: N targets in one anti-affinity constraint over 50 zones, the
  first zone failed for all of them.

Usage: ``python benchmarks/bench_decision_scale.py [--max N]``. Writes
``benchmarks/results/decision_scale.json`` and ``.rst``.
"""

import argparse
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import report  # noqa: E402

from placement_ext.decision import cloud_zones  # noqa: E402
from placement_ext.decision import grant_evaluator  # noqa: E402
from placement_ext.decision import zone_reselection  # noqa: E402
from placement_ext.sol import grant_request  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'results')
ZONES = 50
HOSTS_PER_ZONE = 20


def grant_inputs(count: int) -> tuple[dict, dict]:
    ids = [f'VDU1-{n}' for n in range(count)]
    request = {
        'vnfInstanceId': 'vnf-1', 'vnfLcmOpOccId': 'op-1',
        'vnfdId': 'vnfd-1', 'flavourId': 'simple',
        'operation': 'INSTANTIATE', 'isAutomaticInvocation': False,
        'addResources': [{'id': i, 'type': 'COMPUTE',
                          'resourceTemplateId': 'VDU1'} for i in ids],
        'placementConstraints': [{
            'affinityOrAntiAffinity': 'ANTI_AFFINITY', 'scope': 'ZONE',
            'fallbackBestEffort': True,
            'resource': [{'idType': 'GRANT', 'resourceId': i}
                         for i in ids]}],
        '_links': {'vnfLcmOpOcc': {'href': '/op'},
                   'vnfInstance': {'href': '/vnf'}}}
    per_host = count // (ZONES * HOSTS_PER_ZONE) + 2
    zones = {'zones': [
        {'zoneId': f'AZ-{z}', 'hosts': [
            {'name': f'az{z}-h{h}',
             'free': {'VCPU': per_host, 'MEMORY_MB': per_host * 1024}}
            for h in range(HOSTS_PER_ZONE)]} for z in range(ZONES)],
        'flavours': {'VDU1': {'VCPU': 1, 'MEMORY_MB': 1024}}}
    return request, zones


def time_grant(count: int) -> dict:
    request, zones = grant_inputs(count)
    began = time.perf_counter()
    decision = grant_evaluator.evaluate(
        grant_request.parse(request), cloud_zones.Cloud.from_dict(zones),
        'grant-1')
    took = time.perf_counter() - began
    return {'vnfcs': count, 'seconds': round(took, 3),
            'granted': len(decision.grant.add_resources or ())
            if decision.grant else 0}


def plan_inputs(count: int) -> dict:
    targets = [f'VDU1-{n}' for n in range(count)]
    return {
        'zones': [f'AZ-{z}' for z in range(ZONES)],
        'placement': {t: 'AZ-0' for t in targets},
        'targets': targets,
        'failed': {t: ['AZ-0'] for t in targets},
        'constraints': [{
            'affinityOrAntiAffinity': 'ANTI_AFFINITY', 'scope': 'ZONE',
            'fallbackBestEffort': True,
            'resource': [{'idType': 'GRANT', 'resourceId': t}
                         for t in targets]}]}


def time_plan(count: int) -> dict:
    request = zone_reselection.ReselectionRequest.from_dict(
        plan_inputs(count))
    began = time.perf_counter()
    result = zone_reselection.reselect(request)
    took = time.perf_counter() - began
    return {'targets': count, 'seconds': round(took, 3),
            'moved': len(result.moved)}


def _shown(row: dict) -> dict:
    print(json.dumps(row), flush=True)
    return row


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('--max', type=int, default=10_000)
    parser.add_argument('--max-grant', type=int, default=4_000)
    args = parser.parse_args()
    sizes = [n for n in (1_000, 2_000, 4_000, 10_000)
             if n <= args.max]
    plans = [_shown(time_plan(n)) for n in sizes]
    grants = [_shown(time_grant(n)) for n in sizes if n <= args.max_grant]
    data = {'machine': platform.processor() or platform.machine(),
            'python': platform.python_version(), 'zones': ZONES,
            'grant': grants, 'plan': plans}
    with open(os.path.join(RESULTS, 'decision_scale.json'), 'w') as out:
        json.dump(data, out, indent=2)
    table = '\n'.join(
        ['::', '', '  kind    size     seconds'] +
        [f'  grant   {r["vnfcs"]:<8} {r["seconds"]}' for r in grants] +
        [f'  plan    {r["targets"]:<8} {r["seconds"]}' for r in plans])
    report.write_rst(
        os.path.join(RESULTS, 'decision_scale.rst'),
        'Grant evaluation and reselection planning at scale',
        [f'Generated by benchmarks/bench_decision_scale.py on this '
         f'project\'s 2-core machine (Python {data["python"]}). grant: '
         f'N new VNFCs, one best-effort ZONE anti-affinity constraint over '
         f'all of them, {ZONES} zones of {HOSTS_PER_ZONE} hosts. plan: N '
         f'targets of one anti-affinity constraint over {ZONES} zones, the '
         f'first zone failed for all.',
         'Before (issue 12): grant evaluation failed with "maximum '
         'recursion depth" above about 985 new resources and took 115 s '
         'for 1,000 under a best-effort anti-affinity; planning took 8 s, '
         '29 s and 126 s at 1,000, 2,000 and 4,000 targets. The search is '
         'now iterative and keeps per-rule counts; a move is judged from '
         'per-constraint zone indexes. Both stay close to linear. Limits, '
         'refused by the schemas before any work: 10,000 addResources or '
         'tempResources per GrantRequest, 10,000 VNFCs per reselection '
         'step or operation.', table],
        verbatim=(table,))
    return 0


if __name__ == '__main__':
    sys.exit(main())
