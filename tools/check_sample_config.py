"""Fail when etc/tacker.conf.sample differs from what the generator makes.

Run by ``./run tests`` and ``tox -e pep8``; fix with ``tox -e genconfig``.
"""

import difflib
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLE = ROOT / 'etc' / 'tacker.conf.sample'
GENERATOR_CONF = ROOT / 'etc' / 'oslo-config-generator' / 'placement_ext.conf'


def main() -> int:
    generator = pathlib.Path(sys.executable).parent / 'oslo-config-generator'
    with tempfile.TemporaryDirectory() as tmp:
        fresh = pathlib.Path(tmp) / 'sample'
        subprocess.run([str(generator), '--config-file', str(GENERATOR_CONF),
                        '--output-file', str(fresh)],
                       check=True, cwd=ROOT, stderr=subprocess.DEVNULL)
        new = fresh.read_text().splitlines(keepends=True)
    old = SAMPLE.read_text().splitlines(keepends=True)
    if new == old:
        print(f'{SAMPLE.relative_to(ROOT)} is current')
        return 0
    sys.stdout.writelines(difflib.unified_diff(
        old, new, 'checked-in sample', 'generated now'))
    generator_conf = GENERATOR_CONF.relative_to(ROOT)
    print(f'\n{SAMPLE.relative_to(ROOT)} is stale: run "tox -e genconfig" '
          f'(or oslo-config-generator --config-file {generator_conf}) '
          'and commit the result.', file=sys.stderr)
    return 1


if __name__ == '__main__':
    sys.exit(main())
