"""Debian packages and the services' venv, installed only when missing."""

import hashlib
import os
import pathlib
import subprocess

from minicloud import settings as mc_settings
from minicloud import uv


def _log(msg: str) -> None:
    print(f'minicloud: {msg}', flush=True)


def _installed(package: str) -> bool:
    result = subprocess.run(
        ['dpkg-query', '-W', '-f=${Status}', package],
        capture_output=True, text=True)
    return result.returncode == 0 and 'install ok installed' in result.stdout


def ensure_debian_packages() -> None:
    missing = [p for p in mc_settings.DEBIAN_PACKAGES if not _installed(p)]
    if not missing:
        return
    _log(f'installing Debian packages: {" ".join(missing)}')
    sudo = [] if os.geteuid() == 0 else ['sudo']
    env = {**os.environ, 'DEBIAN_FRONTEND': 'noninteractive'}
    subprocess.run([*sudo, 'apt-get', 'update', '-qq'], check=True, env=env)
    subprocess.run([*sudo, 'apt-get', 'install', '-y', '-qq', *missing],
                   check=True, env=env)


def _stamp() -> str:
    return hashlib.sha256(
        '\n'.join(mc_settings.PIP_REQUIREMENTS).encode()).hexdigest()


def ensure_venv(venv: pathlib.Path) -> None:
    """Create ``venv`` and install the pins (uv), unless already done."""
    stamp = venv / '.minicloud-requirements'
    try:
        if stamp.read_text().strip() == _stamp():
            return
    except OSError:
        pass
    if not (venv / 'bin' / 'python').exists():
        _log(f'creating {venv}')
        uv.create_venv(venv)
    log = venv / 'pip-install.log'
    _log(f'installing the OpenStack services into {venv} with uv '
         f'(under a minute; log: {log})')
    if not uv.pip_install(venv, list(mc_settings.PIP_REQUIREMENTS), log):
        raise RuntimeError(f'uv pip install failed: see {log}')
    stamp.write_text(_stamp() + '\n')
