"""Blazar's documented instance-reservation workflow with our plugin,
through python-blazarclient and Nova: the server group that ``lease
show`` names, booting into the reservation with and without the hint
(both limited to ``amount``), an ordinary boot on the reserved hosts,
``allocation list``, and a lease made before our plugin made groups.
Also the other supported Nova set-up: upstream's BlazarFilter
(blazar-nova, installed in the blazar addon's venv) in place of our
ReservationFilter; our reserved flavors carry what it checks."""

import contextlib
import pathlib

import sqlalchemy as sa

from placement_ext.adapters.blazar import translate
from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.reservation import test_cloud

LOADER = 'placement_ext.tests.functional.blazar.blazarnova_loader'


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

    def test_reserved_instances_boot_ordinary_flavor_refused(self):
        lease = self.create_lease(cloud_fixture.unique_name('bf'), 2,
                                  affinity='False')
        res = self.admin.lease.get(lease['id'])['reservations'][0]
        hint = {'group': res['server_group_id']}
        with self.blazar_filter():
            self.lease_status(lease['id'], 'ACTIVE')
            booted = [self.server(self.cloud.demo, res['flavor_id'],
                                  hints=hint)[:2] for _ in range(2)]
            self.assertEqual({'ACTIVE'}, {status for status, _h in booted})
            self.assertEqual(set(self.pool), {host for _s, host in booted})
            self.assertEqual('ERROR', self.server(
                self.cloud.demo, zone=self.zone)[0])

    @contextlib.contextmanager
    def blazar_filter(self):
        """nova-scheduler with BlazarFilter instead of ours."""
        conf = self._scheduler_conf()
        original = conf.read_text()
        package = next(pathlib.Path(self.addon['venv']).glob(
            'lib/python*/site-packages/blazarnova'))
        lines = []
        for line in original.splitlines():
            if line.startswith('enabled_filters'):
                lines.append(f'available_filters = {LOADER}.BlazarFilter')
                line = line.replace('ReservationFilter', 'BlazarFilter')
            lines.append(line)
        conf.write_text('\n'.join(lines) + '\n[placement_ext_test]\n'
                        f'blazarnova_dir = {package}\n')
        try:
            self._restart_scheduler()
            yield
        finally:
            conf.write_text(original)
            self._restart_scheduler()

    def _scheduler_conf(self):
        etc = pathlib.Path(self.cloud_base(), 'etc', 'nova')
        return next(path for path in sorted(etc.glob('extra-*.conf'))
                    if test_cloud.FILTER in path.read_text())

    def _restart_scheduler(self):
        result = cloud_fixture.run_minicloud('restart', 'nova-scheduler')
        self.assertEqual(0, result.returncode, result.stderr)
