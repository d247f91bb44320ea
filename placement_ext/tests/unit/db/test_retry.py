"""Deadlock retry around whole transactions (``db.api.retrying``).

A deadlock here is injected: the error oslo.db raises for MySQL's 1213,
which is also how Galera reports a certification conflict at commit.
The retry must redo the whole transaction (its first run's writes are
rolled back, its reads are made again), never one statement alone, and
stay bounded and logged.
"""

import threading
import types

import fixtures
import sqlalchemy as sa
import testtools
from oslo_db import exception as db_exc

from placement_ext import exception
from placement_ext.db import api
from placement_ext.db import models
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.objects import operation as op_obj
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.unit.objects import test_host
from placement_ext.tests.unit.objects import test_lease
from placement_ext.vocabulary import states


def deadlock() -> db_exc.DBDeadlock:
    return db_exc.DBDeadlock(Exception(
        '(1213, "Deadlock found when trying to get lock; try restarting '
        'transaction")'))


def between_tries(test: testtools.TestCase, action) -> None:
    """Run ``action(seconds)`` instead of the retry's sleep (only that
    one: oslo.db's pool also calls time.sleep)."""
    test.useFixture(fixtures.MonkeyPatch(
        'oslo_db.api.time', types.SimpleNamespace(sleep=action)))


class RetryTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.database = db_fixture.use_database(self)
        self.db = self.database.db
        # no waiting between tries in unit tests; 3 retries at most
        self.database.conf.set_override('db_retry_interval', 0, 'database')
        self.database.conf.set_override('db_max_retries', 3, 'database')
        self.logger = self.useFixture(fixtures.FakeLogger(
            name='placement_ext.db.api'))


class TestRetrying(RetryTestCase):

    def _hosts(self) -> list[str]:
        with self.db.reader() as session:
            return list(session.scalars(
                sa.select(models.ComputeHost.hypervisor_hostname)
                .order_by(models.ComputeHost.hypervisor_hostname)))

    def test_the_whole_transaction_is_redone(self):
        runs = []

        def write(name):
            with self.db.writer() as session:
                # what the first run wrote must not survive it
                session.add(models.ComputeHost(
                    hypervisor_hostname=f'{name}-{len(runs)}',
                    service_name=name, availability_zone='AZ',
                    vcpus=1, memory_mb=1, local_gb=1,
                    compute_provider_uuid=f'rp-{len(runs)}'))
                session.flush()
                runs.append(name)
                if len(runs) == 1:
                    raise deadlock()
            return 'done'

        self.assertEqual('done', self.db.retrying(write, 'cn'))
        self.assertEqual(['cn', 'cn'], runs)
        self.assertEqual(['cn-1'], self._hosts())
        self.assertIn('write: transaction failed (DBDeadlock',
                      self.logger.output)

    def test_a_joined_writer_is_not_retried_alone(self):
        inner_runs, outer_runs = [], []

        @api.retry_on_deadlock
        def inner(database):
            inner_runs.append(1)
            with database.writer():
                if len(inner_runs) == 1:
                    raise deadlock()

        def outer():
            outer_runs.append(1)
            with self.db.writer():
                inner(self.db)

        self.db.retrying(outer)
        # the deadlock rolled back the outer transaction: the outer
        # function ran again, the inner one was not retried on its own
        self.assertEqual((2, 2), (len(outer_runs), len(inner_runs)))

    def test_retries_are_bounded(self):
        runs = []

        def write():
            runs.append(1)
            with self.db.writer():
                raise deadlock()

        self.assertRaises(db_exc.DBDeadlock, self.db.retrying, write)
        self.assertEqual(4, len(runs))      # 1 + db_max_retries

    def test_other_errors_are_not_retried(self):
        runs = []

        def write():
            runs.append(1)
            raise exception.Conflict(reason='no')

        self.assertRaises(exception.Conflict, self.db.retrying, write)
        self.assertEqual(1, len(runs))

    def test_lost_connection_is_retried_with_use_db_reconnect(self):
        runs = []

        def write():
            runs.append(1)
            if len(runs) == 1:
                raise db_exc.DBConnectionError('gone')

        self.assertRaises(db_exc.DBConnectionError, self.db.retrying, write)
        self.database.conf.set_override('use_db_reconnect', True, 'database')
        runs.clear()
        self.db.retrying(write)
        self.assertEqual(2, len(runs))

    def test_node_out_of_primary_component_is_a_lost_connection(self):
        # a Galera node cut off from the majority fails the commit so
        runs = []
        out = sa.exc.OperationalError(
            'COMMIT', {}, Exception(
                1180, 'Error while appending streaming replication '
                'fragment(provider status: Not connected to Primary '
                'Component)'))

        def write():
            runs.append(1)
            if len(runs) == 1:
                raise out

        self.database.conf.set_override('use_db_reconnect', True, 'database')
        self.db.retrying(write)
        self.assertEqual(2, len(runs))
        self.assertIn('DBConnectionError', self.logger.output)

    def test_new_connection_to_a_node_out_of_the_cluster_is_retried(self):
        # the driver's own error, from the connection's set-up
        runs = []

        class DriverError(Exception):
            pass

        def write():
            runs.append(1)
            if len(runs) == 1:
                raise DriverError(1047, 'WSREP has not yet prepared node '
                                  'for application use')

        self.database.conf.set_override('use_db_reconnect', True, 'database')
        self.db.retrying(write)
        self.assertEqual(2, len(runs))

    def test_other_operational_errors_are_not_retried(self):
        runs = []

        def write():
            runs.append(1)
            raise sa.exc.OperationalError('SELECT', {}, Exception(1054))

        self.database.conf.set_override('use_db_reconnect', True, 'database')
        self.assertRaises(sa.exc.OperationalError, self.db.retrying, write)
        self.assertEqual(1, len(runs))


class TestObjectWriters(RetryTestCase):

    def test_lease_create_is_redone_whole(self):
        cn1 = test_host.make_host(self.db, 'cn1')
        create = lease_obj._add_reservation
        calls = []

        def fail_once(session, lease_id, res):
            create(session, lease_id, res)
            calls.append(lease_id)
            if len(calls) == 1:
                raise deadlock()

        self.useFixture(fixtures.MonkeyPatch(
            'placement_ext.objects.lease._add_reservation', fail_once))
        res = lease_obj.NewReservation(vcpus=1, memory_mb=1, disk_gb=1,
                                       amount=2, affinity=None,
                                       slots={cn1.id: 2})
        lease_id = lease_obj.create(
            self.db, name='l', user_id='u', project_id='p',
            start_date=test_lease.T0, end_date=test_lease.T0 +
            test_lease.HOUR, reservations=[res])
        self.assertEqual(2, len(calls))
        self.assertEqual([lease_id], [le.id for le in
                                      lease_obj.list_leases(self.db)])
        self.assertEqual(2, host_obj.slot_count(self.db, cn1.id))

    def test_lease_create_writes_the_hosts_it_takes(self):
        """On Galera, only written rows conflict at commit."""
        cn1 = test_host.make_host(self.db, 'cn1')
        test_host.make_host(self.db, 'cn2')
        res = lease_obj.NewReservation(vcpus=1, memory_mb=1, disk_gb=1,
                                       amount=1, affinity=None,
                                       slots={cn1.id: 1})
        lease_obj.create(self.db, name='l', user_id='u', project_id='p',
                         start_date=test_lease.T0,
                         end_date=test_lease.T0 + test_lease.HOUR,
                         reservations=[res])
        with self.db.reader() as session:
            touched = {row.hypervisor_hostname: row.updated_at is not None
                       for row in session.scalars(
                           sa.select(models.ComputeHost))}
        self.assertEqual({'cn1': True, 'cn2': False}, touched)
        # its generation stays: it tells changes of the host itself
        self.assertEqual(cn1.generation, host_obj.get(self.db, cn1.id)
                         .generation)

    def test_operation_compare_and_swap_is_rechecked(self):
        """A retried compare-and-swap re-reads: it loses to the writer
        that won (as the loser of a Galera certification does)."""
        op = op_obj.create(self.db, vnf_instance_id='v',
                           operation='INSTANTIATE', params={}, placement={})
        swap = api.compare_and_swap
        calls = []

        def other_node_won(session, model, row_id, seen, **values):
            calls.append(seen)
            if len(calls) == 1:
                raise deadlock()
            return swap(session, model, row_id, seen, **values)

        def winner_commits(_seconds):
            # the winner on "another node" committed first
            with self.db.writer() as session:
                swap(session, models.Operation, op.id, op.generation)

        self.useFixture(fixtures.MonkeyPatch(
            'placement_ext.db.api.compare_and_swap', other_node_won))
        between_tries(self, winner_commits)
        self.assertRaises(exception.ConcurrentUpdate, op_obj.set_state,
                          self.db, op, states.STATE_PROCESSING)
        self.assertEqual(2, len(calls))


class TestSlotDecision(RetryTestCase):
    """A lease decision (lock, read holdings, pick, insert) redone after a
    deadlock sees what the winner wrote meanwhile."""

    def setUp(self):
        super().setUp()
        self.cn1 = test_host.make_host(self.db, 'cn1')

    def reserve(self, name: str, hook=None) -> str:
        """Take one of cn1's two slots if the holdings leave one free."""
        def decide():
            with self.db.writer():
                host_obj.lock_reservable(self.db)
                held = lease_obj.holdings(self.db, [self.cn1.id])
                if sum(h.slots for h in held) >= 2:
                    raise exception.NoCapacity(reason='cn1 is full')
                if hook:
                    hook()
                res = lease_obj.NewReservation(
                    vcpus=1, memory_mb=1, disk_gb=1, amount=1,
                    affinity=None, slots={self.cn1.id: 1})
                return lease_obj.create(
                    self.db, name=name, user_id='u', project_id='p',
                    start_date=test_lease.T0,
                    end_date=test_lease.T0 + test_lease.HOUR,
                    reservations=[res])
        return self.db.retrying(decide)

    def test_the_loser_re_decides(self):
        self.reserve('first')
        winner = []
        decided = []

        def lose_once():
            decided.append(1)
            if len(decided) > 1:
                return
            # the other writer (another Galera node) takes the last slot
            # and commits first (here: while we wait to retry)
            rolled_back = threading.Event()

            def win():
                rolled_back.wait()
                try:
                    winner.append(self.reserve('winner'))
                except Exception as exc:   # noqa: BLE001 - asserted below
                    winner.append(exc)

            thread = threading.Thread(target=win)
            thread.start()
            between_tries(self, lambda _s: (rolled_back.set(),
                                            thread.join()))
            raise deadlock()

        exc = self.assertRaises(exception.NoCapacity, self.reserve, 'loser',
                                lose_once)
        self.assertIn('cn1 is full', str(exc))
        self.assertEqual([str], [type(w) for w in winner], winner)
        self.assertEqual(1, len(decided))   # the retry found no free slot
        self.assertEqual(2, host_obj.slot_count(self.db, self.cn1.id))
