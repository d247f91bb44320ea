"""uv: the installer of every venv (the project's ``.venv``, the cloud's,
each addon release's).

uv resolves and installs the same pins as pip in a fraction of the time
(it downloads and builds in parallel and links files from its cache).
Its version is pinned in ``tools/uv-requirements.txt``; the first call
pip-installs it into a small venv of its own, ``.uv-venv`` (so nothing
is installed by hand, and a new pin is picked up by the next call).
Standard library only: ./run calls it (``minicloud uv ...``) before any
venv exists.
"""

import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
PIN_FILE = REPO / 'tools' / 'uv-requirements.txt'
BOOTSTRAP = REPO / '.uv-venv'
STAMP = '.uv-requirements'


def _log(msg: str) -> None:
    # stderr: ``minicloud uv`` passes uv's own output through on stdout
    print(f'minicloud: {msg}', file=sys.stderr, flush=True)


def binary() -> pathlib.Path:
    """The pinned uv, installed into ``.uv-venv`` when missing or when the
    pin changed."""
    uv = BOOTSTRAP / 'bin' / 'uv'
    stamp = BOOTSTRAP / STAMP
    want = PIN_FILE.read_text()
    if uv.exists() and stamp.exists() and stamp.read_text() == want:
        return uv
    _log(f'installing uv ({PIN_FILE.name}) into {BOOTSTRAP}')
    if not (BOOTSTRAP / 'bin' / 'python').exists():
        subprocess.run([sys.executable, '-m', 'venv', str(BOOTSTRAP)],
                       check=True)
    subprocess.run([str(BOOTSTRAP / 'bin' / 'pip'), 'install', '-q',
                    '-r', str(PIN_FILE)], check=True)
    stamp.write_text(want)
    return uv


def env() -> dict[str, str]:
    """The environment uv runs in: pbr-built packages (ours among them)
    take their version from ``PBR_VERSION`` (no git tags in a build
    tree), and uv never downloads a Python of its own."""
    return {**os.environ,
            'PBR_VERSION': os.environ.get('PBR_VERSION', '0.1.0'),
            'UV_PYTHON_DOWNLOADS': 'never'}


def create_venv(venv: pathlib.Path) -> None:
    """A venv on the interpreter running us, with pip in it as
    ``python -m venv`` makes (``bin/pip`` stays usable by hand)."""
    subprocess.run([str(binary()), 'venv', '--quiet', '--seed',
                    '--python', sys.executable, str(venv)],
                   check=True, env=env())


def pip_install(venv: pathlib.Path, args: list[str],
                log: pathlib.Path) -> bool:
    """``uv pip install ARGS`` into ``venv``, its output in ``log``;
    True when it succeeded."""
    argv = [str(binary()), 'pip', 'install',
            '--python', str(venv / 'bin' / 'python'), *args]
    with open(log, 'wb') as out:
        result = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT,
                                env=env())
    return result.returncode == 0


def main(args: list[str]) -> int:
    """``minicloud uv ARGS``: the pinned uv with ARGS, in its environment."""
    uv = binary()
    os.execve(uv, [str(uv), *args], env())
