#!/usr/bin/env python3
"""Our releases (``releasenotes/releases.txt``) and a venv with one of
them installed, for the upgrade tests and for operators' trials.

    previous_release.py show               the newest release: "VERSION
                                           COMMIT" on stdout
    previous_release.py venv DIR [VERSION] DIR gets a venv with VERSION
                                           (default: the newest) installed

The venv is built from the release's commit (a local clone checked out
at it, so no tag is needed: a clone without tags works too), with
``PBR_VERSION`` set to the release's version, as pbr derives it from
the tag, and the
release's own ``upper-constraints.txt``; through ``minicloud uv``, as
the project's other venvs. Idempotent: a DIR that already holds that
release is kept. Standard library only.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
RELEASES = REPO / 'releasenotes' / 'releases.txt'
MINICLOUD = REPO / 'tools' / 'minicloud' / 'minicloud'
MARK = '.placement-ext-release'


def releases() -> list[tuple[str, str]]:
    """(version, commit) of each release, oldest first."""
    out = []
    for line in RELEASES.read_text().splitlines():
        line = line.split('#', 1)[0].strip()
        if line:
            version, commit = line.split()[:2]
            out.append((version, commit))
    return out


def find(version: str | None) -> tuple[str, str]:
    known = releases()
    if version is None:
        return known[-1]
    for found in known:
        if found[0] == version:
            return found
    raise SystemExit(f'no release {version} in {RELEASES}')


def build_venv(target: pathlib.Path, version: str | None = None) -> str:
    """A venv at ``target`` with the release installed; its version."""
    version, commit = find(version)
    mark = target / MARK
    if mark.exists() and mark.read_text().strip() == f'{version} {commit}':
        return version
    shutil.rmtree(target, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        # a clone, not an archive: pbr takes the package's data files
        # (alembic.ini) from git
        source = pathlib.Path(tmp) / f'placement-ext-{version}'
        subprocess.run(['git', 'clone', '-q', '--no-checkout', str(REPO),
                        str(source)], check=True)
        subprocess.run(['git', '-C', str(source), 'checkout', '-q', commit],
                       check=True)
        subprocess.run([str(MINICLOUD), 'uv', 'venv', '--seed', '--python',
                        'python3', str(target)], check=True)
        subprocess.run(
            [str(MINICLOUD), 'uv', 'pip', 'install', '--python',
             str(target / 'bin' / 'python'), '-c',
             str(source / 'upper-constraints.txt'), str(source)],
            check=True, env={**os.environ, 'PBR_VERSION': version})
    mark.write_text(f'{version} {commit}\n')
    return version


def main(argv: list[str]) -> int:
    if argv[:1] == ['show']:
        print(*find(None))
        return 0
    if argv[:1] == ['venv'] and len(argv) in (2, 3):
        version = build_venv(pathlib.Path(argv[1]).resolve(),
                             argv[2] if len(argv) == 3 else None)
        print(f'{argv[1]}: placement-ext {version}')
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
