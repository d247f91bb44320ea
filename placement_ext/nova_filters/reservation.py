"""ReservationFilter: keep ordinary instances off reservable hosts.

Load it in nova-scheduler with ``etc/nova/placement-ext-scheduler.conf``
(``available_filters`` names
``placement_ext.nova_filters.reservation.ReservationFilter``; this
repository's root, or the site-packages holding placement_ext, goes on
nova-scheduler's PYTHONPATH).

The rule itself is :func:`placement_ext.nova_filters.rules.host_passes`.
"""

from nova.scheduler import filters
from oslo_log import log as logging

from placement_ext.nova_filters import rules

LOG = logging.getLogger(__name__)


class ReservationFilter(filters.BaseHostFilter):
    """Refuse free-pool hosts to requests whose flavor is not reserved."""

    # Run for every instance of a multi-create request: a filter run once
    # per request lets the 2nd..Nth instance through unchecked.
    run_filter_once_per_request = False
    RUN_ON_REBUILD = False

    def host_passes(self, host_state: object, spec_obj: object) -> bool:
        flavor = getattr(spec_obj, 'flavor', None)
        extra_specs = getattr(flavor, 'extra_specs', None) or {}
        metadata = [aggregate.metadata or {}
                    for aggregate in host_state.aggregates or ()]
        passes, why = rules.host_passes(extra_specs, metadata)
        if not passes:
            LOG.debug('ReservationFilter rejects %(host)s: %(why)s',
                      {'host': host_state.host, 'why': why})
        return passes
