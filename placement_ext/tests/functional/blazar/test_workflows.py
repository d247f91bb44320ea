"""Blazar's documented instance-reservation workflow with our plugin,
through python-blazarclient and Nova: the server group that ``lease
show`` names, booting into the reservation with and without the hint
(both limited to ``amount``), an ordinary boot on the reserved hosts,
``allocation list``, and a lease made before our plugin made groups."""

import sqlalchemy as sa

from placement_ext.adapters.blazar import translate
from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.cloud import fixture as cloud_fixture


class TestInstanceWorkflow(base.BlazarTestCase):

    def boot(self, flavor_id, group=None):
        status, host, _server = self.server(
            self.cloud.demo, flavor_id, hints={'group': group} if group
            else None)
        return status, host

    def group(self, group_id):
        """The group as the lease's project sees it, or None."""
        return self.cloud.demo.compute.find_server_group(
            group_id, ignore_missing=True)

    def test_anti_affinity_group_hint_amount_and_ordinary_boot(self):
        lease = self.create_lease(cloud_fixture.unique_name('anti'), 2,
                                  affinity='False')
        res = self.admin.lease.get(lease['id'])['reservations'][0]
        group = self.group(res['server_group_id'])
        self.assertEqual(('reservation:' + res['id'], ['anti-affinity']),
                         (group.name, group.policies or [group.policy]))
        self.lease_status(lease['id'], 'ACTIVE')
        with_hint = self.boot(res['flavor_id'], group.id)
        without = self.boot(res['flavor_id'])
        self.assertEqual(['ACTIVE', 'ACTIVE'], [with_hint[0], without[0]])
        self.assertEqual(set(self.pool), {with_hint[1], without[1]})
        # beyond the amount, with the hint or not; an ordinary flavor
        self.assertEqual('ERROR', self.boot(res['flavor_id'], group.id)[0])
        self.assertEqual('ERROR', self.boot(res['flavor_id'])[0])
        ordinary = self.cloud.boot_server(self.zone, conn=self.cloud.demo)
        self.assertEqual('ERROR', ordinary.status)
        # Blazar's allocation list shows the reservation on both hosts
        held = {a['resource_id']: [r['id'] for r in a['reservations']]
                for a in self.admin.allocation.list('os-hosts')}
        for host in self.pool:
            self.assertIn(res['id'], held[self.blazar_host(host)['id']])
        self.demo.lease.delete(lease['id'])
        self.wait_for(lambda: self.group(group.id) is None, 'group deleted')

    def test_lease_made_before_groups_gets_one_at_its_start(self):
        lease = self.create_lease(cloud_fixture.unique_name('aff'), 2,
                                  days_ahead=1, affinity='True')
        res = self.admin.lease.get(lease['id'])['reservations'][0]
        old = res['server_group_id']
        # as our plugin left it before server groups
        self.cloud.demo.compute.delete_server_group(old)
        self.blazar_sql('UPDATE instance_reservations SET server_group_id '
                        '= NULL WHERE reservation_id = :r', r=res['id'])
        ours = sa.create_engine(translate.database_url(self._blazar_url()))
        self.addCleanup(ours.dispose)
        with ours.begin() as conn:
            conn.execute(sa.text(
                'UPDATE instance_reservations SET server_group_id = NULL '
                'WHERE reservation_id = :r'), {'r': res['id']})
        self.blazar_sql(
            "UPDATE events SET time = UTC_TIMESTAMP() - INTERVAL 1 MINUTE "
            "WHERE lease_id = :l AND event_type = 'start_lease'",
            l=lease['id'])
        self.lease_status(lease['id'], 'ACTIVE')
        res = self.admin.lease.get(lease['id'])['reservations'][0]
        self.assertNotIn(res['server_group_id'], (None, old))
        group = self.group(res['server_group_id'])
        self.assertEqual(['affinity'], group.policies or [group.policy])
        first = self.boot(res['flavor_id'], group.id)
        second = self.boot(res['flavor_id'], group.id)
        self.assertEqual([('ACTIVE', first[1])] * 2, [first, second])
