"""Reservation providers: the Placement side of instance reservations.

Blazar's "Placement API support for instance reservation" spec: each
compute node resource provider gets a child, the *reservation provider*
``blazar_<hostname>``; each reservation gets a custom resource class
``CUSTOM_RESERVATION_<UUID>`` (names from
:mod:`placement_ext.vocabulary.reservation_names`); starting a lease puts
an inventory of that class on the reservation provider (total = instances
reserved there), ending it removes the inventory and the class.

Every step is idempotent so an interrupted operation can simply be run
again: creating what exists returns it, deleting what is gone succeeds.
Inventories are read, changed for one class and written back with the
provider generation, so other reservations' classes on the same provider
are never overwritten; a generation conflict (another writer got there
first) is retried from the read, a bounded number of times.
"""

import contextlib
import dataclasses
import re
from collections.abc import Callable
from collections.abc import Iterator

import requests
import tenacity
from oslo_log import log as logging

from placement_ext import exception
from placement_ext.drivers.placement import client as pclient
from placement_ext.vocabulary import reservation_names as names

LOG = logging.getLogger(__name__)

# Blazar's spec asks for 1.29; everything below needs at most that
# (1.14 parents, 1.20 POST returns the provider, 1.7 PUT resource class,
# 1.23 error codes).
VERSION = (1, 29)
_CUSTOM_CLASS_RE = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
INVENTORY_DEFAULTS = {'reserved': 0, 'min_unit': 1, 'max_unit': 1,
                      'step_size': 1, 'allocation_ratio': 1.0}
PROVIDER_IN_USE = 'placement.resource_provider.inuse'
INVENTORY_IN_USE = 'placement.inventory.inuse'
_IN_USE = (PROVIDER_IN_USE, INVENTORY_IN_USE)


@dataclasses.dataclass(frozen=True)
class Provider:
    uuid: str
    name: str
    generation: int
    parent_provider_uuid: str | None
    root_provider_uuid: str

    @classmethod
    def from_json(cls, body: dict) -> 'Provider':
        return cls(body['uuid'], body['name'], body['generation'],
                   body.get('parent_provider_uuid'),
                   body.get('root_provider_uuid') or body['uuid'])


class ReservationProviders:
    """Reservation providers, classes and inventories in Placement.

    :param max_attempts: tries of one inventory change under generation
        conflicts before ``ConcurrentUpdate`` is raised.
    :param max_wait: longest pause between tries, in seconds (random
        exponential backoff, so racing writers spread out).
    """

    def __init__(self, client: pclient.PlacementClient, *,
                 max_attempts: int = 10, max_wait: float = 1.0) -> None:
        self.client = client
        self.max_attempts = max_attempts
        self.max_wait = max_wait
        self.conflicts = 0          # generation conflicts retried

    def _call(self, method: str, path: str, what: str,
              **kwargs: object) -> requests.Response:
        self.client.require(VERSION, 'reservation providers')
        return self.client.request(method, path, what=what,
                                   microversion=VERSION, **kwargs)

    # -- providers ----------------------------------------------------------

    def provider_by_name(self, name: str) -> Provider | None:
        body = self._call('GET', '/resource_providers',
                          '/resource_providers?name',
                          params={'name': name}).json()
        found = body['resource_providers']
        return Provider.from_json(found[0]) if found else None

    def compute_node(self, hostname: str) -> Provider:
        """The compute node provider Nova named after the hypervisor."""
        provider = self.provider_by_name(hostname)
        if provider is None:
            raise exception.NotFound(kind='compute node resource provider',
                                     id=hostname)
        return provider

    def reservation_provider(self, hostname: str) -> Provider | None:
        return self.provider_by_name(
            names.reservation_provider_name(hostname))

    def ensure_reservation_provider(self, hostname: str) -> Provider:
        """The child ``blazar_<hostname>`` of the host, created if needed.

        :raises NotFound: the host has no compute node provider.
        :raises Conflict: a provider of that name has another parent.
        """
        name = names.reservation_provider_name(hostname)
        host = self.compute_node(hostname)
        existing = self.provider_by_name(name)
        if existing is None:
            try:
                body = self._call(
                    'POST', '/resource_providers', '/resource_providers',
                    json={'name': name, 'parent_provider_uuid': host.uuid},
                    kind='resource provider', id=name).json()
                return Provider.from_json(body)
            except exception.Conflict:
                # created by a concurrent caller in the meantime
                existing = self.provider_by_name(name)
                if existing is None:
                    raise
        if existing.parent_provider_uuid != host.uuid:
            raise exception.Conflict(
                reason=f'resource provider {name} ({existing.uuid}) exists '
                       f'but its parent is '
                       f'{existing.parent_provider_uuid}, not compute node '
                       f'{hostname} ({host.uuid})')
        return existing

    def delete_reservation_provider(self, hostname: str) -> None:
        """Delete ``blazar_<hostname>``; nothing to do if it is gone.

        Only for a host whose nova-compute is gone (or that may fail its
        builds for one cache refresh): see
        :meth:`empty_reservation_provider`.

        :raises Conflict: it still has allocations (instances running on
            reserved capacity); Placement refuses and so do we.
        """
        provider = self.reservation_provider(hostname)
        if provider is None:
            return
        with _refused_while_allocated(provider, 'deleting it'):
            try:
                self._call('DELETE', f'/resource_providers/{provider.uuid}',
                           '/resource_providers/{uuid}', ok=(204,),
                           kind='resource provider', id=provider.uuid)
            except exception.NotFound:
                return

    def empty_reservation_provider(self, hostname: str) -> Provider | None:
        """Remove every inventory of ``blazar_<hostname>``, keep it.

        Why not delete it: nova-compute caches its compute node's provider
        tree and, once it has seen this child, reads the child's
        allocations on each resource update, builds included. A deleted
        child makes every build on the host fail
        (ResourceProviderAllocationRetrievalFailed, so "Exhausted all
        hosts") until nova-compute next refreshes the tree (``[compute]
        resource_provider_association_refresh``, 300 s by default). An
        empty provider offers nothing, and enrolling the host again
        reuses it.

        :raises Conflict: it still has allocations.
        """
        provider = self.reservation_provider(hostname)
        if provider is None:
            return None
        path = f'/resource_providers/{provider.uuid}/inventories'
        with _refused_while_allocated(provider, 'retiring it'):
            try:
                self._call('DELETE', path,
                           '/resource_providers/{uuid}/inventories',
                           ok=(204,), kind='resource provider',
                           id=provider.uuid)
            except exception.NotFound:
                return None
        return provider

    # -- resource classes ---------------------------------------------------

    def ensure_resource_class(self, name: str) -> None:
        """Create the custom class ``name`` unless it exists."""
        _check_custom_class(name)
        self._call('PUT', f'/resource_classes/{name}',
                   '/resource_classes/{name}', ok=(201, 204),
                   kind='resource class', id=name)

    def delete_resource_class(self, name: str) -> None:
        """Delete the custom class ``name``; nothing to do if it is gone.

        :raises Conflict: some provider still has inventory of it.
        """
        _check_custom_class(name)
        try:
            self._call('DELETE', f'/resource_classes/{name}',
                       '/resource_classes/{name}', ok=(204,),
                       kind='resource class', id=name)
        except exception.NotFound:
            return

    # -- inventories --------------------------------------------------------

    def inventories(self, provider_uuid: str) -> tuple[int, dict]:
        """(provider generation, {class: inventory}) of one provider."""
        body = self._call(
            'GET', f'/resource_providers/{provider_uuid}/inventories',
            '/resource_providers/{uuid}/inventories',
            kind='resource provider', id=provider_uuid).json()
        return body['resource_provider_generation'], body['inventories']

    def set_inventory(self, provider_uuid: str, resource_class: str,
                      total: int, **fields: object) -> dict:
        """Put one class's inventory, keeping every other class's.

        ``fields`` override ``INVENTORY_DEFAULTS`` (max_unit 1: one
        reserved instance takes one unit). Returns all inventories.
        """
        if isinstance(total, bool) or not isinstance(total, int) \
                or total < 1:
            raise exception.InvalidInput(
                field='total', reason=f'{total!r} is not a positive integer')
        inventory = dict(INVENTORY_DEFAULTS, **fields, total=total)

        def change(current: dict) -> dict | None:
            if current.get(resource_class) == inventory:
                return None
            return dict(current, **{resource_class: inventory})
        return self._update_inventories(provider_uuid, change)

    def delete_inventory(self, provider_uuid: str,
                         resource_class: str) -> None:
        """Remove one class's inventory; nothing to do if it is gone.

        :raises Conflict: the class is allocated (``placement_code`` is
            ``placement.inventory.inuse``).
        """
        # One call when nothing is in the way: Placement checks use and
        # generation itself. Its 409 says "concurrent update" for both
        # cases, so on any conflict the generation-checked path below
        # tells them apart (and retries a real race).
        try:
            self._call(
                'DELETE', f'/resource_providers/{provider_uuid}/inventories/'
                f'{resource_class}',
                '/resource_providers/{uuid}/inventories/{resource_class}',
                ok=(204,), kind='inventory',
                id=f'{resource_class} of {provider_uuid}')
            return
        except exception.NotFound:
            return
        except exception.Conflict:
            pass

        def change(current: dict) -> dict | None:
            if resource_class not in current:
                return None
            return {rc: inv for rc, inv in current.items()
                    if rc != resource_class}
        try:
            self._update_inventories(provider_uuid, change)
        except exception.NotFound:
            return

    def _update_inventories(self, provider_uuid: str,
                            change: Callable[[dict], dict | None]) -> dict:
        """Read, ``change``, write with the generation read; retry races.

        ``change(current)`` returns the new inventories, or None when
        there is nothing to write.
        """
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(
                exception.ConcurrentUpdate),
            stop=tenacity.stop_after_attempt(self.max_attempts),
            wait=tenacity.wait_random_exponential(multiplier=0.02,
                                                  max=self.max_wait),
            before_sleep=self._note_conflict, reraise=True)
        for attempt in retrying:
            with attempt:
                generation, current = self.inventories(provider_uuid)
                wanted = change(current)
                if wanted is None:
                    return current
                body = self._call(
                    'PUT', f'/resource_providers/{provider_uuid}/inventories',
                    '/resource_providers/{uuid}/inventories',
                    json={'resource_provider_generation': generation,
                          'inventories': wanted},
                    kind='resource provider', id=provider_uuid).json()
                return body['inventories']
        raise AssertionError('unreachable: tenacity reraises')

    def _note_conflict(self, state: tenacity.RetryCallState) -> None:
        self.conflicts += 1
        LOG.debug('Generation conflict on try %(n)d of an inventory '
                  'update; reading again', {'n': state.attempt_number})

    # -- usage ----------------------------------------------------------------

    def usages(self, provider_uuid: str) -> dict[str, int]:
        """{resource class: units allocated} on one provider."""
        return self._call(
            'GET', f'/resource_providers/{provider_uuid}/usages',
            '/resource_providers/{uuid}/usages',
            kind='resource provider', id=provider_uuid).json()['usages']

    def allocations(self, provider_uuid: str) -> dict[str, dict[str, int]]:
        """{consumer UUID: {resource class: units}} on one provider."""
        body = self._call(
            'GET', f'/resource_providers/{provider_uuid}/allocations',
            '/resource_providers/{uuid}/allocations',
            kind='resource provider', id=provider_uuid).json()
        return {consumer: alloc['resources']
                for consumer, alloc in body['allocations'].items()}


@contextlib.contextmanager
def _refused_while_allocated(provider: Provider, doing: str
                             ) -> Iterator[None]:
    """Placement's refusal to drop a provider's inventory or the provider
    while instances hold allocations there, said in our words."""
    try:
        yield
    except exception.Conflict as exc:
        if getattr(exc, 'placement_code', None) not in _IN_USE:
            raise
        raise exception.Conflict(
            reason=f'reservation provider {provider.name} ({provider.uuid}) '
                   f'still has allocations; release them before {doing}')


def _check_custom_class(name: str) -> None:
    if not _CUSTOM_CLASS_RE.match(name or ''):
        raise exception.InvalidInput(
            field='resource_class',
            reason=f'{name!r} is not a custom class (CUSTOM_ followed by '
                   f'A-Z, 0-9 and _)')
