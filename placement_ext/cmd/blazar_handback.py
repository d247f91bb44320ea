"""``placement-ext-blazar-handback``: our Blazar leases handed back to
Blazar's own plugins, before ``[manager] plugins`` names them again.

::

    placement-ext-blazar-handback --config-file /etc/blazar/blazar.conf
    placement-ext-blazar-handback --config-file ... --check

``--check`` changes nothing (blazar-manager may run): it says which
leases would be handed back (``ready``) and which kept, and why. Run
in blazar-manager's environment (Blazar and placement_ext installed),
with blazar-manager stopped, on blazar.conf (and its
``--config-dir``, if any): the command reads Blazar's database and our
plugins' settings from it, as the plugins do. It prints one line per
lease (:mod:`placement_ext.adapters.blazar.handback`): ``handed back``,
``kept`` with the reason (the lease is still ours: fix the reason, run
again) or ``warning``. Idempotent: a lease handed back is no longer
ours, a run cut half-way is finished by the next. Exit status 0 when
nothing is kept, 1 when something is (or on an error, one ``ERROR:``
line).
"""

import sys

from oslo_config import cfg

from placement_ext import exception
from placement_ext.adapters.blazar import handback
from placement_ext.adapters.blazar import plugin as instance_plugin
from placement_ext.db import api as db_api
from placement_ext.db import migration
from placement_ext.manager import reservations

PROG = 'placement-ext-blazar-handback'


def _workflows(blazar_conf: cfg.ConfigOpts) -> reservations.Reservations:
    conf = instance_plugin.placement_ext_conf(
        instance_plugin.InstancePlugin.resource_type)
    database = db_api.Database(conf)
    migration.ensure_current(conf, database)
    return reservations.Reservations.from_conf(conf, database)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    blazar_conf = instance_plugin.CONF
    blazar_conf.register_cli_opt(cfg.BoolOpt(
        'check', default=False,
        help='Change nothing: say what would be handed back or kept.'))
    blazar_conf.register_opts(
        instance_plugin.plugin_opts(),
        group=instance_plugin.InstancePlugin.resource_type)
    try:
        blazar_conf(argv, project='blazar', prog=PROG)
        outcomes = handback.HandBack(
            _workflows(blazar_conf), instance_plugin.blazar_db,
            blazar_conf.nova.blazar_owner).run(check=blazar_conf.check)
    except (cfg.Error, exception.PlacementExtError) as exc:
        print(f'ERROR: {exc}', file=sys.stderr)
        return 1
    for outcome in outcomes:
        print(outcome.line())
    if not outcomes:
        print('No lease of ours left: nothing to hand back.')
    return int(any(o.result == handback.KEPT for o in outcomes))


if __name__ == '__main__':
    sys.exit(main())
