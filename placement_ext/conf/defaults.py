"""Defaults we set on libraries' options: the embedded configuration.

A newcomer needs nothing running: the database is a SQLite file under
``state_path`` and RPC uses oslo.messaging's in-process ``fake://``
transport. Production sets ``[database] connection`` and
``transport_url``.
"""

import oslo_messaging
from oslo_config import cfg
from oslo_db import options as db_options
from oslo_messaging import opts as messaging_opts

EMBEDDED_CONNECTION = 'sqlite:///$state_path/placement_ext.sqlite'
EMBEDDED_TRANSPORT_URL = 'fake://'
CONTROL_EXCHANGE = 'placement_ext'


def set_lib_defaults() -> None:
    """Entry point for ``oslo.config.opts.defaults`` (sample generator)."""
    set_defaults(cfg.CONF)


def set_defaults(conf: cfg.ConfigOpts) -> None:
    db_options.set_defaults(conf, connection=EMBEDDED_CONNECTION)
    oslo_messaging.set_transport_defaults(CONTROL_EXCHANGE)
    # oslo.messaging registers transport_url lazily, when the first
    # transport is built; register its (public) [DEFAULT] list now so the
    # embedded default applies to that first transport.
    for group, opts in messaging_opts.list_opts():
        if group is None or group == 'DEFAULT':
            conf.register_opts(opts)
    conf.set_default('transport_url', EMBEDDED_TRANSPORT_URL)
