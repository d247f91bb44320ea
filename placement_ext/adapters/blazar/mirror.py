"""Our reservations mirrored into Blazar's rows.

Blazar shows and enforces an instance reservation through its own
tables: ``instance_reservations`` (size, amount, affinity, flavor and
server group) and ``computehost_allocations`` (one row per slot, by
Blazar's computehost id). These writes follow ours; nothing here
decides.
"""

from placement_ext.adapters.blazar import translate
from placement_ext.objects import lease as lease_obj


class BlazarRows:
    """Blazar's rows of our reservations.

    :param blazar_db: blazar's ``blazar.db.api`` module (a stand-in in
        unit tests).
    """

    def __init__(self, blazar_db: object) -> None:
        self.blazar_db = blazar_db

    def record(self, res: lease_obj.Reservation, values: dict,
               blazar_ids: dict[str, object]) -> str:
        """Blazar's rows of a new reservation; its
        ``instance_reservations`` id."""
        row = self.blazar_db.instance_reservation_create({
            'reservation_id': res.id, 'vcpus': res.vcpus,
            'memory_mb': res.memory_mb, 'disk_gb': res.disk_gb,
            'amount': res.amount, 'affinity': res.affinity,
            'resource_properties': values.get('resource_properties') or '',
            'flavor_id': res.flavor_id,
            'server_group_id': res.server_group_id})
        self.write_allocations(res, blazar_ids)
        return row['id']

    def write_allocations(self, res: lease_obj.Reservation,
                          blazar_ids: dict[str, object]) -> None:
        """One allocation row per slot, replacing the old ones."""
        self.drop_allocations(res.id)
        for host_id in translate.slots_per_blazar_host(res.slots_by_host,
                                                       blazar_ids):
            self.blazar_db.host_allocation_create(
                {'compute_host_id': host_id, 'reservation_id': res.id})

    def drop_allocations(self, reservation_id: str) -> None:
        for alloc in self.blazar_db.host_allocation_get_all_by_values(
                reservation_id=reservation_id):
            self.blazar_db.host_allocation_destroy(alloc['id'])

    def update(self, res: lease_obj.Reservation,
               blazar_ids: dict[str, object],
               properties: str | None = None) -> None:
        """A changed reservation (update, heal): its size, amount,
        affinity, group and slots, and its ``resource_properties`` when
        given."""
        row = self.blazar_db.reservation_get(res.id)
        values = {
            'vcpus': res.vcpus, 'memory_mb': res.memory_mb,
            'disk_gb': res.disk_gb, 'amount': res.amount,
            'affinity': res.affinity, 'server_group_id': res.server_group_id}
        if properties is not None:
            values['resource_properties'] = properties
        self.blazar_db.instance_reservation_update(row['resource_id'], values)
        self.write_allocations(res, blazar_ids)

    def properties(self, reservation_id: str) -> str:
        """The reservation's ``resource_properties`` as Blazar keeps
        them ('' for none, or no row)."""
        row = self.blazar_db.reservation_get(reservation_id)
        instance = row and self.blazar_db.instance_reservation_get(
            row['resource_id'])
        return (instance or {}).get('resource_properties') or ''

    def aggregate(self, resource_id: str) -> object | None:
        """The per-reservation aggregate of an ``instance_reservations``
        row (only Blazar's own plugin makes one), or None."""
        row = self.blazar_db.instance_reservation_get(resource_id)
        return (row or {}).get('aggregate_id')

    def forget_aggregate(self, resource_id: str) -> None:
        """The aggregate is deleted (the reservation ended)."""
        self.blazar_db.instance_reservation_update(resource_id,
                                                   {'aggregate_id': None})

    def update_group(self, res: lease_obj.Reservation) -> None:
        row = self.blazar_db.reservation_get(res.id)
        self.blazar_db.instance_reservation_update(
            row['resource_id'], {'server_group_id': res.server_group_id})

    def mark_degraded(self, reservation_id: str) -> None:
        """The Blazar lease of the reservation kept servers it did not
        admit at its end."""
        blazar_lease = self.blazar_db.reservation_get(
            reservation_id)['lease_id']
        self.blazar_db.lease_update(blazar_lease, {'degraded': True})
