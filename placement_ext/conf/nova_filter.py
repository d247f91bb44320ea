"""[blazar:physical:host]: BlazarFilter's options, read by ReservationFilter.

These are blazar-nova's own options, in nova-scheduler's ``nova.conf``,
with BlazarFilter's names and defaults, so an operator who swaps
BlazarFilter for ``placement_ext.nova_filters.reservation.ReservationFilter``
keeps the section as it is. (BlazarFilter's ``project_id_key`` is not here:
BlazarFilter never reads it either.)
"""

from oslo_config import cfg

GROUP = cfg.OptGroup(
    'blazar:physical:host',
    title="BlazarFilter's options (nova-scheduler)",
    help='Read in nova-scheduler by the ReservationFilter, as blazar-nova '
         "10.0.0's BlazarFilter reads them: which aggregates are Blazar's "
         'host lease pools and free pool, and where preemptible instances '
         'may run.')

_opts = [
    cfg.StrOpt('aggregate_freepool_name', default='freepool',
               help='Name of the aggregate of reservable hosts (the free '
                    'pool): only reserved instances land there. An '
                    'aggregate with the metadata placement_ext:freepool='
                    'true is the free pool too, whatever its name.'),
    cfg.BoolOpt('allow_preemptibles', default=False,
                help='Let instances whose flavor has "blazar:preemptible" '
                     'true run on the hosts of the preemptible aggregate '
                     '(and only there), as BlazarFilter does.'),
    cfg.StrOpt('preemptible_aggregate', default='freepool',
               help='Name of the aggregate whose hosts take preemptible '
                    'instances when allow_preemptibles is true.'),
    cfg.StrOpt('blazar_owner', default='blazar:owner',
               help="Aggregate metadata key naming a host lease pool's "
                    'project.'),
    cfg.StrOpt('blazar_az_prefix', default='blazar_',
               help='Prefix of the availability zones of host lease pools '
                    "(Blazar's [physical:host] blazar_az_prefix); zones "
                    'starting with "blazar:" are host lease pools too, as '
                    'for BlazarFilter.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the options, or keep BlazarFilter's: when both filters
    are loaded in one nova-scheduler, blazar-nova registered the same
    names (other help texts) first, and their values are the same."""
    conf.register_group(GROUP)
    for opt in _opts:
        try:
            conf.register_opt(opt, group=GROUP)
        except cfg.DuplicateOptError:
            pass


def list_opts() -> dict:
    return {GROUP: _opts}
