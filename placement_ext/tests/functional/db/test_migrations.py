"""Migration walk and model/migration sync on MariaDB and PostgreSQL.

Each test gets a fresh, uniquely named database that is dropped after it.
"""

import testtools

from placement_ext.tests.unit.db import test_migrations as unit


class TestMigrationsMySQL(unit.MigrationChecks, testtools.TestCase):
    BACKEND = 'mysql'


class TestMigrationsPostgreSQL(unit.MigrationChecks, testtools.TestCase):
    BACKEND = 'postgresql'
