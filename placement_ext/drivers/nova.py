"""Nova: availability zones, aggregates, hypervisors, flavors, servers.

Reports what Nova says. Admin-only calls degrade with a stated reason
instead of hiding the caller's original error (Tacker's get_zone raised a
403 over Heat's failure text).
"""

import dataclasses
import time
from collections.abc import Callable

from keystoneauth1 import session as ks_session
from novaclient import client as nova_client
from novaclient import exceptions as nova_exc
from oslo_log import log as logging

from placement_ext import exception

LOG = logging.getLogger(__name__)

# 2.53: service and hypervisor ids are UUIDs; 2.55: flavor description.
API_VERSION = '2.60'
INTERNAL_ZONE = 'internal'


@dataclasses.dataclass(frozen=True)
class ZoneListing:
    """Compute zones that can take new servers, and how we know."""

    zones: tuple[str, ...]
    hosts: dict[str, tuple[str, ...]]
    detailed: bool
    note: str = ''


class NovaDriver:
    def __init__(self, session: ks_session.Session, *,
                 adapter_kwargs: dict | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._client = nova_client.Client(
            API_VERSION, session=session, **(adapter_kwargs or {}))
        self._sleep = sleep
        self._clock = clock

    # -- availability zones -------------------------------------------------

    def compute_zones(self) -> ZoneListing:
        """Zones with an available, active nova-compute.

        ``os-availability-zone/detail`` is admin-only by default policy.
        Without it, the plain zone list is used (every available zone,
        hosts unknown) and ``note`` says so.
        """
        try:
            detail = self._client.availability_zones.list(detailed=True)
        except nova_exc.Forbidden:
            return self._zones_without_detail()
        hosts = {}
        for zone in detail:
            if zone.zoneName == INTERNAL_ZONE or \
                    not zone.zoneState.get('available'):
                continue
            computes = sorted(
                host for host, services in (zone.hosts or {}).items()
                if _compute_is_up(services.get('nova-compute')))
            if computes:
                hosts[zone.zoneName] = tuple(computes)
        return ZoneListing(tuple(sorted(hosts)), hosts, detailed=True)

    def _zones_without_detail(self) -> ZoneListing:
        zones = sorted(
            zone.zoneName
            for zone in self._client.availability_zones.list(detailed=False)
            if zone.zoneState.get('available')
            and zone.zoneName != INTERNAL_ZONE)
        note = ('os-availability-zone/detail is forbidden for this account '
                '(admin only by default policy); using the plain zone list, '
                'so zones whose computes are all down may be tried')
        LOG.warning(note)
        return ZoneListing(tuple(zones), {}, detailed=False, note=note)

    def zone_aggregates(self) -> dict[str, list[str]]:
        """Zone name -> UUIDs of the host aggregates that define it.

        Nova mirrors aggregate membership into Placement under the same
        UUID, so these are the ``member_of`` values of a zone. Admin only:
        returns {} (and logs why) for other accounts.
        """
        try:
            aggregates = self._client.aggregates.list()
        except nova_exc.Forbidden:
            LOG.warning('Listing host aggregates is forbidden for this '
                        'account; zone capacity cannot be read from '
                        'Placement')
            return {}
        zones = {}
        for agg in aggregates:
            zone = (agg.metadata or {}).get('availability_zone')
            if zone:
                zones.setdefault(zone, []).append(agg.uuid)
        return {zone: sorted(uuids) for zone, uuids in zones.items()}

    # -- servers --------------------------------------------------------------

    def server_host(self, server_id: str) -> str | None:
        """The compute host of a server (admin only), or None."""
        server = self._call('show server', self._client.servers.get,
                            server_id)
        return getattr(server, 'OS-EXT-SRV-ATTR:host', None)

    def _call(self, what: str, func: Callable, *args: object,
              **kwargs: object) -> object:
        try:
            return func(*args, **kwargs)
        except nova_exc.NotFound as exc:
            raise exception.NotFound(message=f'Nova: {what}: {exc}',
                                     kind='nova resource', id=str(args[:1]))
        except nova_exc.ClientException as exc:
            raise exception.ServiceError(service='Nova',
                                         reason=f'{what}: {exc}')


def _compute_is_up(service: dict | None) -> bool:
    return bool(service and service.get('available')
                and service.get('active'))
