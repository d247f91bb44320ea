"""[DEFAULT] options shared by every service: where state is kept."""

import os

from oslo_config import cfg

_path_opts = [
    cfg.StrOpt(
        'state_path',
        default=os.path.join(os.path.expanduser('~'), '.placement_ext'),
        sample_default='$HOME/.placement_ext',
        help="""
Directory where placement_ext keeps its state: the embedded SQLite
database (the default ``[database] connection``) and lock files. Created on
first use. Point it at persistent storage in production, or use a server
database instead.
"""),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(_path_opts)


def list_opts() -> dict:
    return {'DEFAULT': _path_opts}


# What we create holds operation parameters and credentials' effects:
# readable by the service's user only (the umask may narrow it further).
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def state_path(conf: cfg.ConfigOpts, *parts: str) -> str:
    """Return a path under ``state_path``, creating the directory."""
    os.makedirs(conf.state_path, mode=PRIVATE_DIR_MODE, exist_ok=True)
    return os.path.join(conf.state_path, *parts)


def private_file(path: str, make_dirs: bool = True) -> None:
    """Create ``path`` for our user only, unless it exists: an operator's
    own permissions on existing files are kept.

    :param make_dirs: create missing directories (0700); without it a
        missing directory raises FileNotFoundError.
    """
    if make_dirs:
        os.makedirs(os.path.dirname(os.path.abspath(path)),
                    mode=PRIVATE_DIR_MODE, exist_ok=True)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY,
                         PRIVATE_FILE_MODE))
    except FileExistsError:
        pass
