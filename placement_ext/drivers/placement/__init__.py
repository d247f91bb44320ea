"""Placement driver: allocation candidates, in_tree queries, reservations.

``PlacementDriver.from_conf(conf)`` reads the ``[placement]`` group's
keystoneauth1 options; ``PlacementClient.from_endpoint(url)`` talks to a
Placement with ``auth_strategy = noauth2`` (tests, embedded use).
"""

from placement_ext.drivers.placement.candidates import Allocation
from placement_ext.drivers.placement.candidates import AllocationCandidates
from placement_ext.drivers.placement.candidates import (
    AllocationCandidatesRequest,
)
from placement_ext.drivers.placement.candidates import Candidate
from placement_ext.drivers.placement.candidates import ProviderSummary
from placement_ext.drivers.placement.candidates import RequestGroup
from placement_ext.drivers.placement.client import PlacementClient
from placement_ext.drivers.placement.client import PlacementTooOld
from placement_ext.drivers.placement.driver import PlacementDriver
from placement_ext.drivers.placement.driver import ZoneCapacity
from placement_ext.drivers.placement.reservation import Provider
from placement_ext.drivers.placement.reservation import ReservationProviders

__all__ = [
    'Allocation', 'AllocationCandidates', 'AllocationCandidatesRequest',
    'Candidate', 'PlacementClient', 'PlacementDriver', 'PlacementTooOld',
    'Provider', 'ProviderSummary', 'RequestGroup', 'ReservationProviders',
    'ZoneCapacity',
]
