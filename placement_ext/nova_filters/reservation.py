"""ReservationFilter: Blazar's host isolation, in nova-scheduler.

Load it in nova-scheduler with ``etc/nova/placement-ext-scheduler.conf``
(``available_filters`` names
``placement_ext.nova_filters.reservation.ReservationFilter``; this
repository's root, or the site-packages holding placement_ext, goes on
nova-scheduler's PYTHONPATH). It replaces upstream's BlazarFilter: free-
pool hosts take only reserved instances, a host lease's hosts only its
project's servers (with the ``reservation`` hint).

The rule itself is :func:`placement_ext.nova_filters.rules.host_passes`,
read with BlazarFilter's options (``[blazar:physical:host]`` in nova.conf,
:mod:`placement_ext.conf.nova_filter`).
"""

from nova.scheduler import filters
from oslo_config import cfg
from oslo_log import log as logging

from placement_ext.conf import nova_filter as nova_filter_conf
from placement_ext.nova_filters import rules

LOG = logging.getLogger(__name__)
CONF = cfg.CONF
nova_filter_conf.register_opts(CONF)


def settings(conf: cfg.ConfigOpts = CONF) -> rules.Settings:
    """BlazarFilter's options as the rules read them."""
    opts = conf[nova_filter_conf.GROUP.name]
    return rules.Settings(
        az_prefix=opts.blazar_az_prefix, owner_key=opts.blazar_owner,
        freepool_name=opts.aggregate_freepool_name,
        allow_preemptibles=opts.allow_preemptibles,
        preemptible_aggregate=opts.preemptible_aggregate)


def _request(spec_obj: object) -> rules.Request:
    flavor = getattr(spec_obj, 'flavor', None)
    hint = spec_obj.get_scheduler_hint(rules.RESERVATION_HINT)
    if isinstance(hint, str):
        hint = [hint]
    return rules.Request(
        extra_specs=getattr(flavor, 'extra_specs', None) or {},
        project_id=getattr(spec_obj, 'project_id', None),
        reservations=tuple(hint or ()))


def _aggregates(host_state: object) -> list[rules.Aggregate]:
    return [rules.Aggregate(name=agg.name or '',
                            availability_zone=agg.availability_zone,
                            metadata=agg.metadata or {})
            for agg in host_state.aggregates or ()]


class ReservationFilter(filters.BaseHostFilter):
    """Keep hosts promised to reservations for their reservations."""

    # Run for every instance of a multi-create request: a filter run once
    # per request lets the 2nd..Nth instance through unchecked.
    run_filter_once_per_request = False
    RUN_ON_REBUILD = False

    def host_passes(self, host_state: object, spec_obj: object) -> bool:
        passes, why = rules.host_passes(_request(spec_obj),
                                        _aggregates(host_state), settings())
        if not passes:
            LOG.debug('ReservationFilter rejects %(host)s: %(why)s',
                      {'host': host_state.host, 'why': why})
        return passes
