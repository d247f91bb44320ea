"""Concurrent writers on SQLite, MariaDB and PostgreSQL.

Two threads run the read-check-insert of lease creation on the same host
with one free slot. Each signals when it has read the usage and waits
(up to WAIT seconds) for the other to have read too, so without
serialisation both read "one slot free" before either inserts. With
``lock_computehosts`` (FOR UPDATE; BEGIN IMMEDIATE on SQLite) the second
writer can only read after the first committed, so exactly one takes the
slot and the other sees the host full.
"""

import threading

import sqlalchemy as sa
import testtools

from placement_ext import exception
from placement_ext.db import api
from placement_ext.db import models
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.fixtures import db_records as records

# How long a writer waits for the other to read: long enough for the
# other thread to reach its read when nothing blocks it.
WAIT = 1.0
JOIN_TIMEOUT = 60.0
TOOK = 'took'
FULL = 'full'


def _used_slots(session, host_id: int) -> int:
    table = models.ComputeHostAllocation
    return session.scalar(sa.select(sa.func.count()).select_from(table)
                          .where(table.compute_host_id == host_id))


def run_pair(work) -> list:
    """Run ``work(mine, theirs)`` in two threads; return sorted results.

    ``mine`` / ``theirs`` are Events: a worker sets ``mine`` after its
    read and waits on ``theirs`` before writing.
    """
    events = [threading.Event(), threading.Event()]
    start = threading.Barrier(2)
    results, failures = [], []

    def worker(index):
        try:
            start.wait(JOIN_TIMEOUT)
            results.append(work(events[index], events[1 - index]))
        except Exception as exc:
            failures.append(exc)
            events[index].set()

    threads = [threading.Thread(target=worker, args=(i,)) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_TIMEOUT)
    if failures:
        raise failures[0]
    return sorted(results)


class ConcurrencyChecks:
    BACKEND = 'sqlite'

    def setUp(self):
        super().setUp()
        self.db = db_fixture.use_database(self, self.BACKEND).db
        with self.db.writer() as session:
            host = records.computehost(session, vcpus=2)
            lease_id = records.lease(session).id
            self.reservation_ids = [
                records.instance_reservation(session, lease_id).reservation_id
                for _ in range(3)]
            # one of the two 1-vCPU slots is taken
            records.allocation(session, self.reservation_ids[2], host.id)
            self.host_id = host.id

    def take_slot(self, reservation_id, mine, theirs, lock=True,
                  read_before_lock=False) -> str:
        with self.db.writer() as session:
            if read_before_lock:
                # on MySQL at REPEATABLE READ this would fix the snapshot
                _used_slots(session, self.host_id)
            if lock:
                host = api.lock_computehosts(session, [self.host_id])[0]
            else:
                host = session.get(models.ComputeHost, self.host_id)
            used = _used_slots(session, self.host_id)
            mine.set()
            theirs.wait(WAIT)
            if used >= host.vcpus:
                return FULL
            records.allocation(session, reservation_id, self.host_id)
        return TOOK

    def _race(self, **kwargs) -> list:
        ids = iter(self.reservation_ids)
        return run_pair(
            lambda mine, theirs: self.take_slot(next(ids), mine, theirs,
                                                **kwargs))

    def _used(self) -> int:
        with self.db.reader() as session:
            return _used_slots(session, self.host_id)

    def test_only_one_writer_takes_the_last_slot(self):
        self.assertEqual([FULL, TOOK], self._race())
        self.assertEqual(2, self._used())

    def test_reads_before_the_lock_do_not_hide_the_other_writer(self):
        self.assertEqual([FULL, TOOK], self._race(read_before_lock=True))
        self.assertEqual(2, self._used())

    def test_compare_and_swap_lets_one_of_two_writers_win(self):
        with self.db.reader() as session:
            seen = session.get(models.ComputeHost, self.host_id).generation

        def bump(mine, theirs):
            mine.set()
            theirs.wait(WAIT)
            try:
                with self.db.writer() as session:
                    api.compare_and_swap(session, models.ComputeHost,
                                         self.host_id, seen)
            except exception.ConcurrentUpdate:
                return 'conflict'
            return 'updated'

        self.assertEqual(['conflict', 'updated'], run_pair(bump))


class ServerConcurrencyChecks(ConcurrencyChecks):

    def test_without_the_lock_both_writers_take_the_slot(self):
        # Proves the harness forces the race that lock_computehosts
        # prevents: both writers read one free slot and both insert.
        self.assertEqual([TOOK, TOOK], self._race(lock=False))
        self.assertEqual(3, self._used())


class TestConcurrencySQLite(ConcurrencyChecks, testtools.TestCase):
    BACKEND = 'sqlite'


class TestConcurrencyMySQL(ServerConcurrencyChecks, testtools.TestCase):
    BACKEND = 'mysql'


class TestConcurrencyPostgreSQL(ServerConcurrencyChecks, testtools.TestCase):
    BACKEND = 'postgresql'
