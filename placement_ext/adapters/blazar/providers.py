"""Blazar's placement client with our reservation-provider handling.

No blazar import: :class:`ReservationProviderClient` wraps the
``BlazarPlacementClient`` of Blazar's ``physical:host`` plugin and
passes every call through except the two that make and remove
``blazar_<host>``, which go to our
:class:`~placement_ext.drivers.placement.reservation.ReservationProviders`:
create reuses a provider that exists (one our host delete kept, or a
leftover) instead of failing with 409; delete empties it instead of
deleting it, so nova-compute's cached provider tree stays valid and
builds on the host keep working.
"""

import dataclasses
from collections.abc import Callable

from placement_ext.drivers.placement import reservation


class ReservationProviderClient:
    """``upstream`` with our ``create``/``delete_reservation_provider``.

    :param providers: returns our reservation providers (built on first
        use, so the plugin loads before Placement answers).
    """

    def __init__(self, upstream: object,
                 providers: Callable[[], reservation.ReservationProviders]
                 ) -> None:
        self.upstream = upstream
        self._providers = providers

    def create_reservation_provider(self, host_name: str) -> dict:
        """The child ``blazar_<host_name>``, existing or new, as a dict
        like Placement's body (what upstream returns)."""
        provider = self._providers().ensure_reservation_provider(host_name)
        return dataclasses.asdict(provider)

    def delete_reservation_provider(self, host_name: str) -> None:
        """Empty ``blazar_<host_name>`` (no inventories) and keep it."""
        self._providers().empty_reservation_provider(host_name)

    def __getattr__(self, name: str) -> object:
        return getattr(self.upstream, name)
