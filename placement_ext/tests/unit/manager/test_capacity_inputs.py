"""From Placement's answers to the capacity decision's inputs."""

import datetime
import types

import testtools

from placement_ext.decision import capacity
from placement_ext.drivers.placement import candidates as ac
from placement_ext.drivers.placement import reservation_reads as rp
from placement_ext.manager import capacity_inputs as inputs
from placement_ext.objects import lease as lease_obj

RC = 'CUSTOM_RESERVATION_4D17D41A_830D_47B2_91C7_4F9FC0AE611E'
T0 = datetime.datetime(2030, 1, 1)


def summary(uuid, root, **resources):
    return ac.ProviderSummary(
        uuid, {rc: ac.Usage(*pair) for rc, pair in resources.items()},
        frozenset(), None if uuid == root else root, root)


class TestHostUsage(testtools.TestCase):

    def test_from_summaries_sums_the_tree_and_reads_reserved_usage(self):
        usage = rp._from_summaries([
            summary('cn', 'cn', VCPU=(8, 3), MEMORY_MB=(4096, 1024),
                    DISK_GB=(100, 2)),
            summary('numa', 'cn', VCPU=(4, 1)),
            summary('blazar', 'cn', **{RC: (4, 2)}),
        ])
        self.assertEqual('candidates', usage.source)
        self.assertEqual({'VCPU': 4, 'MEMORY_MB': 1024, 'DISK_GB': 2},
                         usage.usages)
        self.assertEqual({RC: 2}, usage.reservation_usages)
        host = capacity.Host.from_placement('cn', usage.inventories,
                                            usage.usages)
        self.assertEqual((12, 4096, 100),
                         tuple(i.capacity for i in host.inventories()))

    def test_decision_inputs(self):
        host = types.SimpleNamespace(id=7, hypervisor_hostname='cn1')
        usage = rp.HostUsage({'VCPU': {'total': 4}}, {'VCPU': 3}, {RC: 2},
                             'inventories')
        (decision_host,) = inputs.decision_hosts([host], {7: usage})
        self.assertEqual(('cn1', 4, 3), (decision_host.name,
                                         decision_host.vcpus.total,
                                         decision_host.usage.vcpus))
        held = [lease_obj.Holding('r1', 7, T0, T0, 1, 512, 1, 3, RC),
                lease_obj.Holding('r2', 8, T0, T0, 1, 512, 1, 1, RC)]
        (slots,) = inputs.reserved_slots(held, {7: host}, {7: usage})
        self.assertEqual(('r1', 'cn1', 3, 2),
                         (slots.reservation_id, slots.host, slots.slots,
                          slots.running))
        self.assertEqual({'VCPU': 1, 'MEMORY_MB': 0, 'DISK_GB': 2},
                         inputs.flavor_of(capacity.Resources(1, 0, 2)))
