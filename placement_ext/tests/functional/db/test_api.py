"""``db.api`` transactions, integrity rules, compare-and-swap,
operation ownership claims and stack ownership on MariaDB and
PostgreSQL (the same tests as the SQLite unit tests)."""

import sqlalchemy as sa

from placement_ext.tests.unit.db import test_api as unit
from placement_ext.tests.unit.db import test_limits as limits
from placement_ext.tests.unit.objects import test_operation_owner as owner
from placement_ext.tests.unit.objects import test_operation_stack as stack


class TestDatabaseMySQL(unit.TestDatabase):
    BACKEND = 'mysql'

    def test_writers_read_committed_readers_keep_the_default(self):
        # a writer must see rows committed while it waited for a lock,
        # even after reading something earlier in its transaction
        query = sa.text('SELECT @@tx_isolation')
        with self.db.writer() as session:
            self.assertEqual('READ-COMMITTED', session.scalar(query))
        with self.db.reader() as session:
            self.assertEqual('REPEATABLE-READ', session.scalar(query))


class TestDatabasePostgreSQL(unit.TestDatabase):
    BACKEND = 'postgresql'


class TestCompareAndSwapMySQL(unit.TestCompareAndSwap):
    BACKEND = 'mysql'


class TestCompareAndSwapPostgreSQL(unit.TestCompareAndSwap):
    BACKEND = 'postgresql'


class TestLockRowsMySQL(unit.TestLockRows):
    BACKEND = 'mysql'


class TestLockRowsPostgreSQL(unit.TestLockRows):
    BACKEND = 'postgresql'


class TestOwnershipMySQL(owner.TestOwnership):
    BACKEND = 'mysql'


class TestOwnershipPostgreSQL(owner.TestOwnership):
    BACKEND = 'postgresql'


class TestStackOwnershipMySQL(stack.TestStackOwnership):
    BACKEND = 'mysql'


class TestStackOwnershipPostgreSQL(stack.TestStackOwnership):
    BACKEND = 'postgresql'


class TestLimitsMySQL(limits.TestLimits):
    BACKEND = 'mysql'

    def test_connection_is_utf8mb4_without_a_charset_in_the_url(self):
        self.assertNotIn('charset', self.database.url)
        with self.db.reader() as session:
            self.assertEqual('utf8mb4', session.scalar(
                sa.text('SELECT @@character_set_client')))


class TestLimitsPostgreSQL(limits.TestLimits):
    BACKEND = 'postgresql'
