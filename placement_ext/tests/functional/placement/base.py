"""Builders for provider trees in a real Placement, through its REST API.

Test set-up talks to Placement the way Nova's resource tracker does
(create providers, put inventories, traits and aggregates), using our
client's raw ``request`` so the driver under test is not used to arrange
its own inputs.
"""

import uuid

import testtools

from placement_ext.drivers.placement import client as pclient
from placement_ext.tests.fixtures import placement as placement_fixture

V = (1, 39)


def create_provider(client: pclient.PlacementClient, name: str,
                    parent: str | None = None) -> str:
    body = {'name': name}
    if parent:
        body['parent_provider_uuid'] = parent
    return client.request('POST', '/resource_providers', what='setup',
                          microversion=V, json=body).json()['uuid']


def set_inventory(client: pclient.PlacementClient, rp: str,
                  **totals: int) -> None:
    generation = _generation(client, rp)
    client.request(
        'PUT', f'/resource_providers/{rp}/inventories', what='setup',
        microversion=V,
        json={'resource_provider_generation': generation,
              'inventories': {rc: {'total': total}
                              for rc, total in totals.items()}})


def set_traits(client: pclient.PlacementClient, rp: str,
               *traits: str) -> None:
    client.request('PUT', f'/resource_providers/{rp}/traits', what='setup',
                   microversion=V,
                   json={'traits': list(traits),
                         'resource_provider_generation':
                             _generation(client, rp)})


def set_aggregates(client: pclient.PlacementClient, rp: str,
                   *aggregates: str) -> None:
    client.request('PUT', f'/resource_providers/{rp}/aggregates',
                   what='setup', microversion=V,
                   json={'aggregates': list(aggregates),
                         'resource_provider_generation':
                             _generation(client, rp)})


def allocate(client: pclient.PlacementClient,
             allocations: dict[str, dict[str, int]]) -> str:
    """Claim ``{provider: {class: amount}}`` for a new consumer."""
    consumer = str(uuid.uuid4())
    client.request(
        'PUT', f'/allocations/{consumer}', what='setup', microversion=V,
        ok=(204,),
        json={'allocations': {rp: {'resources': amounts}
                              for rp, amounts in allocations.items()},
              'project_id': str(uuid.uuid4()), 'user_id': str(uuid.uuid4()),
              'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    return consumer


def create_compute_node(client: pclient.PlacementClient, hostname: str,
                        vcpus: int = 8, memory_mb: int = 16384,
                        disk_gb: int = 100) -> str:
    """A root provider shaped like Nova's compute node provider."""
    rp = create_provider(client, hostname)
    set_inventory(client, rp, VCPU=vcpus, MEMORY_MB=memory_mb,
                  DISK_GB=disk_gb)
    return rp


def _generation(client: pclient.PlacementClient, rp: str) -> int:
    return client.request('GET', f'/resource_providers/{rp}', what='setup',
                          microversion=V).json()['generation']


class PlacementServerTestCase(testtools.TestCase):
    """A fresh real Placement (HTTP, SQLite) for each test."""

    def setUp(self):
        super().setUp()
        self.server = self.useFixture(placement_fixture.PlacementServer())
        self.client = self.server.client()
