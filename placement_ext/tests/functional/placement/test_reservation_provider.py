"""Reservation providers, classes and inventories on the real Placement.

Blazar's placement-api spec: a compute node provider shaped like Nova's,
its child ``blazar_<host>``, one ``CUSTOM_RESERVATION_<UUID>`` class per
reservation, and that class's inventory on the child.
"""

import threading
import uuid

from testtools import content

from placement_ext import exception
from placement_ext.drivers.placement import client as pclient
from placement_ext.drivers.placement import reservation
from placement_ext.tests.functional.placement import base
from placement_ext.vocabulary import reservation_names as names

HOST = 'compute-1'


def _class():
    return names.resource_class_for(str(uuid.uuid4()))


class InterloperAdapter:
    """The real Adapter, plus one write by someone else at a chosen time.

    After the first read of a provider's inventories it runs
    ``interlope()`` (a real write through another client), so our write
    that follows carries a stale generation: a conflict on demand.
    """

    def __init__(self, real, interlope):
        self.real = real
        self.interlope = interlope

    def request(self, url, method, **kwargs):
        resp = self.real.request(url, method, **kwargs)
        if self.interlope and method == 'GET' and \
                url.endswith('/inventories'):
            interlope, self.interlope = self.interlope, None
            interlope()
        return resp

    def get_endpoint(self):
        return self.real.get_endpoint()


class TestReservationProvider(base.PlacementServerTestCase):

    def setUp(self):
        super().setUp()
        self.host_rp = base.create_compute_node(self.client, HOST)
        self.providers = reservation.ReservationProviders(
            self.client, max_wait=0.05)

    def test_compute_node_by_name(self):
        self.assertEqual(self.host_rp,
                         self.providers.compute_node(HOST).uuid)
        err = self.assertRaises(exception.NotFound,
                                self.providers.compute_node, 'nowhere')
        self.assertEqual('nowhere', err.kwargs['id'])

    def test_ensure_creates_a_child_once(self):
        child = self.providers.ensure_reservation_provider(HOST)
        self.assertEqual('blazar_' + HOST, child.name)
        self.assertEqual(self.host_rp, child.parent_provider_uuid)
        self.assertEqual(self.host_rp, child.root_provider_uuid)
        again = self.providers.ensure_reservation_provider(HOST)
        self.assertEqual(child.uuid, again.uuid)
        self.assertEqual(child, self.providers.reservation_provider(HOST))

    def test_ensure_by_racing_callers_makes_one_provider(self):
        found, barrier = [], threading.Barrier(4)

        def ensure():
            providers = reservation.ReservationProviders(
                self.server.client())
            barrier.wait()
            found.append(providers.ensure_reservation_provider(HOST).uuid)
        threads = [threading.Thread(target=ensure) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(4, len(found))
        self.assertEqual(1, len(set(found)))

    def test_same_name_under_another_parent_is_a_conflict(self):
        other = base.create_compute_node(self.client, 'compute-2')
        base.create_provider(self.client, 'blazar_' + HOST, parent=other)
        err = self.assertRaises(exception.Conflict,
                                self.providers.ensure_reservation_provider,
                                HOST)
        self.assertIn(other, str(err))

    def test_ensure_on_unknown_host(self):
        self.assertRaises(exception.NotFound,
                          self.providers.ensure_reservation_provider,
                          'compute-9')

    def test_resource_class_lifecycle_is_idempotent(self):
        rc = _class()
        self.providers.ensure_resource_class(rc)
        self.providers.ensure_resource_class(rc)
        child = self.providers.ensure_reservation_provider(HOST)
        self.providers.set_inventory(child.uuid, rc, 2)
        err = self.assertRaises(exception.Conflict,
                                self.providers.delete_resource_class, rc)
        self.assertIn(rc, str(err))
        self.providers.delete_inventory(child.uuid, rc)
        self.providers.delete_resource_class(rc)
        self.providers.delete_resource_class(rc)

    def test_inventories_of_other_classes_are_kept(self):
        child = self.providers.ensure_reservation_provider(HOST)
        first, second = _class(), _class()
        for rc in (first, second):
            self.providers.ensure_resource_class(rc)
        self.providers.set_inventory(child.uuid, first, 3)
        self.providers.set_inventory(child.uuid, second, 1)
        self.providers.set_inventory(child.uuid, first, 4)
        generation, inventories = self.providers.inventories(child.uuid)
        self.assertEqual({first: 4, second: 1},
                         {rc: inv['total']
                          for rc, inv in inventories.items()})
        self.assertEqual(1, inventories[first]['max_unit'])
        self.assertEqual(3, generation)
        self.providers.delete_inventory(child.uuid, first)
        self.providers.delete_inventory(child.uuid, first)
        self.assertEqual([second],
                         list(self.providers.inventories(child.uuid)[1]))

    def test_stale_generation_is_retried_without_losing_a_write(self):
        child = self.providers.ensure_reservation_provider(HOST)
        ours, theirs = _class(), _class()
        for rc in (ours, theirs):
            self.providers.ensure_resource_class(rc)
        other = reservation.ReservationProviders(self.server.client())
        client = pclient.PlacementClient(InterloperAdapter(
            self.server.adapter(),
            lambda: other.set_inventory(child.uuid, theirs, 5)))
        racing = reservation.ReservationProviders(client, max_wait=0.05)
        racing.set_inventory(child.uuid, ours, 2)
        self.assertEqual(1, racing.conflicts)
        self.assertEqual(
            {'GET /resource_providers/{uuid}/inventories': 2,
             'PUT /resource_providers/{uuid}/inventories': 2},
            {k: v for k, v in client.calls.items() if 'inventories' in k})
        inventories = self.providers.inventories(child.uuid)[1]
        self.assertEqual({ours: 2, theirs: 5},
                         {rc: inv['total']
                          for rc, inv in inventories.items()})

    def test_concurrent_writers_all_land(self):
        child = self.providers.ensure_reservation_provider(HOST)
        classes = [_class() for _ in range(6)]
        for rc in classes:
            self.providers.ensure_resource_class(rc)
        barrier, errors, writers = threading.Barrier(6), [], []

        def write(rc, total):
            providers = reservation.ReservationProviders(
                self.server.client(), max_attempts=20, max_wait=0.1)
            writers.append(providers)
            barrier.wait()
            try:
                providers.set_inventory(child.uuid, rc, total)
            except Exception as exc:  # reported below, not swallowed
                errors.append(exc)
        threads = [threading.Thread(target=write, args=(rc, n + 1))
                   for n, rc in enumerate(classes)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual([], errors)
        inventories = self.providers.inventories(child.uuid)[1]
        self.assertEqual({rc: n + 1 for n, rc in enumerate(classes)},
                         {rc: inv['total']
                          for rc, inv in inventories.items()})
        self.addDetail('conflicts', content.text_content(
            str(sum(w.conflicts for w in writers))))

    def test_allocations_block_deletes(self):
        child = self.providers.ensure_reservation_provider(HOST)
        rc = _class()
        self.providers.ensure_resource_class(rc)
        self.providers.set_inventory(child.uuid, rc, 2)
        consumer = base.allocate(self.client, {child.uuid: {rc: 1}})
        self.assertEqual({rc: 1}, self.providers.usages(child.uuid))
        self.assertEqual({consumer: {rc: 1}},
                         self.providers.allocations(child.uuid))
        err = self.assertRaises(exception.Conflict,
                                self.providers.delete_inventory,
                                child.uuid, rc)
        self.assertEqual('placement.inventory.inuse', err.placement_code)
        for refused in (self.providers.delete_reservation_provider,
                        self.providers.empty_reservation_provider):
            err = self.assertRaises(exception.Conflict, refused, HOST)
            self.assertIn('still has allocations', str(err))
        self.client.request('DELETE', f'/allocations/{consumer}',
                            what='setup', microversion=base.V, ok=(204,))
        self.assertEqual({rc: 0}, self.providers.usages(child.uuid))
        self.assertEqual(child.uuid, self.providers.empty_reservation_provider(
            HOST).uuid)
        self.assertEqual({}, self.providers.inventories(child.uuid)[1])
        self.providers.delete_reservation_provider(HOST)
        self.providers.delete_reservation_provider(HOST)
        self.assertIsNone(self.providers.reservation_provider(HOST))
        self.assertEqual(self.host_rp,
                         self.providers.compute_node(HOST).uuid)

    def test_delete_when_never_created(self):
        self.assertIsNone(self.providers.empty_reservation_provider(HOST))
        self.providers.delete_reservation_provider(HOST)
