"""Leases on a three-node Galera cluster: two managers writing to two
nodes at once, and a node killed in the middle (the fast core of the HA
fault suite; ``tox -e functional-slow`` runs the rest).

On Galera, ``SELECT ... FOR UPDATE`` locks rows on its own node only: two
managers on two nodes both read the same free slots, and one of them
fails at commit with a deadlock error (certification conflict), which
its retry turns into a new decision. The outcome asserted, not just the
absence of a crash: no host holds more slots than it has, every request
is created or refused with a reason, each within ``BOUND`` seconds, and
once the leases started, Placement holds exactly our slots (``lease
reconcile`` finds nothing to do).
"""

import collections
import threading
import time

import fixtures

from placement_ext import exception
from placement_ext.objects import lease as lease_obj
from placement_ext.tests.functional.ha import fixture as ha_fixture
from placement_ext.tests.functional.reservation import base
from placement_ext.vocabulary import states

HOSTS = 4
VCPUS = 4                      # one-vCPU leases: 4 slots a host
CAPACITY = HOSTS * VCPUS
# every request ends (created or refused) within this many seconds, a
# killed Galera node included (HAProxy fails over within ~2 s; retries
# wait at most 2 s each, 20 times)
BOUND = 180


class GaleraTestCase(base.ReservationTestCase):

    def use_database(self):
        self.ha = ha_fixture.use_ha(self)
        self.galera = self.useFixture(ha_fixture.GaleraDatabase(self.ha))
        return self.galera.database

    def setUp(self):
        super().setUp()
        self.db_log = self.useFixture(fixtures.FakeLogger(
            name='placement_ext.db.api'))
        for i in range(HOSTS):
            self.add_compute(f'cn{i}', vcpus=VCPUS)

    def managers(self, urls, **kwargs):
        return [self.manager(self.galera.on(url, **kwargs)) for url in urls]

    def create_concurrently(self, managers, per_manager, during=None):
        """``per_manager`` one-slot lease creates from each manager's own
        threads at once; ``during(created_so_far)`` runs meanwhile.

        :returns: {request name: 'created' | NoCapacity detail | error}
        """
        outcomes = {}
        barrier = threading.Barrier(len(managers) * per_manager)

        def create(manager, name):
            barrier.wait()
            try:
                self.create_lease(manager=manager, name=name, amount=1)
                outcomes[name] = 'created'
            except exception.NoCapacity as exc:
                outcomes[name] = exc
            except Exception as exc:   # noqa: BLE001 - asserted by callers
                outcomes[name] = exc

        threads = [threading.Thread(target=create, args=(m, f'm{i}-{n}'))
                   for i, m in enumerate(managers)
                   for n in range(per_manager)]
        for thread in threads:
            thread.start()
        if during is not None:
            during(outcomes)
        deadline = time.monotonic() + BOUND
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.assertEqual([], [t.name for t in threads if t.is_alive()],
                         f'requests still running after {BOUND} s')
        return outcomes

    def assert_no_overbooking(self, created):
        slots = collections.Counter()
        leases = lease_obj.list_leases(self.db)
        for lease in leases:
            (res,) = lease.reservations
            self.assertEqual(1, sum(res.slots_by_host.values()), lease.name)
            slots.update(res.slots_by_host)
        self.assertEqual(sorted(created), sorted(le.name for le in leases))
        self.assertLessEqual(max(slots.values(), default=0), VCPUS,
                             dict(slots))
        return leases

    def assert_placement_matches(self, managers, leases):
        """Start every lease (both managers' event tasks at once), then
        Placement holds exactly the slots, and reconcile finds nothing."""
        threads = [threading.Thread(target=self.run_events, args=(m,))
                   for m in managers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(BOUND)
        self.run_events()          # what the event tasks left, if anything
        for lease in leases:
            self.assertEqual(states.LEASE_ACTIVE,
                             self.lease(lease.id).status, lease.name)
        held = collections.Counter()
        for lease in leases:
            held.update(lease.reservations[0].slots_by_host)
        for i in range(HOSTS):
            placed = sum(self.reservation_inventory(f'cn{i}').values())
            self.assertEqual(held[f'cn{i}'], placed, f'cn{i}')
        self.assertEqual([], self.res.reconciler.run()['findings'])

    def created_despite_faults(self, outcomes):
        """The requests created: answered so, or whose commit was cut
        off by a fault yet happened (its retry then finds the name taken,
        by its own lease); anything else but a refusal fails."""
        other = self.refusals(outcomes)
        leases = {le.name for le in lease_obj.list_leases(self.db)}
        for name, error in other.items():
            self.assertIn('already has a lease named', error, name)
            self.assertIn(name, leases)
        return [n for n, o in outcomes.items() if o == 'created'] + list(
            other)

    def refusals(self, outcomes):
        """Requests not created: each must be a NoCapacity with its
        reason; anything else is returned (and should be empty)."""
        other = {}
        for name, outcome in outcomes.items():
            if outcome == 'created':
                continue
            if isinstance(outcome, exception.NoCapacity):
                self.assertIn('not enough capacity', outcome.detail)
            else:
                other[name] = repr(outcome)
        return other


class TestTwoNodes(GaleraTestCase):

    def test_two_managers_on_two_nodes_never_overbook(self):
        managers = self.managers(self.ha['galera_urls'][:2])
        outcomes = self.create_concurrently(managers, 20)
        self.assertEqual({}, self.refusals(outcomes))
        created = [n for n, o in outcomes.items() if o == 'created']
        # every slot is taken once: one-slot requests fill the hosts
        self.assertEqual(CAPACITY, len(created))
        leases = self.assert_no_overbooking(created)
        # the two nodes did conflict, and the losers decided again
        self.assertIn('DBDeadlock', self.db_log.output)
        self.assert_placement_matches(managers, leases)


class TestNodeKilled(GaleraTestCase):

    def test_galera_node_killed_during_creates(self):
        # each manager writes through its controller's address: HAProxy
        # sends it to its own node, or to a backup when that one is down
        managers = self.managers(self.ha['controller_db_urls'],
                                 reconnect=True)

        def kill_when_half_done(outcomes):
            deadline = time.monotonic() + BOUND
            while len(outcomes) < 4 and time.monotonic() < deadline:
                time.sleep(0.05)
            # controller 2's own node
            ha_fixture.kill_galera_node(self, 1)

        outcomes = self.create_concurrently(managers, 10,
                                            during=kill_when_half_done)
        created = self.created_despite_faults(outcomes)
        self.assertEqual(min(CAPACITY, 20), len(created))
        leases = self.assert_no_overbooking(created)
        self.assert_placement_matches(managers, leases)

    def run_events_until(self, managers, leases, status, fault):
        """Both managers' event tasks at once, ``fault()`` once the first
        lease reached ``status``; then again (the clock moved past the
        stale bound, as the next periodic runs would) until every lease
        is there."""
        def run(manager):
            try:
                self.run_events(manager)
            except Exception:   # noqa: BLE001, S110 - its node was killed
                pass

        threads = [threading.Thread(target=run, args=(m,))
                   for m in managers]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + BOUND
        while time.monotonic() < deadline and not any(
                lease_obj.get(self.db, le.id).status == status
                for le in leases):
            time.sleep(0.05)
        fault()
        for thread in threads:
            thread.join(BOUND)
        while time.monotonic() < deadline and {
                lease_obj.get(self.db, le.id).status for le in leases} != {
                status}:
            self.clock.advance(seconds=base.SETTINGS.event_stale_after + 1)
            for manager in managers:
                run(manager)
        self.assertEqual({status}, {lease_obj.get(self.db, le.id).status
                                    for le in leases})

    def test_galera_node_killed_during_lease_start_and_end(self):
        managers = self.managers(self.ha['controller_db_urls'],
                                 reconnect=True)
        leases = [self.create_lease(manager=managers[n % 2], name=f'l{n}',
                                    amount=1, hours=1)
                  for n in range(CAPACITY)]
        # the test's reads go to node 2, which is never killed
        self.db = self.galera.on(self.ha['galera_urls'][2])
        s = ha_fixture.settings()
        self.run_events_until(managers, leases, states.LEASE_ACTIVE,
                              lambda: ha_fixture.kill_galera_node(self, 0))
        ha_fixture.restart_galera_node(s, 0)
        self.assert_placement_matches(managers, leases)
        self.clock.advance(hours=1)
        self.run_events_until(managers, leases, states.LEASE_TERMINATED,
                              lambda: ha_fixture.kill_galera_node(self, 1))
        for i in range(HOSTS):
            self.assertEqual({}, self.reservation_inventory(f'cn{i}'))
        self.assertEqual([], self.res.reconciler.run()['findings'])
