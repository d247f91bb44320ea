"""Swapping Blazar's own plugins for ours under live leases, on the real
blazar-api, blazar-manager, Nova and Placement: what
``doc/source/blazar.rst`` ("Installing on a live Blazar") tells the
operator to do.

Leases are made by Blazar's ``physical.host.plugin`` and
``virtual.instance.plugin``; blazar-manager is restarted with ours
(``[manager] plugins``, as in blazar.conf); each lease then keeps working
under ours: boots into the active one (with and without the group hint)
stay limited to its ``amount``, the pending one is updated and starts,
new leases of ours cannot take the adopted slots, and the end removes
exactly what upstream's end removes (servers, aggregate, flavor, server
group, ``CUSTOM_RESERVATION_*`` class and inventories).

``test_adopted_leases`` (no server booted) runs in the regular pass;
the boots and the host-lease case restart the manager again and are slow
ones (``slow_cases.txt``).
Blazar 15 (the oldest release): ``tox -e functional-blazar15 --
test_swap_in``.
"""

from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.blazar import host_leases
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.vocabulary import reservation_names as names

UPSTREAM = 'physical.host.plugin,virtual.instance.plugin'


def name(what):
    return cloud_fixture.unique_name(what)


class TestSwapIn(base.BlazarTestCase):

    def upstream_leases(self, boot=False):
        """Blazar's own plugins make an active lease (two anti-affinity
        slots, a server group and, with ``boot``, a server booted into
        it with the group hint) and a pending one (one slot tomorrow);
        then blazar-manager runs ours. :returns: the two leases, the
        active one's reservation, the server or None."""
        first = None
        with self.manager_plugins(UPSTREAM):
            active = self.create_lease(name('up-active'), 2,
                                       affinity='False')
            pending = self.create_lease(name('up-pending'), 1, days_ahead=1)
            self.lease_status(active['id'], 'ACTIVE')
            res = self.admin.lease.get(active['id'])['reservations'][0]
            if boot:
                first = self.server(self.cloud.demo, res['flavor_id'],
                                    hints=self.group(res))
                self.assertEqual('ACTIVE', first[0])
        self.assertIsNotNone(res['aggregate_id'])
        return active, pending, res, first

    @staticmethod
    def group(res):
        return {'group': res['server_group_id']}

    def test_adopted_leases(self):
        """The regular pass's case: no server booted."""
        active, pending, res, _first = self.upstream_leases()
        # two of the pool's four one-vCPU slots are the adopted lease's
        exc = self.refused(name('ours-3'), 3)
        self.assertIn('the 2 hosts have 2 in total', str(exc))
        # the pending one is updated, then starts with its new amount
        pres = pending['reservations'][0]
        self.demo.lease.update(pending['id'], reservations=[
            {'id': pres['id'], 'amount': 2}])
        self.assertEqual(2, self.admin.lease.get(
            pending['id'])['reservations'][0]['amount'])
        self.move_event(pending['id'], 'start_lease')
        self.lease_status(pending['id'], 'ACTIVE')
        self.assertEqual(2, self.inventory(pres['id']))
        # the adopted active one ends: upstream's resources go, no other
        self.expire(active['id'])
        self.assert_upstreams_gone(res, [])
        self.assertEqual(2, self.inventory(pres['id']))
        self.assertIsNotNone(self.cloud.admin.compute.find_flavor(
            pres['id'], ignore_missing=True))

    def test_boots_into_an_adopted_lease(self):
        demo = self.cloud.demo
        active, _pending, res, first = self.upstream_leases(boot=True)
        # without the hint, then with it: limited to amount
        second = self.server(demo, res['flavor_id'])
        self.assertEqual('ACTIVE', second[0])
        self.assertNotEqual(first[1], second[1])       # anti-affinity
        self.assertEqual('ERROR', self.server(demo, res['flavor_id'],
                                              hints=self.group(res))[0])
        self.expire(active['id'])
        self.assertFalse(self.admin.lease.get(active['id'])['degraded'])
        self.assert_upstreams_gone(res, [first[2], second[2]])

    def inventory(self, reservation_id):
        """Slots of the reservation's class on the pool's providers."""
        rc = names.resource_class_for(reservation_id)
        total = 0
        for host in self.pool:
            provider = self.res.placement.reservation_provider(host)
            _gen, inventories = self.res.placement.inventories(provider.uuid)
            total += inventories.get(rc, {}).get('total', 0)
        return total

    def assert_upstreams_gone(self, res, servers):
        compute = self.cloud.admin.compute
        for server in servers:
            self.wait_for(lambda s=server: self.gone(s), 'server deleted')
        self.assertIsNone(compute.find_flavor(res['flavor_id'],
                                              ignore_missing=True))
        self.assertIsNone(compute.find_server_group(
            res['server_group_id'], ignore_missing=True, all_projects=True))
        self.assertNotIn(str(res['aggregate_id']),
                         [str(a.id) for a in compute.aggregates()])
        rc = names.resource_class_for(res['id'])
        self.assertNotIn(rc, self.res.placement.reservation_classes())
        self.assertEqual(0, self.inventory(res['id']))
        freepool = compute.find_aggregate('freepool', ignore_missing=False)
        self.assertLessEqual(set(self.pool), set(
            compute.get_aggregate(freepool).hosts or ()))


class TestSwapInHostLease(host_leases.HostLeaseTestCase):

    def test_host_lease(self):
        with self.manager_plugins(UPSTREAM):
            lease, reservation = self.host_lease(self.demo)
            mine = {'reservation': reservation}
            zone = f'blazar_{reservation}'
            before = self.server(self.cloud.demo, zone=zone, hints=mine)
            self.assertEqual(('ACTIVE', self.host), before[:2])
        # ours: the leased host takes no instance slot, still takes the
        # project's servers, and the end deletes them
        exc = self.refused(name('ours'), 1)
        self.assertIn('not enough capacity', str(exc))
        after = self.server(self.cloud.demo, zone=zone, hints=mine)
        self.assertEqual(('ACTIVE', self.host), after[:2])
        self.expire(lease['id'])
        for server in (before[2], after[2]):
            self.wait_for(lambda s=server: self.gone(s), 'server deleted')
        self.assertFalse(self.admin.lease.get(lease['id'])['degraded'])
