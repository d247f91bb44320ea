"""Our instance reservations handed back to Blazar's own plugins.

Before an operator puts ``virtual.instance.plugin`` back in ``[manager]
plugins``, each lease of ours gets the form upstream's instance plugin
(Blazar 15 to 18) reads at its start, update, heal and end:

* ``instance_reservations``: ``aggregate_id`` of a per-reservation
  aggregate named after the reservation (metadata ``reservation``,
  ``filter_tenant_id``, the owner key, ``affinity_id`` of a group),
  holding, once started, the hosts of its slots (they stay in the free
  pool, as upstream's ``stay_in``); ``flavor_id`` and ``server_group_id``
  as they are; ``computehost_allocations`` one row per slot;
* its private flavor with upstream's extra specs (``affinity_id`` added
  for a group) and, for a reservation not started, no project access
  (upstream grants it at the start, and Nova refuses a second grant);
* its ``CUSTOM_RESERVATION_<ID>`` class, and the inventories of a started
  one on its hosts' ``blazar_<host>`` providers (ours already).

Then our rows of the lease go (:meth:`~placement_ext.manager.
reservations.Reservations.hand_over`). Every step is idempotent and the
rows go last, so a run cut half-way is finished by the next one.

A lease is not handed back, and the report says why, when upstream's end
would delete a server its lease did not admit (upstream deletes every
server of the flavor, whichever project), when Blazar's and our statuses
differ (an event in progress) or when Blazar lacks the reservation. A
host lease needs nothing (our host plugin writes upstream's rows); its
report names any server of another project on its hosts, which
upstream's end would delete.

No blazar import: ``blazar_db`` is Blazar's ``blazar.db.api`` (a
stand-in in unit tests).
"""

import dataclasses

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.adapters.blazar import mirror
from placement_ext.decision import lease_servers
from placement_ext.manager import reservations
from placement_ext.objects import lease as lease_obj
from placement_ext.vocabulary import reservation_names as names
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)

HANDED_BACK = 'handed back'
READY = 'ready'        # a check: would be handed back (or forgotten)
FORGOTTEN = 'forgotten'   # Blazar rolled its lease back: ours removed
KEPT = 'kept'          # still ours: the reason says what to do
WARNING = 'warning'    # upstream's already; the reason says what to know
_HOST_RESOURCE_TYPE = 'physical:host'
_ROLLED_BACK = ('Blazar rolled its lease back: our pending lease, its '
                'flavor and class are removed')
# Blazar's instance reservation status for ours, by our status
_STATUSES = {states.LEASE_PENDING: states.RESERVATION_PENDING,
             states.LEASE_ACTIVE: states.RESERVATION_ACTIVE}


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One line of the report."""

    lease: str          # Blazar's lease id (our lease's id if unknown)
    reservation: str
    result: str         # HANDED_BACK, READY, FORGOTTEN, KEPT, WARNING
    detail: str

    def line(self) -> str:
        return (f'lease {self.lease} reservation {self.reservation}: '
                f'{self.result}: {self.detail}')


class HandBack:
    """Our leases in the form Blazar's own plugins read.

    :param workflows: our reservation workflows (their Nova, Placement
        and database).
    :param blazar_db: Blazar's ``blazar.db.api``.
    :param owner_key: Blazar's ``[nova] blazar_owner`` metadata key.
    """

    def __init__(self, workflows: reservations.Reservations,
                 blazar_db: object, owner_key: str = 'blazar:owner') -> None:
        self.workflows = workflows
        self.nova = workflows.nova
        self.placement = workflows.placement
        self.blazar_db = blazar_db
        self.rows = mirror.BlazarRows(blazar_db)
        self.owner_key = owner_key

    def run(self, check: bool = False) -> list[Outcome]:
        """Hand back every lease of ours; check Blazar's host leases.

        :param check: change nothing; say what would be handed back
            (:data:`READY`) or kept.
        """
        hosts = {h['hypervisor_hostname']: h
                 for h in self.blazar_db.host_list()}
        outcomes = []
        if not check:
            # pending leases of ours Blazar rolled back: flavor, class
            # and rows removed (as our plugin does at a lease create)
            outcomes += [Outcome(lease_id, '-', FORGOTTEN, _ROLLED_BACK)
                         for lease_id in self.workflows.forget_orphans(
                             lambda res_id: self.blazar_db.reservation_get(
                                 res_id) is not None)]
        for lease in lease_obj.list_leases(self.workflows.database):
            outcomes.append(self._lease(lease, hosts, check))
        outcomes.extend(self._host_leases(hosts))
        return outcomes

    # -- instance reservations -------------------------------------------

    def _lease(self, lease: lease_obj.Lease, hosts: dict,
               check: bool) -> Outcome:
        if len(lease.reservations) != 1:
            return Outcome(lease.id, '-', KEPT,
                           f'our lease {lease.name} has '
                           f'{len(lease.reservations)} reservations, not '
                           f'the one a Blazar reservation maps to')
        res = lease.reservations[0]
        row = self.blazar_db.reservation_get(res.id)
        if row is None:
            if check and lease.status == states.LEASE_PENDING:
                return Outcome(lease.id, res.id, READY, _ROLLED_BACK)
            return Outcome(lease.id, res.id, KEPT,
                           f'Blazar has no such reservation, and ours is '
                           f'{lease.status}: no Blazar plugin will end it; '
                           f'delete its servers, flavor {res.flavor_id}, '
                           f'class {res.resource_class} and its '
                           f'inventories by hand')
        blazar_lease = self.blazar_db.lease_get(row['lease_id'])
        outcome = lambda result, detail: Outcome(   # noqa: E731
            row['lease_id'], res.id, result, detail)
        expected = _STATUSES.get(lease.status)
        if expected is None or row['status'] != expected:
            return outcome(KEPT, f'our lease is {lease.status}, Blazar\'s '
                                 f'reservation {row["status"]} (an event '
                                 f'is unfinished or failed): run blazar-'
                                 f'manager with our plugins until they '
                                 f'agree, or delete the lease')
        strangers = lease_servers.admitted(
            self.nova.servers_with_flavor(res.flavor_id),
            blazar_lease['project_id'], names.flavor_name_for(res.id)).keep
        if strangers:
            return outcome(KEPT, 'upstream\'s end would delete servers of '
                                 'its flavor that the lease did not admit: '
                                 + _servers(strangers))
        missing = sorted(set(res.slots_by_host) - set(hosts))
        if missing:
            return outcome(KEPT, f'Blazar no longer has its host '
                                 f'{missing[0]}: end or delete the lease')
        started = row['status'] == states.RESERVATION_ACTIVE
        if not check:
            try:
                self._convert(res, row, blazar_lease['project_id'], hosts)
            except exception.PlacementExtError as exc:
                return outcome(KEPT, f'{exc} (run this again once fixed)')
            self.workflows.hand_over(lease)
        return outcome(READY if check else HANDED_BACK, (
            f'{row["status"]}, {res.amount} slot(s) on '
            f'{", ".join(sorted(res.slots_by_host)) or "no host"}'
            + ('' if started else '; flavor access is granted at its '
                                  'start by upstream\'s plugin')))

    def _convert(self, res: lease_obj.Reservation, row: dict, project: str,
                 hosts: dict) -> None:
        group = res.server_group_id
        extra = {'affinity_id': group} if group else {}
        self.placement.ensure_resource_class(res.resource_class)
        self.nova.ensure_private_flavor(
            res.flavor_id, names.flavor_name_for(res.id), vcpus=res.vcpus,
            memory_mb=res.memory_mb, disk_gb=res.disk_gb,
            extra_specs={**names.flavor_extra_specs(res.id), **extra},
            project_id=project)
        aggregate = self.nova.ensure_aggregate(res.id, {
            'reservation': res.id, 'filter_tenant_id': project,
            self.owner_key: project, **extra})
        if row['status'] == states.RESERVATION_ACTIVE:
            for name in sorted(res.slots_by_host):
                self.nova.add_host_to_aggregate(
                    aggregate, hosts[name]['service_name'])
        else:
            self.nova.revoke_flavor_access(res.flavor_id, project)
        self.rows.write_allocations(
            res, {name: h['id'] for name, h in hosts.items()})
        self.blazar_db.instance_reservation_update(row['resource_id'], {
            'aggregate_id': aggregate.id, 'flavor_id': res.flavor_id,
            'server_group_id': group})

    # -- host reservations -----------------------------------------------

    def _host_leases(self, hosts: dict) -> list[Outcome]:
        by_id = {h['id']: h for h in hosts.values()}
        outcomes = []
        for row in self.blazar_db.reservation_get_all_by_values(
                resource_type=_HOST_RESOURCE_TYPE,
                status=states.RESERVATION_ACTIVE):
            project = self.blazar_db.lease_get(row['lease_id'])['project_id']
            names_ = sorted({
                by_id[a['compute_host_id']]['service_name']
                for a in self.blazar_db.host_allocation_get_all_by_values(
                    reservation_id=row['id'])
                if a['compute_host_id'] in by_id})
            servers = [s for name in names_
                       for s in self.nova.servers_on_host(name)]
            strangers = lease_servers.admitted(servers, project).keep
            if strangers:
                outcomes.append(Outcome(
                    row['lease_id'], row['id'], WARNING,
                    'host lease (upstream\'s rows already); upstream\'s end '
                    'would delete servers of other projects on its hosts: '
                    + _servers(strangers)))
        return outcomes


def _servers(kept: tuple) -> str:
    return ', '.join(f'{server.id} (project {server.project_id})'
                     for server, _why in kept)
