"""Transactions, integrity rules and compare-and-swap of ``db.api``.

``TestDatabase`` runs on SQLite here; the functional suite runs the same
tests on MariaDB and PostgreSQL by subclassing it with another BACKEND.
"""

import os
import socket
import sqlite3
import threading

import fixtures
import sqlalchemy as sa
import testtools
from oslo_config import fixture as config_fixture
from oslo_db import exception as db_exc

from placement_ext import conf as pe_conf
from placement_ext import errors
from placement_ext import exception
from placement_ext.db import api
from placement_ext.db import models
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import db_records as records
from placement_ext.vocabulary import states


def count(session, model, *where) -> int:
    stmt = sa.select(sa.func.count()).select_from(model).where(*where)
    return session.scalar(stmt)


class DbTestCase(testtools.TestCase):
    BACKEND = 'sqlite'

    def setUp(self):
        super().setUp()
        self.database = db_fixture.use_database(self, self.BACKEND)
        self.db = self.database.db


class TestDatabase(DbTestCase):

    def test_writer_commits(self):
        with self.db.writer() as session:
            records.computehost(session)
        with self.db.reader() as session:
            self.assertEqual(1, count(session, models.ComputeHost))

    def test_writer_rolls_back_on_error(self):
        with testtools.ExpectedException(ValueError):
            with self.db.writer() as session:
                records.computehost(session)
                raise ValueError('boom')
        with self.db.reader() as session:
            self.assertEqual(0, count(session, models.ComputeHost))

    def test_nested_writer_joins_the_outer_transaction(self):
        with testtools.ExpectedException(ValueError):
            with self.db.writer() as outer:
                with self.db.writer() as inner:
                    self.assertIs(outer, inner)
                    records.computehost(inner)
                # the inner block's end did not commit
                raise ValueError('boom')
        with self.db.reader() as session:
            self.assertEqual(0, count(session, models.ComputeHost))

    def test_reader_inside_writer_joins_it(self):
        with self.db.writer() as outer:
            records.computehost(outer)
            with self.db.reader() as inner:
                self.assertIs(outer, inner)
                self.assertEqual(1, count(inner, models.ComputeHost))

    def test_writer_inside_reader_is_refused(self):
        with self.db.reader():
            self.assertRaises(RuntimeError, self.db.writer().__enter__)

    def test_threads_get_their_own_sessions(self):
        seen = []
        with self.db.reader() as session:
            def other_thread():
                with self.db.reader() as theirs:
                    seen.append(theirs)
            thread = threading.Thread(target=other_thread)
            thread.start()
            thread.join()
        self.assertEqual(1, len(seen))
        self.assertIsNot(session, seen[0])

    def test_foreign_keys_are_enforced(self):
        with testtools.ExpectedException(db_exc.DBReferenceError):
            with self.db.writer() as session:
                host = records.computehost(session)
                records.allocation(session, 'no-such-reservation', host.id)

    def test_deleting_a_lease_deletes_its_rows(self):
        with self.db.writer() as session:
            host = records.computehost(session)
            lease = records.lease(session)
            detail = records.instance_reservation(session, lease.id)
            records.allocation(session, detail.reservation_id, host.id)
            records.allocation(session, detail.reservation_id, host.id)
            session.add(models.Event(lease_id=lease.id,
                                     event_type=states.EVENT_START_LEASE,
                                     time=records.START))
        with self.db.writer() as session:
            session.execute(sa.delete(models.Lease))
        with self.db.reader() as session:
            for model in (models.Reservation, models.InstanceReservation,
                          models.ComputeHostAllocation, models.Event):
                self.assertEqual(0, count(session, model), model)
            self.assertEqual(1, count(session, models.ComputeHost))

    def test_host_with_allocations_cannot_be_deleted(self):
        with self.db.writer() as session:
            host = records.computehost(session)
            detail = records.instance_reservation(
                session, records.lease(session).id)
            records.allocation(session, detail.reservation_id, host.id)
        with testtools.ExpectedException(db_exc.DBReferenceError):
            with self.db.writer() as session:
                session.execute(sa.delete(models.ComputeHost))

    def test_lease_names_are_unique_per_project(self):
        with self.db.writer() as session:
            records.lease(session, name='web', project_id='p1')
            records.lease(session, name='web', project_id='p2')
        with testtools.ExpectedException(db_exc.DBDuplicateEntry):
            with self.db.writer() as session:
                records.lease(session, name='web', project_id='p1')

    def test_allocations_repeat_per_slot(self):
        with self.db.writer() as session:
            host = records.computehost(session)
            detail = records.instance_reservation(
                session, records.lease(session).id, amount=3)
            for _ in range(3):
                records.allocation(session, detail.reservation_id, host.id)
        with self.db.reader() as session:
            self.assertEqual(3, count(session, models.ComputeHostAllocation))

    def test_affinity_keeps_none_true_and_false_apart(self):
        with self.db.writer() as session:
            lease_id = records.lease(session).id
            for affinity in (None, True, False):
                records.instance_reservation(session, lease_id,
                                             affinity=affinity)
        with self.db.reader() as session:
            column = models.InstanceReservation.affinity
            self.assertEqual(1, count(session, models.InstanceReservation,
                                      column.is_(None)))
            self.assertEqual(1, count(session, models.InstanceReservation,
                                      column.is_(True)))
            self.assertEqual(1, count(session, models.InstanceReservation,
                                      column.is_(False)))

    def test_json_none_is_sql_null_and_dicts_round_trip(self):
        error = {'code': errors.INTERNAL, 'title': 'Oops', 'detail': 'x'}
        with self.db.writer() as session:
            first = records.operation(session).id
            second = records.operation(session, error=error,
                                       placement={'VDU1-0': 'az-1'}).id
        with self.db.reader() as session:
            null_error = models.Operation.error.is_(None)
            self.assertEqual(1, count(session, models.Operation, null_error))
            row = session.get(models.Operation, second)
            self.assertEqual(error, row.error)
            self.assertEqual({'VDU1-0': 'az-1'}, row.placement)
            self.assertEqual({}, session.get(models.Operation, first).params)

    def test_check_constraints_refuse_bad_values(self):
        # Callers validate input first (InvalidInput); these constraints
        # are the last line of defence, and backends report them
        # differently: SQLite as DBError, PostgreSQL as DBConstraintError,
        # MariaDB as a raw OperationalError (code 4025).
        self.useFixture(fixtures.FakeLogger(name='oslo_db'))
        bad_rows = [
            lambda s: records.operation(s, state='BOGUS'),
            lambda s: records.operation(s, operation='TERMINATE'),
            lambda s: records.computehost(s, vcpus=-1),
            lambda s: records.lease(s, end_date=records.START),
            lambda s: records.instance_reservation(
                s, records.lease(s).id, amount=0),
        ]
        for add in bad_rows:
            def write(add=add):
                with self.db.writer() as session:
                    add(session)
            self.assertRaises((db_exc.DBError, sa.exc.DBAPIError), write)

    def test_timestamps_are_set(self):
        with self.db.writer() as session:
            host_id = records.computehost(session).id
        with self.db.writer() as session:
            host = session.get(models.ComputeHost, host_id)
            self.assertIsNotNone(host.created_at)
            self.assertIsNone(host.updated_at)
            host.vcpus = 8
        with self.db.reader() as session:
            host = session.get(models.ComputeHost, host_id)
            self.assertIsNotNone(host.updated_at)
            self.assertGreaterEqual(host.updated_at, host.created_at)


class TestCompareAndSwap(DbTestCase):

    def setUp(self):
        super().setUp()
        with self.db.writer() as session:
            self.host_id = records.computehost(session, vcpus=4).id

    def _host(self) -> models.ComputeHost:
        with self.db.reader() as session:
            return session.get(models.ComputeHost, self.host_id)

    def test_bumps_generation_and_sets_values(self):
        with self.db.writer() as session:
            new = api.compare_and_swap(session, models.ComputeHost,
                                       self.host_id, 0, vcpus=8)
        self.assertEqual(1, new)
        host = self._host()
        self.assertEqual((1, 8), (host.generation, host.vcpus))

    def test_stale_generation_is_a_concurrent_update(self):
        with self.db.writer() as session:
            api.compare_and_swap(session, models.ComputeHost,
                                 self.host_id, 0)
        # a second writer that also read generation 0
        with self.db.writer() as session:
            exc = self.assertRaises(
                exception.ConcurrentUpdate, api.compare_and_swap, session,
                models.ComputeHost, self.host_id, 0, vcpus=99)
        self.assertEqual(errors.CONCURRENT_UPDATE, exc.code)
        self.assertIn('computehosts', exc.detail)
        host = self._host()
        self.assertEqual((1, 4), (host.generation, host.vcpus))

    def test_missing_row_is_a_concurrent_update(self):
        with self.db.writer() as session:
            self.assertRaises(exception.ConcurrentUpdate,
                              api.compare_and_swap, session,
                              models.ComputeHost, self.host_id + 1, 0)

    def test_objects_loaded_in_the_session_follow(self):
        with self.db.writer() as session:
            host = session.get(models.ComputeHost, self.host_id)
            api.compare_and_swap(session, models.ComputeHost,
                                 self.host_id, host.generation, vcpus=2)
            self.assertEqual((1, 2), (host.generation, host.vcpus))

    def test_works_on_uuid_keys(self):
        with self.db.writer() as session:
            lease_id = records.lease(session).id
            api.compare_and_swap(session, models.Lease, lease_id, 0,
                                 status=states.LEASE_ACTIVE)
        with self.db.reader() as session:
            lease = session.get(models.Lease, lease_id)
        self.assertEqual((1, states.LEASE_ACTIVE),
                         (lease.generation, lease.status))


class TestLockRows(DbTestCase):

    def test_needs_a_writer(self):
        with self.db.reader() as session:
            self.assertRaises(RuntimeError, api.lock_computehosts,
                              session, [1])

    def test_returns_rows_in_id_order_without_missing_ids(self):
        with self.db.writer() as session:
            ids = [records.computehost(session).id for _ in range(3)]
        with self.db.writer() as session:
            hosts = api.lock_computehosts(
                session, [ids[2], ids[0], ids[2], 10_000])
            self.assertEqual([ids[0], ids[2]], [h.id for h in hosts])

    def test_inside_a_reader_nested_in_a_writer(self):
        with self.db.writer() as session:
            host_id = records.computehost(session).id
            with self.db.reader() as inner:
                self.assertEqual(
                    [host_id],
                    [h.id for h in api.lock_computehosts(inner, [host_id])])


class TestSQLite(DbTestCase):
    """SQLite specifics: pragmas and BEGIN IMMEDIATE for writers."""

    def _path(self) -> str:
        return sa.make_url(self.database.url).database

    def _other_writer_blocked(self) -> bool:
        other = sqlite3.connect(self._path(), timeout=0,
                                isolation_level=None)
        try:
            other.execute('BEGIN IMMEDIATE')
        except sqlite3.OperationalError as exc:
            self.assertIn('locked', str(exc))
            return True
        finally:
            other.close()
        return False

    def test_writer_holds_the_write_lock_from_its_first_read(self):
        with self.db.writer() as session:
            count(session, models.ComputeHost)
            self.assertTrue(self._other_writer_blocked())
        self.assertFalse(self._other_writer_blocked())

    def test_reader_does_not_take_the_write_lock(self):
        with self.db.reader() as session:
            count(session, models.ComputeHost)
            self.assertFalse(self._other_writer_blocked())

    def test_foreign_keys_pragma_is_on(self):
        for transaction in (self.db.reader, self.db.writer):
            with transaction() as session:
                self.assertEqual(
                    1, session.execute(sa.text('PRAGMA foreign_keys'))
                    .scalar())

    def test_backend(self):
        self.assertEqual('sqlite', self.db.backend)


class TestDefaultConnection(testtools.TestCase):

    def test_creates_state_path_for_the_embedded_database(self):
        state_path = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'new', 'state')
        conf = pe_conf.new_conf([], default_config_files=[])
        self.useFixture(config_fixture.Config(conf)).config(
            state_path=state_path)
        self.assertEqual(f'sqlite:///{state_path}/placement_ext.sqlite',
                         conf.database.connection)
        db = api.Database(conf)
        self.addCleanup(db.dispose)
        with db.writer() as session:
            session.execute(sa.text('CREATE TABLE t (x INTEGER)'))
        self.assertTrue(
            os.path.exists(os.path.join(state_path, 'placement_ext.sqlite')))


class TestUnreachableServer(testtools.TestCase):

    def test_error_names_the_retry_bound_and_hides_the_password(self):
        conf = self.useFixture(config_fixture.Config(pe_conf.new_conf([])))
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            port = sock.getsockname()[1]
        conf.config(connection=f'mysql+pymysql://root:s3cret@127.0.0.1:'
                               f'{port}/x', max_retries=1, retry_interval=0,
                    group='database')
        exc = self.assertRaises(exception.ServiceUnavailable, api.Database,
                                conf.conf)
        self.assertIn('after 2 attempt(s) 0 s apart ([database] '
                      'max_retries, retry_interval)', exc.detail)
        self.assertIn("Can't connect", exc.detail)
        self.assertNotIn('s3cret', exc.detail)
