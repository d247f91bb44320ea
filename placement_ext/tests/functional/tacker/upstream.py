"""Tacker's own functional tests, unchanged, run from our tests.

Tacker's test modules come with its wheel (the tacker addon's venv);
their VNF packages, build scripts and images are in Tacker's source tree
only: :func:`samples` takes them from Tacker's sdist on PyPI (pbr sdists
carry the whole tree), downloaded once per release into
``.tacker-sdist/`` (ignored by git; nothing of it is committed).
:func:`run` starts ``upstream_tests`` in the addon's venv on the addon's
upstream environment (``PLACEMENT_EXT_MINICLOUD_TACKER_AZ_RETRY=1``,
``tools/minicloud/tacker_az_retry.py``).
"""

import os
import pathlib
import subprocess
import sys
import tarfile

VARIABLE = 'PLACEMENT_EXT_MINICLOUD_TACKER_AZ_RETRY'
RUNNER = 'placement_ext.tests.functional.tacker.upstream_tests'
REPO = pathlib.Path(__file__).resolve().parents[4]
CACHE = REPO / '.tacker-sdist'
NEEDED = 'functional/sol_v2_common'
DOWNLOAD_TIMEOUT = 600


def environment_on() -> bool:
    return os.environ.get(VARIABLE) == '1'


def samples(release: str) -> pathlib.Path:
    """``samples/tests`` of Tacker ``release``'s sdist, downloaded and
    unpacked once."""
    top = CACHE / release / f'tacker-{release}'
    tree = top / 'samples' / 'tests'
    if (tree / NEEDED).is_dir():
        return tree
    sdist = CACHE / release / f'tacker-{release}.tar.gz'
    if not sdist.exists():
        subprocess.run(
            [sys.executable, '-m', 'pip', 'download', '--quiet',
             f'tacker=={release}', '--no-binary', ':all:', '--no-deps',
             '-d', str(sdist.parent)],
            check=True, timeout=DOWNLOAD_TIMEOUT)
    prefix = f'tacker-{release}/samples/tests/'
    with tarfile.open(sdist) as tar:
        members = [m for m in tar.getmembers()
                   if m.name.startswith(prefix)]
        tar.extractall(CACHE / release, members=members, filter='data')
    if not (tree / NEEDED).is_dir():
        raise RuntimeError(f'{sdist} has no samples/tests/{NEEDED}')
    return tree


def run(addon: dict, names: list[str], with_samples: bool = True,
        timeout: int = 3600) -> subprocess.CompletedProcess:
    """Tacker's tests ``names`` (dotted, under ``tacker.tests.
    functional``) in the addon's venv, with the sdist's samples of the
    addon's release (``with_samples``) or none (the zone-retry test
    needs only our package)."""
    python = pathlib.Path(addon['venv'], 'bin', 'python')
    auth_url = addon['cloud'].admin.config.config['auth'][
        'auth_url'].removesuffix('/v3')
    tree = str(samples(addon['release'])) if with_samples else '-'
    # the notification server of Tacker's tests: beside the addon's
    port = addon['ports']['nfvo'] + 1
    return subprocess.run(
        [str(python), '-m', RUNNER,
         str(pathlib.Path(addon['etc'], 'tacker.conf')),
         auth_url, str(port), tree, *names],
        capture_output=True, text=True, timeout=timeout, cwd=REPO)


def durations(output: str) -> str:
    """The runner's ``duration <test> <s>`` lines."""
    return '\n'.join(line for line in output.splitlines()
                     if line.startswith('duration '))
