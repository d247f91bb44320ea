"""Benchmark: network partitions on the HA topology (the partition rows of
``benchmarks/results/ha.*``).

Runs the partition cases (``placement_ext/tests/functional/ha/
test_partitions.py`` and ``test_packet_drops.py``) with
``PLACEMENT_EXT_HA_RESULTS`` naming a file the cases write their
measures to: seconds until the cut node is out (Galera: non-Primary;
RabbitMQ: the majority sees two running nodes), until it is back after
the heal (Galera: Synced in a cluster of three; RabbitMQ: three running
nodes), from the heal to the last request's answer, the requests, how
many were created, whose answer was lost, and the transactions retried;
overbooked and lost are asserted 0 by the cases (a failed case writes no
row). Needs the embedded cloud and its HA topology running as root
(``minicloud up``, ``minicloud ha up``: each node in its own network
namespace), with the same ``PLACEMENT_EXT_MINICLOUD_*`` environment.

    .venv/bin/python benchmarks/bench_partitions.py

Adds ``partitions`` to benchmarks/results/ha.json and rewrites ha.rst.
"""

import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

import bench_ha  # benchmarks/, a sibling
import report as report_page

CASES = (r'placement_ext\.tests\.functional\.ha\.'
         r'(test_partitions|test_packet_drops)\.')


def run_cases() -> tuple[dict, bool]:
    """The cases' measures, and whether every case passed."""
    with tempfile.TemporaryDirectory() as folder:
        results = os.path.join(folder, 'partitions.json')
        run = subprocess.run(
            [os.path.join(os.path.dirname(sys.executable), 'stestr'),
             '--test-path=./placement_ext/tests/functional', 'run',
             '--serial', CASES],
            env={**os.environ, 'PLACEMENT_EXT_HA_RESULTS': results},
            cwd=os.path.dirname(bench_ha.HERE), check=False)
        rows = {}
        if os.path.exists(results):
            with open(results) as f:
                rows = json.load(f)
    return rows, run.returncode == 0


def main() -> int:
    path = os.path.join(bench_ha.RESULTS, 'ha.json')
    with open(path) as f:
        report = json.load(f)
    began = time.monotonic()
    load_began = report_page.load_now()
    cases, passed = run_cases()
    report['partitions'] = {
        'date': datetime.date.today().isoformat(), 'passed': passed,
        'cases': cases, 'total_seconds': round(time.monotonic() - began),
        'load': [load_began, report_page.load_now()]}
    bench_ha.write_report(report)
    return 0 if passed else 1


if __name__ == '__main__':
    sys.exit(main())
