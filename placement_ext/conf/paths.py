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


def state_path(conf: cfg.ConfigOpts, *parts: str) -> str:
    """Return a path under ``state_path``, creating the directory."""
    os.makedirs(conf.state_path, exist_ok=True)
    return os.path.join(conf.state_path, *parts)
