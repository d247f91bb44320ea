"""The free pool's usages in one call, on the real Placement: the same as
reading each host alone, hosts without a free megabyte left out."""

import uuid

from placement_ext.decision import capacity
from placement_ext.drivers.placement import driver as pdriver
from placement_ext.drivers.placement import reservation_reads
from placement_ext.tests.functional.placement import base
from placement_ext.vocabulary import reservation_names as names


class TestPoolUsages(base.PlacementServerTestCase):

    def test_one_call_agrees_with_host_by_host_reads(self):
        reads = reservation_reads.ReservationPlacement(
            pdriver.PlacementDriver(self.client))
        pool, rc = str(uuid.uuid4()), names.resource_class_for(
            str(uuid.uuid4()))
        reads.ensure_resource_class(rc)
        hosts = {}
        for name in ('cn-busy', 'cn-idle', 'cn-full'):
            node = base.create_compute_node(self.client, name,
                                            memory_mb=4096)
            base.set_aggregates(self.client, node, pool)
            child = reads.ensure_reservation_provider(name).uuid
            hosts[name] = (node, child)
        busy, busy_child = hosts['cn-busy']
        base.set_inventory(self.client, busy_child, **{rc: 4})
        base.allocate(self.client, {busy: {'VCPU': 2, 'MEMORY_MB': 1024},
                                    busy_child: {rc: 1}})
        base.allocate(self.client, {hosts['cn-full'][0]: {'MEMORY_MB': 4096}})
        self.client.calls.clear()
        found = reads.pool_usages(pool)
        self.assertEqual(1, sum(self.client.calls.values()))
        self.assertEqual({busy, hosts['cn-idle'][0]}, set(found))
        for node, child in (hosts['cn-busy'], hosts['cn-idle']):
            _generation, alone = reads.host_usage(node, child)
            self.assertEqual(
                ({rc_: capacity.Inventory.from_placement(inv).capacity
                  for rc_, inv in alone.inventories.items()},
                 dict(alone.usages), dict(alone.reservation_usages)),
                (dict(found[node].capacities), dict(found[node].usages),
                 {k: v for k, v in found[node].reservation_usages.items()
                  if v}))
