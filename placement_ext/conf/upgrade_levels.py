"""[upgrade_levels]: the RPC API versions our clients may send while a
rolling upgrade runs old and new services side by side (as Nova's)."""

import re

from oslo_config import cfg

from placement_ext import exception

GROUP = cfg.OptGroup(
    'upgrade_levels', title='RPC version pinning for rolling upgrades',
    help="""
The newest RPC API version each client of ours sends to a service. While
an upgrade runs old and new ``placement-ext-manager`` and
``placement-ext-conductor`` side by side, pin each to the version of the
old release (or ``auto``), so a new client never sends a call an old
server refuses; unset the pins (or keep ``auto``) once every service runs
the new release. doc/source/upgrade.rst gives the order of steps.
""")

_HELP = """
The newest version of the %(service)s RPC API this process sends: a
version number (``1.9``), ``auto`` (the newest version every live
%(service)s recorded in the ``services`` table understands; the newest
this code knows when none is recorded), or unset (no cap: the newest
this code knows). Set it on every process that calls the %(service)s
(the other services, ``placement-ext``, the API processes, the Blazar
plugin's host) before the first %(service)s is upgraded.
"""

AUTO = 'auto'
_VERSION = re.compile(r'^\d+\.\d+$')

_opts = [
    cfg.StrOpt('manager', help=_HELP % {'service': 'manager'}),
    cfg.StrOpt('conductor', help=_HELP % {'service': 'conductor'}),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(_opts, group=GROUP)


def check(conf: cfg.ConfigOpts) -> None:
    for opt in _opts:
        value = conf.upgrade_levels[opt.dest]
        if value not in (None, AUTO) and not _VERSION.match(value):
            raise exception.InvalidInput(
                field=f'[upgrade_levels] {opt.dest}',
                reason=f'{value!r} is neither a version (MAJOR.MINOR) nor '
                       f'"auto"')


def list_opts() -> dict:
    return {GROUP: _opts}
