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

# BlazarFilter's own definitions (blazar-nova 10.0.0), word for word:
# oslo.config accepts a second registration of an option only if it is
# equal, and nova-scheduler may load ReservationFilter before BlazarFilter
# (whose module registers them unguarded).
_opts = [
    cfg.StrOpt('aggregate_freepool_name',
               default='freepool',
               help='Name of the special aggregate where all hosts '
                    'are candidate for physical host reservation'),
    cfg.BoolOpt('allow_preemptibles',
                default=False,
                help='Whether to allow preemptible instances to be scheduled '
                     'on hosts in the preemptible aggregate'),
    cfg.StrOpt('preemptible_aggregate',
               default='freepool',
               help='Name of the aggregate where hosts can run preemptible '
                    'instances'),
    cfg.StrOpt('blazar_owner',
               default='blazar:owner',
               help='Aggregate metadata key for knowing owner project_id'),
    cfg.StrOpt('blazar_az_prefix',
               default='blazar_',
               help='Prefix for Availability Zones created by Blazar'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the options, or keep BlazarFilter's (registered first
    when both filters are loaded in one nova-scheduler)."""
    conf.register_group(GROUP)
    for opt in _opts:
        try:
            conf.register_opt(opt, group=GROUP)
        except cfg.DuplicateOptError:
            pass


def list_opts() -> dict:
    return {GROUP: _opts}
