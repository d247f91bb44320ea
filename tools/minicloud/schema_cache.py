"""The cloud's migrated database schemas, kept between bring-ups.

Migrating the eight databases (neutron's few hundred alembic steps, four
nova-manage runs, glance, heat, placement, keystone) is most of a
bring-up's CPU on two cores. The schemas depend only on the pinned
service versions, so the first bring-up dumps them and later ones load
the dump in seconds, the way uv's cache spares the downloads. The key is
the pins (a new pin migrates afresh); a dump that fails to load is
dropped and the databases migrated as before.

``PLACEMENT_EXT_MINICLOUD_SCHEMA_CACHE``: the folder (default
``~/.cache/placement_ext/minicloud-schemas``), or ``off``.
"""

import hashlib
import os
import pathlib
import shutil
import subprocess
import tempfile

from minicloud import backends
from minicloud import configs
from minicloud import settings as mc_settings

# bump when what a dump holds changes
FORMAT = 1
OFF = 'off'


def log(msg: str) -> None:
    print(f'minicloud: {msg}', flush=True)


def folder() -> pathlib.Path | None:
    """The cache folder, or None when the cache is off."""
    raw = os.environ.get(mc_settings.PREFIX + 'SCHEMA_CACHE', '').strip()
    if raw.lower() == OFF:
        return None
    if raw:
        return pathlib.Path(raw)
    home = os.environ.get('XDG_CACHE_HOME') or pathlib.Path.home() / '.cache'
    return pathlib.Path(home, 'placement_ext', 'minicloud-schemas')


def key() -> str:
    """What the dumps depend on: the pins and the databases."""
    text = '\n'.join([str(FORMAT), *mc_settings.PIP_REQUIREMENTS,
                      *configs.DATABASES])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _path(name: str) -> pathlib.Path | None:
    base = folder()
    return None if base is None else base / f'{name}-{key()}.sql'


def _client(s: mc_settings.Settings, tool: str) -> list[str]:
    return [shutil.which(tool) or tool, '--no-defaults',
            f'--socket={s.path("run", "mysqld.sock")}', '-uroot']


def _first_words(stderr: bytes) -> str:
    return stderr.decode(errors='replace').strip()[:200]


def load(s: mc_settings.Settings, name: str,
         databases: tuple[str, ...]) -> bool:
    """Load dump ``name`` into ``databases``; False when there is none.

    A dump that fails to load is removed and the databases emptied, so
    the caller migrates them as if there had been none.
    """
    path = _path(name)
    if path is None or not path.is_file():
        return False
    with open(path, 'rb') as dump:
        result = subprocess.run(_client(s, 'mariadb'), stdin=dump,
                                capture_output=True)
    if result.returncode == 0:
        log(f'{name} schemas loaded from {path}')
        return True
    log(f'{path} did not load ({_first_words(result.stderr)}): removed, '
        f'migrating instead')
    path.unlink(missing_ok=True)
    backends.run_sql(s, '; '.join(
        f'DROP DATABASE IF EXISTS {db}; CREATE DATABASE {db}'
        for db in databases))
    return False


def save(s: mc_settings.Settings, name: str,
         databases: tuple[str, ...]) -> None:
    """Dump ``databases`` as dump ``name``; a failure only logs."""
    path = _path(name)
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    # written aside then renamed: clouds of other engineers may load it
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix='.part')
    with os.fdopen(fd, 'wb') as out:
        result = subprocess.run(
            [*_client(s, 'mariadb-dump'), '--single-transaction',
             '--routines', '--triggers', '--skip-comments', '--no-create-db',
             '--databases', *databases],
            stdout=out, stderr=subprocess.PIPE)
    if result.returncode != 0:
        os.unlink(tmp)
        log(f'schemas not kept ({_first_words(result.stderr)})')
        return
    os.replace(tmp, path)
