"""The end of a Blazar host lease, deleting only what it admitted.

No blazar import (the host plugin hands in Blazar's DB API, its
reservation pool and its Nova client). Upstream's ``physical:host``
plugin deletes every server on the lease's hosts at its end, whichever
project it belongs to; here only the lease's project's servers go
(:func:`placement_ext.decision.lease_servers.admitted`). Any other server
is kept, logged, and reported on the lease: Blazar's ``degraded`` flag,
which ``openstack reservation lease show`` prints.

Nova does not let a host with servers leave the lease's aggregate (its
availability zone would change under them), so when a server is kept the
aggregate stays, closed: its project metadata is removed, so no project
passes ReservationFilter or BlazarFilter there any more. Once the kept
servers are moved away or deleted, the operator deletes the aggregate
(``openstack aggregate remove host``, ``aggregate delete``) and puts the
hosts back in the free pool.
"""

import dataclasses
import time
from collections.abc import Callable

from novaclient import exceptions as nova_exc
from oslo_log import log as logging

from placement_ext.decision import lease_servers
from placement_ext.drivers import nova as nova_driver

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Waits:
    """How long the end waits for deleted servers to disappear (Blazar's
    ``INSTANCE_DELETION_TIMEOUT``; a shorter poll than its 5 s: one
    server show per server)."""

    timeout: float = 600.0
    interval: float = 2.0
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic


@dataclasses.dataclass(frozen=True)
class Ended:
    """The lease's hosts, and the servers kept on them."""

    hosts: tuple[str, ...]
    kept: tuple[str, ...] = ()


class HostLeaseEnd:
    """``on_end`` of a ``physical:host`` reservation.

    :param blazar_db: ``blazar.db.api``.
    :param pool: Blazar's ``ReservationPool``.
    :param nova: Blazar's Nova client (admin).
    :param aggregate_missing: the exception ``pool.delete`` raises for an
        aggregate already gone.
    :param timed_out: the exception raised when admitted servers are
        still there after ``waits.timeout``.
    """

    def __init__(self, blazar_db: object, pool: object, nova: object, *,
                 aggregate_missing: type[Exception],
                 timed_out: Callable[[], Exception],
                 waits: Waits = Waits()) -> None:
        self.blazar_db = blazar_db
        self.pool = pool
        self.nova = nova
        self.aggregate_missing = aggregate_missing
        self.timed_out = timed_out
        self.waits = waits

    def end(self, resource_id: str) -> Ended:
        """Free the hosts; delete the project's servers on them, keep the
        others."""
        host_res = self.blazar_db.host_reservation_get(resource_id)
        res = self.blazar_db.reservation_get(host_res['reservation_id'])
        lease = self.blazar_db.lease_get(res['lease_id'])
        self.blazar_db.host_reservation_update(host_res['id'],
                                               {'status': 'completed'})
        for alloc in self.blazar_db.host_allocation_get_all_by_values(
                reservation_id=res['id']):
            self.blazar_db.host_allocation_destroy(alloc['id'])
        hosts = self.pool.get_computehosts(host_res['aggregate_id'])
        verdict = lease_servers.admitted(self._servers(hosts),
                                         lease['project_id'])
        if verdict.keep:
            LOG.warning('Host lease %(lease)s (project %(project)s) keeps '
                        'servers on its hosts %(hosts)s that it did not '
                        'admit: %(kept)s; the lease is marked degraded',
                        {'lease': lease['id'], 'hosts': hosts,
                         'project': lease['project_id'],
                         'kept': lease_servers.describe(verdict)})
            self.blazar_db.lease_update(lease['id'], {'degraded': True})
        self._delete([s.id for s in verdict.delete])
        if verdict.keep:
            self._close(host_res['aggregate_id'])
            return Ended(tuple(hosts), tuple(verdict.kept_ids))
        try:
            # back to the free pool, once the servers are gone (Nova
            # refuses builds in between otherwise)
            self.pool.delete(host_res['aggregate_id'])
        except self.aggregate_missing:
            pass
        return Ended(tuple(hosts))

    def _close(self, aggregate_id: object) -> None:
        """No project may use the aggregate's hosts any more."""
        aggregate = self.nova.aggregates.get(aggregate_id)
        closed = {key: None for key in aggregate.metadata or {}
                  if key != 'availability_zone'}
        if closed:
            self.nova.aggregates.set_metadata(aggregate, closed)

    def _servers(self, hosts: list[str]) -> list[lease_servers.Server]:
        return [lease_servers.Server(server.id,
                                     getattr(server, 'tenant_id', None),
                                     host=host)
                for host in hosts
                for server in self.nova.servers.list(
                    search_opts={'host': host, 'all_tenants': 1})]

    def _delete(self, server_ids: list[str]) -> None:
        pending = nova_driver.delete_and_wait(
            server_ids, self.nova.servers.delete, self._exists,
            timeout=self.waits.timeout, interval=self.waits.interval,
            sleep=self.waits.sleep, clock=self.waits.clock,
            not_found=(nova_exc.NotFound,))
        if pending:
            LOG.error('Servers %s still exist after their deletion', pending)
            raise self.timed_out()

    def _exists(self, server_id: str) -> bool:
        try:
            self.nova.servers.get(server_id)
        except nova_exc.NotFound:
            return False
        return True
