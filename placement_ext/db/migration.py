"""Schema migrations: alembic driven through placement_ext's configuration.

``placement-ext-manage db sync|upgrade|downgrade|version`` and the test
fixtures call these functions; ``alembic/env.py`` runs the scripts on the
connection given here, so the engine (SQLite pragmas, MySQL sql_mode,
pool settings) is the one the services use.
"""

import contextlib
import fcntl
import os
from collections.abc import Callable
from collections.abc import Iterator

import sqlalchemy as sa
from alembic import command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script
from oslo_config import cfg

from placement_ext import exception
from placement_ext.db import api

ALEMBIC_INI = os.path.join(os.path.dirname(__file__), 'alembic.ini')


def alembic_cfg() -> alembic_config.Config:
    """The alembic Config for placement_ext's scripts."""
    return alembic_config.Config(ALEMBIC_INI)


def head() -> str:
    """The newest revision the code knows."""
    heads = alembic_script.ScriptDirectory.from_config(
        alembic_cfg()).get_heads()
    if len(heads) != 1:
        # A linear history is the rule; two heads are a merge mistake.
        raise RuntimeError(f'Expected one migration head, found {heads}')
    return heads[0]


@contextlib.contextmanager
def migration_connection(engine: sa.Engine) -> Iterator[sa.Connection]:
    """A connection inside one transaction, for running migrations.

    On SQLite, foreign key enforcement is switched off meanwhile: batch
    migrations copy, drop and rename tables, and dropping a parent table
    with enforcement on would cascade-delete its children's rows. The
    constraints are checked with ``PRAGMA foreign_key_check`` before the
    commit instead. SQLite runs DDL transactionally, so a failing
    migration leaves the schema untouched.
    """
    sqlite = engine.dialect.name == 'sqlite'
    with engine.connect() as connection:
        if sqlite:
            _set_sqlite_foreign_keys(connection, False)
        try:
            with connection.begin():
                yield connection
                if sqlite:
                    _check_sqlite_foreign_keys(connection)
        finally:
            if sqlite:
                _set_sqlite_foreign_keys(connection, True)


def _set_sqlite_foreign_keys(connection: sa.Connection, on: bool) -> None:
    # The pragma is a no-op inside a transaction, so bypass SQLAlchemy's
    # autobegin and run it on the DBAPI connection (in autocommit mode).
    state = 'ON' if on else 'OFF'
    connection.connection.driver_connection.execute(
        f'PRAGMA foreign_keys = {state}')


def _check_sqlite_foreign_keys(connection: sa.Connection) -> None:
    broken = connection.exec_driver_sql('PRAGMA foreign_key_check').all()
    if broken:
        raise RuntimeError(
            f'Migration left rows with dangling foreign keys: {broken}')


def _run(conf: cfg.ConfigOpts, database: api.Database | None,
         action: Callable[[alembic_config.Config], None]) -> None:
    owned = database is None
    database = database or api.Database(conf)
    try:
        config = alembic_cfg()
        with _sqlite_schema_lock(database), \
                migration_connection(database.engine) as connection:
            config.attributes['connection'] = connection
            action(config)
    finally:
        if owned:
            database.dispose()


def upgrade(conf: cfg.ConfigOpts, revision: str = 'head', *,
            database: api.Database | None = None) -> None:
    """Upgrade the schema of ``[database] connection`` to ``revision``.

    :param database: reuse this Database's engine (for example an
        in-memory SQLite one) instead of building one from ``conf``.
    :raises alembic.util.CommandError: for an unknown revision.
    :raises oslo_db.exception.DBError: when the database fails.
    """
    _run(conf, database, lambda config: command.upgrade(config, revision))


def downgrade(conf: cfg.ConfigOpts, revision: str, *,
              database: api.Database | None = None) -> None:
    """Downgrade the schema to ``revision`` (``base`` drops everything)."""
    _run(conf, database, lambda config: command.downgrade(config, revision))


def version(conf: cfg.ConfigOpts, *,
            database: api.Database | None = None) -> str | None:
    """The current revision, or None if the schema was never created."""
    owned = database is None
    database = database or api.Database(conf, create=False)
    try:
        with database.engine.connect() as connection:
            context = alembic_migration.MigrationContext.configure(connection)
            return context.get_current_revision()
    finally:
        if owned:
            database.dispose()


def ensure_current(conf: cfg.ConfigOpts, database: api.Database) -> None:
    """Make sure a service starts on the current schema.

    The embedded SQLite database is upgraded in place, so a newcomer needs
    no set-up step. A server database is the operator's: a service refuses
    to start on a stale schema rather than migrate it behind their back.

    :raises exception.ServiceUnavailable: the schema is not at head.
    """
    if database.backend == 'sqlite':
        upgrade(conf, database=database)
        return
    current, wanted = version(conf, database=database), head()
    if current != wanted:
        raise exception.ServiceUnavailable(
            service='database',
            reason=f'schema is at {current or "nothing"}, this release '
                   f'needs {wanted}: run "placement-ext-manage db sync"')


@contextlib.contextmanager
def _sqlite_schema_lock(database: api.Database) -> Iterator[None]:
    """One process at a time changes the schema of a SQLite file.

    A conductor and a manager started together on a new file would both
    migrate it, and SQLite answers the second "database is locked" at
    once (two deferred transactions both wanting to write) instead of
    making it wait. A lock file beside the database serialises them (and
    ``placement-ext-manage db``); the second then finds the schema
    current. Server databases need none: only the operator migrates them.
    """
    path = database.engine.url.database
    if database.backend != 'sqlite' or not path or path == ':memory:':
        yield
        return
    with open(f'{path}.schema-lock', 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
