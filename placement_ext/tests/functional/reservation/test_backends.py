"""The lease workflows on MariaDB and PostgreSQL (the other modules run
them on SQLite): the same tests, another BACKEND."""

from placement_ext.tests.functional.reservation import test_convergence
from placement_ext.tests.functional.reservation import test_leases


class TestCreateMySQL(test_leases.TestCreate):
    BACKEND = 'mysql'


class TestStartEndMySQL(test_leases.TestStartEnd):
    BACKEND = 'mysql'


class TestTakeOverMySQL(test_convergence.TestTakeOver):
    BACKEND = 'mysql'


class TestCreatePostgreSQL(test_leases.TestCreate):
    BACKEND = 'postgresql'


class TestStartEndPostgreSQL(test_leases.TestStartEnd):
    BACKEND = 'postgresql'


class TestTakeOverPostgreSQL(test_convergence.TestTakeOver):
    BACKEND = 'postgresql'
