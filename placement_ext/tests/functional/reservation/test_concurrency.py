"""Two managers creating leases at the same time never double-book a slot.

Each manager has its own database engine (its own connections) and its
own Placement client, as two manager processes would; they race on the
same hosts from two threads. The database serialises their decisions
(row locks on MariaDB, BEGIN IMMEDIATE on SQLite), so the slots granted
never exceed the capacity, and every refusal is a clean NoCapacity.
"""

import collections
import threading
import time

import fixtures

from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.functional.reservation import base

LEASES_PER_MANAGER = 4
AMOUNT = 3       # two leases fit (3 + 3 of the 8 slots); a third needs 3
CAPACITY = 8     # two hosts of 4 vCPU, one-vCPU instances
GRANTED = 2


class TestTwoManagers(base.ReservationTestCase):

    def setUp(self):
        super().setUp()
        self.add_compute('cn1')
        self.add_compute('cn2')
        # Widen the window between reading the slots held and inserting
        # new ones, so that without the lock both managers would read the
        # same free slots (they do: remove the lock and this test fails).
        holdings = lease_obj.holdings

        def slow_holdings(*args, **kwargs):
            found = holdings(*args, **kwargs)
            time.sleep(0.1)
            return found

        self.useFixture(fixtures.MonkeyPatch(
            'placement_ext.objects.lease.holdings', slow_holdings))

    def _race(self):
        managers = []
        for _ in range(2):
            database = db_api.Database(self.database.conf)
            self.addCleanup(database.dispose)
            managers.append(self.manager(database))
        barrier = threading.Barrier(2)
        results = collections.Counter()
        errors = []

        def create_leases(index, manager):
            barrier.wait()
            for n in range(LEASES_PER_MANAGER):
                try:
                    self.create_lease(manager=manager, name=f'm{index}-{n}',
                                      amount=AMOUNT)
                    results['created'] += 1
                except exception.NoCapacity:
                    results['refused'] += 1
                except exception.Conflict as exc:
                    errors.append(exc.detail)
                except Exception as exc:   # noqa: BLE001 - reported below
                    errors.append(repr(exc))

        threads = [threading.Thread(target=create_leases, args=(i, m))
                   for i, m in enumerate(managers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return results, errors

    def test_no_slot_is_taken_twice(self):
        results, errors = self._race()
        self.assertEqual([], errors)
        leases = lease_obj.list_leases(self.db)
        slots = collections.Counter()
        for lease in leases:
            for host, count in lease.reservations[0].slots_by_host.items():
                slots[host] += count
        self.assertEqual(GRANTED, results['created'])
        self.assertEqual(2 * LEASES_PER_MANAGER - GRANTED,
                         results['refused'])
        # without the lock both managers would put 3 slots on the same
        # empty host (best fit), 6 on a host of 4
        self.assertEqual({'cn1': AMOUNT, 'cn2': AMOUNT}, dict(slots))
        self.assertEqual(GRANTED, len(leases))
        # and Placement holds exactly what the leases hold, once started
        self.run_events()
        total = sum(sum(self.reservation_inventory(h).values())
                    for h in ('cn1', 'cn2'))
        self.assertEqual(GRANTED * AMOUNT, total)


class TestTwoManagersMySQL(TestTwoManagers):
    BACKEND = 'mysql'


class TestTwoManagersPostgreSQL(TestTwoManagers):
    BACKEND = 'postgresql'
