"""Report, and optionally repair, drift between our database and
Placement / Nova (``placement-ext lease reconcile [--repair]``).

Reads the database (hosts, leases) and the services (every
``blazar_*`` provider and its inventories, every ``CUSTOM_RESERVATION_*``
class, every ``reservation:*`` flavor, the free pool), lets
:func:`placement_ext.decision.reservation_drift.find_drift` list the
differences, and with ``repair`` runs each repair, in order, recording
what worked and what did not.

Leases owned by a running or failed event are left to the event task.
A lease whose generation changed while we looked (an event claimed or
finished it) is skipped too: what we saw of it may be outdated.
"""

from oslo_log import log as logging

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.decision import reservation_drift as drift
from placement_ext.drivers import protocols
from placement_ext.drivers.placement import reservation_reads
from placement_ext.manager import hosts
from placement_ext.manager import leases
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.objects import unadopted
from placement_ext.vocabulary import reservation_names as names
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)


class Reconciler:
    def __init__(self, database: db_api.Database,
                 nova: protocols.ReservationCompute,
                 placement: reservation_reads.ReservationPlacement,
                 hosts: hosts.Hosts, leases: leases.Leases) -> None:
        self.database = database
        self.nova = nova
        self.placement = placement
        self.hosts = hosts
        self.leases = leases

    def run(self, repair: bool = False) -> dict:
        hosts = host_obj.list_hosts(self.database)
        leases = {lease.id: lease
                  for lease in lease_obj.list_leases(self.database)}
        observed = self._observe()
        changed = _changed_leases(leases, self.database)
        records = [_record(lease, res, lease.id in changed)
                   for lease in leases.values()
                   for res in lease.reservations]
        findings = drift.find_drift(
            [_host_record(h) for h in hosts], records, observed)
        owners = _owners(leases.values())
        report = []
        for finding in findings:
            entry = finding.to_dict()
            if repair:
                entry.update(self._repair(finding, observed, leases,
                                          owners))
            report.append(entry)
        report += self._server_groups(leases.values(), changed, repair)
        report += self._unadopted()
        return {'repair': repair, 'findings': report,
                'checked': {'hosts': len(hosts), 'leases': len(leases),
                            'providers': len(observed.providers),
                            'classes': len(observed.classes),
                            'flavors': len(observed.flavors)}}

    def _server_groups(self, leases: object, changed: set[str],
                       repair: bool) -> list[dict]:
        """Started reservations with an affinity policy whose server
        group is missing or of another policy (a lease made before
        server groups, a group deleted by hand); repaired by making it.
        """
        report = []
        for lease in leases:
            if lease.id in changed:
                continue
            for res in lease.reservations:
                policy = names.server_group_policy(res.affinity)
                if policy is None or \
                        res.status not in lease_obj.STARTED_RESERVATIONS:
                    continue
                group = self.nova.server_group(res.server_group_id) \
                    if res.server_group_id else None
                if group is not None and group.policy == policy:
                    continue
                entry = {'kind': 'server group missing', 'subject': res.id,
                         'detail': f'reservation {res.id} (affinity '
                                   f'{res.affinity}) has no {policy} server '
                                   f'group', 'repair': 'ensure_server_group'}
                if repair:
                    try:
                        self.leases.ensure_server_group(lease, res)
                        entry['repaired'] = True
                    except exception.PlacementExtError as exc:
                        entry.update(repaired=False, error=exc.detail)
                report.append(entry)
        return report

    def _unadopted(self) -> list[dict]:
        """Reservations of the host service's own plugin (Blazar's) that
        could not be adopted: not ours, so nothing repairs them here."""
        return [{'kind': 'not adopted', 'subject': row.reservation_id,
                 'detail': f'lease {row.lease_id}, reservation '
                           f'{row.reservation_id}: {row.reason}',
                 'repair': None}
                for row in unadopted.list_all(self.database)]

    def _observe(self) -> drift.Observed:
        providers = {names.hostname_for_provider(p.name): p.uuid
                     for p in self.placement.reservation_providers()}
        inventories = {}
        for hostname, uuid in providers.items():
            _gen, inventory = self.placement.inventories(uuid)
            inventories[hostname] = {
                rc: inv['total'] for rc, inv in inventory.items()
                if names.reservation_for_resource_class(rc)}
        return drift.Observed(
            providers=providers, inventories=inventories,
            classes=frozenset(self.placement.reservation_classes()),
            flavors=frozenset(self.nova.flavors_named(names.FLAVOR_PREFIX)),
            pool=self.nova.aggregate_hosts(self.hosts.freepool))

    def _repair(self, finding: drift.Finding, observed: drift.Observed,
                leases: dict, owners: dict) -> dict:
        owner = next((owners[arg] for arg in finding.args
                      if arg in owners), None)
        if owner and owner in _changed_leases(
                {owner: leases[owner]}, self.database):
            return {'repaired': False,
                    'error': f'lease {owner} changed meanwhile; run '
                             f'reconcile again'}
        try:
            self.REPAIRS[finding.repair](self, observed, leases,
                                         *finding.args)
        except exception.PlacementExtError as exc:
            LOG.warning('Reconcile: %(kind)s %(subject)s not repaired: '
                        '%(error)s', {'kind': finding.kind,
                                      'subject': finding.subject,
                                      'error': exc.detail})
            return {'repaired': False, 'error': exc.detail}
        LOG.info('Reconcile: %(kind)s %(subject)s repaired (%(repair)s)',
                 {'kind': finding.kind, 'subject': finding.subject,
                  'repair': finding.repair})
        return {'repaired': True}

    # -- repairs: drift.REPAIRS, run through REPAIRS below -------------------

    def _create_provider(self, observed: drift.Observed, leases: dict,
                         hostname: str) -> None:
        host = host_obj.find(self.database, hostname)
        self.hosts.reservation_provider(host, refresh=True)

    def _provider(self, observed: drift.Observed, hostname: str) -> str:
        uuid = observed.providers.get(hostname)
        if uuid is None:  # created by an earlier repair of this run
            host = host_obj.find(self.database, hostname)
            uuid = self.hosts.reservation_provider(host)
        return uuid

    def _delete_inventory(self, observed: drift.Observed, leases: dict,
                          hostname: str, resource_class: str) -> None:
        self.placement.delete_inventory(
            self._provider(observed, hostname), resource_class)

    def _set_inventory(self, observed: drift.Observed, leases: dict,
                       hostname: str, resource_class: str,
                       total: int) -> None:
        self.placement.set_inventory(self._provider(observed, hostname),
                                     resource_class, total)

    def _delete_class(self, observed: drift.Observed, leases: dict,
                      resource_class: str) -> None:
        self.placement.delete_resource_class(resource_class)

    def _create_class(self, observed: drift.Observed, leases: dict,
                      resource_class: str) -> None:
        self.placement.ensure_resource_class(resource_class)

    def _delete_flavor(self, observed: drift.Observed, leases: dict,
                       flavor_id: str) -> None:
        self.nova.delete_flavor(flavor_id)

    def _create_flavor(self, observed: drift.Observed, leases: dict,
                       reservation_id: str) -> None:
        for lease in leases.values():
            for res in lease.reservations:
                if res.id == reservation_id:
                    self.leases.provision(lease, res)
                    return

    def _add_to_pool(self, observed: drift.Observed, leases: dict,
                     service_host: str) -> None:
        self.hosts.join_free_pool(service_host)

    def _remove_from_pool(self, observed: drift.Observed, leases: dict,
                          service_host: str) -> None:
        self.nova.remove_host_from_aggregate(self.hosts.freepool,
                                             service_host)

    # each name of drift.REPAIRS -> the method that runs it
    REPAIRS = {
        'create_provider': _create_provider,
        'delete_inventory': _delete_inventory,
        'set_inventory': _set_inventory,
        'delete_class': _delete_class,
        'create_class': _create_class,
        'delete_flavor': _delete_flavor,
        'create_flavor': _create_flavor,
        'add_to_pool': _add_to_pool,
        'remove_from_pool': _remove_from_pool,
    }


def _host_record(host: host_obj.Host) -> drift.HostRecord:
    return drift.HostRecord(host.hypervisor_hostname, host.service_name,
                            host.reservation_provider_uuid, host.reservable)


def _record(lease: lease_obj.Lease, res: lease_obj.Reservation,
            changed: bool) -> drift.ReservationRecord:
    running = any(e.status == states.EVENT_IN_PROGRESS for e in lease.events)
    if res.status == states.RESERVATION_DELETED:
        state = drift.ENDED
    elif changed or running or res.status == states.RESERVATION_ERROR:
        state = drift.BUSY
    elif res.status == states.RESERVATION_ACTIVE:
        state = drift.ACTIVE
    else:
        state = drift.PENDING
    return drift.ReservationRecord(res.id, res.resource_class, res.flavor_id,
                                   state, res.slots_by_host)


def _owners(leases: object) -> dict[str, str]:
    """Resource class, flavor id and reservation id -> lease id."""
    owners = {}
    for lease in leases:
        for res in lease.reservations:
            for key in (res.resource_class, res.flavor_id, res.id):
                owners[key] = lease.id
    return owners


def _changed_leases(leases: dict, database: db_api.Database) -> set[str]:
    """Leases whose generation is no longer the one read (or gone)."""
    now = lease_obj.generations(database, list(leases))
    return {lease_id for lease_id, lease in leases.items()
            if now.get(lease_id) != lease.generation}
