"""A tiny in-memory stand-in for ``blazar.db.api`` (the calls the
adapter makes), so the adapter's tests run without Blazar installed."""

import itertools


class FakeBlazarDB:
    def __init__(self):
        self.hosts = []                 # dicts: id, hypervisor_hostname
        self.instance_reservations = {}
        self.allocations = {}
        self.leases = {}                # id -> dict(status, reservations)
        self.events = {}                # id -> dict(lease_id, type, status)
        self._ids = itertools.count(1)
        self.fail_allocation = None
        self.reservations = []          # dicts: id, lease_id, type, status
        self.extra = {}                 # host id -> extra capabilities

    def add_host(self, name, extra=None, **fields):
        host = {'id': str(next(self._ids)), 'hypervisor_hostname': name,
                **fields}
        self.hosts.append(host)
        self.extra[host['id']] = dict(extra or {})
        return host

    def host_extra_capability_get_all_per_host(self, host_id):
        return [({'capability_value': value}, name)
                for name, value in self.extra.get(host_id, {}).items()]

    def host_list(self):
        return list(self.hosts)

    def host_get(self, host_id):
        return next((h for h in self.hosts if h['id'] == host_id), None)

    def instance_reservation_create(self, values):
        row = dict(values, id=f'ir-{next(self._ids)}')
        self.instance_reservations[row['id']] = row
        return row

    def instance_reservation_get(self, row_id):
        return self.instance_reservations.get(row_id)

    def instance_reservation_update(self, row_id, values):
        self.instance_reservations[row_id].update(values)

    def reservation_get_all_by_values(self, **kwargs):
        return [r for r in self.reservations
                if all(r[k] == v for k, v in kwargs.items())]

    def reservation_get(self, reservation_id):
        listed = next((r for r in self.reservations
                       if r['id'] == reservation_id), None)
        if listed is not None:
            return dict(listed)
        row = next((r for r in self.instance_reservations.values()
                    if r['reservation_id'] == reservation_id), None)
        if row is None:
            return None
        return {'id': reservation_id, 'resource_id': row['id'],
                'lease_id': 'blazar-lease'}

    def add_upstream(self, reservation_id, status, lease_status, slots,
                     **fields):
        """A reservation as Blazar's own instance plugin leaves it:
        ``slots`` are Blazar host ids, one per slot."""
        lease_id = f'lease-{reservation_id}'
        self.leases[lease_id] = {
            'id': lease_id, 'status': lease_status, 'project_id': 'p1',
            'user_id': 'u1', 'start_date': fields.pop('start_date'),
            'end_date': fields.pop('end_date'), 'reservations': []}
        row = self.instance_reservation_create(dict({
            'reservation_id': reservation_id, 'vcpus': 1, 'memory_mb': 512,
            'disk_gb': 1, 'amount': len(slots), 'affinity': None,
            'resource_properties': '', 'flavor_id': reservation_id,
            'server_group_id': None, 'aggregate_id': 7}, **fields))
        self.reservations.append({
            'id': reservation_id, 'lease_id': lease_id,
            'resource_type': 'virtual:instance', 'status': status,
            'resource_id': row['id']})
        for host_id in slots:
            self.host_allocation_create({'compute_host_id': host_id,
                                         'reservation_id': reservation_id})
        return row

    def host_allocation_create(self, values):
        if self.fail_allocation is not None:
            raise self.fail_allocation
        row = dict(values, id=next(self._ids))
        self.allocations[row['id']] = row
        return row

    def host_allocation_get_all_by_values(self, **kwargs):
        return [a for a in self.allocations.values()
                if all(a[k] == v for k, v in kwargs.items())]

    def host_allocation_destroy(self, row_id):
        del self.allocations[row_id]

    def event_get_all_sorted_by_filters(self, sort_key, sort_dir, filters):
        return [e for e in self.events.values()
                if all(e[k] == v for k, v in filters.items())]

    def lease_get(self, lease_id):
        return self.leases.get(lease_id)

    def lease_list(self):
        return list(self.leases.values())

    def lease_update(self, lease_id, values):
        self.leases[lease_id].update(values)

    def event_update(self, event_id, values):
        self.events[event_id].update(values)
