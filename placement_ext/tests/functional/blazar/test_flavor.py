"""Blazar's flavor-based instance reservation documentation
(``doc/source/cli/flavor-based-instance-reservation.rst`` of Blazar 18)
walked with ``openstack reservation ...`` against the real blazar-api and
blazar-manager with our ``placement_ext.flavor.plugin``: a lease of
``resource_type=flavor:instance,flavor_id=...,amount=...`` starts, its
private flavor ``reservation:<id>`` (the source flavor's sizes and extra
specs) boots on the pool, a ``virtual:instance`` lease over the same
period gets only what is left (no overbooking across the two types), an
update is refused as Blazar 18's manager refuses it, bad input names its
field, and the end leaves nothing."""

import datetime

from demo import blazar_step
from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.blazar import test_plugin
from placement_ext.tests.functional.cloud import fixture as cloud_fixture

RNG = 'hw_rng:allowed'


class TestFlavorReservation(base.BlazarTestCase):

    assert_nothing_left = test_plugin.TestBlazarPlugin.assert_nothing_left

    def setUp(self):
        super().setUp()
        # a public flavor of the project's choosing, with an extra spec
        # that the reserved flavor carries (as devstack's m1.* do)
        admin = self.cloud.admin
        self.source = admin.compute.create_flavor(
            name=cloud_fixture.unique_name('m1'), vcpus=1, ram=512, disk=1,
            is_public=True)
        self.addCleanup(admin.compute.delete_flavor, self.source,
                        ignore_missing=True)
        admin.compute.create_flavor_extra_specs(self.source, {RNG: 'True'})

    def openstack(self, cloud, *args, output=True):
        return blazar_step._openstack(self.addon, self.cloud.clouds_yaml,
                                      cloud, *args, output=output)

    def lease_create(self, reservation, start='now', end=None):
        end = end or (datetime.datetime.utcnow() + datetime.timedelta(
            hours=1)).strftime(base.DATE)
        return self.openstack(
            'demo', 'reservation', 'lease', 'create', '--reservation',
            reservation, '--start-date', start, '--end-date', end,
            cloud_fixture.unique_name('flavor-lease'))

    def test_the_documented_walk(self):
        # 1. hosts in the free pool: the pool of base.BlazarTestCase
        listed = self.openstack('admin', 'reservation', 'host', 'list')
        self.assertLessEqual(set(self.pool), {
            h['hypervisor_hostname'] for h in listed})
        # 2. a lease of two instances of the flavor, from now
        lease = self.lease_create(
            f'resource_type=flavor:instance,flavor_id={self.source.id},'
            f'amount=2')
        self.lease_status(lease['id'], 'ACTIVE')
        shown = self.openstack('demo', 'reservation', 'lease', 'show',
                               lease['id'])
        res, = blazar_step._reservations(shown)
        self.assertEqual(('flavor:instance', 2, 1, 512, res['id']),
                         (res['resource_type'], res['amount'], res['vcpus'],
                          res['memory_mb'], res['flavor_id']))
        self.assertIn(self.source.name, res['resource_properties'])
        # 3. the reservation's flavor, listed for the project, carries
        # the source's extra specs
        flavors = {f['ID']: f['Name'] for f in self.openstack(
            'demo', 'flavor', 'list', '--all')}
        self.assertEqual(f'reservation:{res["id"]}', flavors[res['id']])
        specs = self.cloud.admin.compute.fetch_flavor_extra_specs(
            res['id']).extra_specs
        self.assertEqual('True', specs[RNG])
        status, host, server = self.server(self.cloud.demo,
                                           flavor_id=res['flavor_id'])
        self.assertEqual('ACTIVE', status)
        self.assertIn(host, self.pool)
        self.no_overbooking(lease, res)
        self.bad_input()
        self.update_refused(lease, res)
        # the end, at the end date: the server, flavor, class,
        # inventories and Blazar's allocations are gone
        self.expire(lease['id'])
        self.assert_nothing_left(res, [server])

    def no_overbooking(self, lease, res):
        """4 one-vCPU slots on the two 2-vCPU hosts: 2 are the flavor
        lease's, so a virtual:instance lease of 3 overlapping it is
        refused, one of 2 takes the rest, and a third lease finds none."""
        soon = (datetime.datetime.utcnow() + datetime.timedelta(
            minutes=30)).strftime(base.DATE)
        end = lease['end_date'][:16].replace('T', ' ')
        instance = ('resource_type=virtual:instance,vcpus=1,memory_mb=512,'
                    'disk_gb=1,amount={}')
        why = str(self.assertRaises(RuntimeError, self.lease_create,
                                    instance.format(3), soon, end))
        self.assertIn('not enough capacity', why)
        self.lease_create(instance.format(2), soon, end)
        why = str(self.assertRaises(
            RuntimeError, self.lease_create,
            f'resource_type=flavor:instance,flavor_id={self.source.id},'
            f'amount=1', soon, end))
        self.assertIn('not enough capacity', why)

    def update_refused(self, lease, res):
        """Blazar 18's manager refuses any update of a lease with a
        flavor:instance reservation before a plugin sees it (upstream's
        NotImplemented, which leaves the lease ERROR); its slots stay."""
        why = str(self.assertRaises(
            RuntimeError, self.openstack, 'demo', 'reservation', 'lease',
            'set', '--reservation', f'id={res["id"]},amount=1',
            lease['id'], output=False))
        self.assertIn('not yet supported', why)
        self.assertEqual(2, len(self.blazar_sql(
            'SELECT id FROM computehost_allocations WHERE reservation_id = '
            ':r', r=res['id'])))

    def bad_input(self):
        """A missing or unknown flavor is refused, naming the field."""
        for reservation, words in (
                ('resource_type=flavor:instance,amount=1',
                 'Invalid flavor_id: required'),
                ('resource_type=flavor:instance,flavor_id=no-such,amount=1',
                 "no flavor 'no-such' visible"),
                (f'resource_type=flavor:instance,flavor_id={self.source.id}',
                 'Invalid amount: required')):
            why = str(self.assertRaises(RuntimeError, self.lease_create,
                                        reservation, '2099-01-01 10:00',
                                        '2099-01-01 11:00'))
            self.assertIn(words, why)
