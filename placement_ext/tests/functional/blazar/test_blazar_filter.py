"""The other supported Nova set-up: upstream's BlazarFilter (blazar-nova,
installed in the blazar addon's venv) in place of our ReservationFilter.
Our reserved flavors carry what it checks, so reserved instances boot
(with the server group hint), and ordinary flavors stay off the free
pool."""

import contextlib
import pathlib

from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.cloud import fixture as cloud_fixture
from placement_ext.tests.functional.reservation import test_cloud

LOADER = 'placement_ext.tests.functional.blazar.blazarnova_loader'


class TestBlazarFilter(base.BlazarTestCase):

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
