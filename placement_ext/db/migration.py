"""Schema migrations: alembic driven through placement_ext's configuration.

``placement-ext-manage db ...`` and the test fixtures call these
functions; ``alembic/env.py`` runs the scripts on the connection given
here, so the engine (SQLite pragmas, MySQL sql_mode, pool settings) is
the one the services use.

Rolling upgrades split the history as OpenStack's services do (Neutron's
and Keystone's alembic branches): up to ``SPLIT`` one line that both
share, then two branches. ``expand`` only adds (tables, columns,
indexes, wider constraints) and runs while the old services still run;
the online data migrations (``ONLINE_MIGRATIONS``) fill what the new code
reads while both run; ``contract`` removes what only the old code read
and runs once every live service runs the new code (``contract()``
refuses otherwise). ``upgrade`` (``db sync``) does all at once.

Over 400 lines as one module on purpose: it is the one place that
knows the branches, their order and the checks between them.
"""

import contextlib
import fcntl
import functools
import os
from collections.abc import Callable
from collections.abc import Iterator

import sqlalchemy as sa
from alembic import command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script
from alembic import util as alembic_util
from oslo_config import cfg

from placement_ext import exception
from placement_ext.db import api

ALEMBIC_INI = os.path.join(os.path.dirname(__file__), 'alembic.ini')


def alembic_cfg() -> alembic_config.Config:
    """The alembic Config for placement_ext's scripts."""
    return alembic_config.Config(ALEMBIC_INI)


EXPAND = 'expand'
CONTRACT = 'contract'
BRANCHES = (EXPAND, CONTRACT)
# the last revision before the history split into the two branches
SPLIT = 'c4d9e1f7a2b6'


@functools.cache
def _script() -> alembic_script.ScriptDirectory:
    """The scripts, read once per process (reading imports every one)."""
    return alembic_script.ScriptDirectory.from_config(alembic_cfg())


def heads() -> dict[str, str]:
    """The newest revision of each branch the code knows."""
    script = _script()
    return {branch: script.get_revision(f'{branch}@head').revision
            for branch in BRANCHES}


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


def upgrade(conf: cfg.ConfigOpts, revision: str = 'heads', *,
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


def current(conf: cfg.ConfigOpts, *,
            database: api.Database | None = None) -> tuple[str, ...]:
    """The revisions the database is at (one per branch applied; none
    if the schema was never created)."""
    owned = database is None
    database = database or api.Database(conf, create=False)
    try:
        with database.engine.connect() as connection:
            context = alembic_migration.MigrationContext.configure(connection)
            return tuple(sorted(context.get_current_heads()))
    finally:
        if owned:
            database.dispose()


def version(conf: cfg.ConfigOpts, *,
            database: api.Database | None = None) -> str | None:
    """``expand REV contract REV`` (``None`` for a branch not run yet),
    the revision itself before the split, or None if the schema was
    never created."""
    revisions = current(conf, database=database)
    if not revisions:
        return None
    state = branch_state(revisions)
    if all(row['state'] == 'missing' for row in state.values()):
        return ' '.join(revisions)
    return ' '.join(f'{branch} {row["current"] or "None"}'
                    for branch, row in state.items())


def branch_state(revisions: tuple[str, ...]) -> dict[str, dict]:
    """Where each branch of a database at ``revisions`` stands for this
    code: ``{'expand': {'current': REV or None, 'head': REV, 'state':
    STATE}, 'contract': ...}``. STATE is ``current`` (at this code's
    head), ``behind`` (this code's revisions remain to run), ``newer``
    (a newer release moved the branch past this code: its revision is
    unknown here) or ``missing`` (never run).

    Only the newest revisions are stored (a contract revision that
    depends on an expand one stands for both), so the state of a branch
    is its newest revision among the stored ones and what they need; a
    revision this code does not know belongs to a branch whose known
    revision is gone.
    """
    script = _script()
    applied: set[str] = set()
    unknown = []
    for revision in revisions:
        try:
            script.get_revision(revision)
        except alembic_util.CommandError:
            unknown.append(revision)
            continue
        applied |= _needed(script, revision)
    known: dict[str, str] = {}
    for branch in BRANCHES:
        walk = script.iterate_revisions(f'{branch}@head', SPLIT)
        newest = next((rev.revision for rev in walk
                       if rev.revision in applied and
                       branch in rev.branch_labels), None)
        if newest is not None:
            known[branch] = newest
    out = {}
    for branch, head in heads().items():
        mine = known.get(branch)
        if mine == head:
            state = 'current'
        elif mine is not None:
            state = 'behind'
        elif unknown:
            state = 'newer'
            mine = unknown[0] if len(unknown) == 1 else ','.join(unknown)
        else:
            state = 'missing'
        out[branch] = {'current': mine, 'head': head, 'state': state}
    return out


def _needed(script: alembic_script.ScriptDirectory,
            revision: str) -> set[str]:
    """``revision`` and every revision it needs (down revisions and
    ``depends_on``)."""
    seen: set[str] = set()
    todo = [revision]
    while todo:
        current_rev = todo.pop()
        if current_rev in seen:
            continue
        seen.add(current_rev)
        found = script.get_revision(current_rev)
        for attr in (found.down_revision, found.dependencies):
            if isinstance(attr, str):
                todo.append(attr)
            elif attr:
                todo.extend(attr)
    return seen


def ensure_current(conf: cfg.ConfigOpts, database: api.Database) -> None:
    """Make sure a service can start on the database's schema.

    The embedded SQLite database is upgraded in place (every branch and
    the online data migrations), so a newcomer needs no set-up step. A
    server database is the operator's: a service refuses to start on a
    schema whose expand branch is behind its code's (it would read
    columns that are not there) or whose contract branch a newer release
    ran (what this code reads may be gone), rather than migrate it behind
    their back. A newer expand (an upgrade under way) and an older
    contract (not contracted yet) are what a rolling upgrade runs on.

    :raises exception.ServiceUnavailable: the schema does not fit.
    """
    if database.backend == 'sqlite':
        upgrade(conf, database=database)
        migrate(conf, database=database)
        return
    state = branch_state(current(conf, database=database))
    expand, contract = state[EXPAND], state[CONTRACT]
    if expand['state'] in ('behind', 'missing'):
        raise exception.ServiceUnavailable(
            service='database',
            reason=f'schema is at {expand["current"] or "nothing"} in the '
                   f'expand branch, this release needs {expand["head"]}: '
                   f'run "placement-ext-manage db expand"')
    if contract['state'] == 'newer':
        raise exception.ServiceUnavailable(
            service='database',
            reason=f'a newer release contracted the schema '
                   f'({contract["current"]}); this release cannot run on '
                   f'it: upgrade this service')


# -- online data migrations ---------------------------------------------------

# (name, function(connection, limit) -> (found, done)): the rows of an
# expand a new release fills while old services still run. ``found`` is
# how many rows still need the change (at most ``limit`` are changed,
# ``done`` of them); limit 0 only counts. Oldest first; an entry stays
# until the contract that needs its rows done has shipped.
OnlineMigration = Callable[[sa.Connection, int], tuple[int, int]]


def _lease_status_changed_at(connection: sa.Connection,
                             limit: int) -> tuple[int, int]:
    """Leases a 1.0.0 service wrote get ``status_changed_at``: their last
    update (the status is the last thing those services changed), else
    their creation. Needed by contract d3c8a4f1e203 (NOT NULL)."""
    leases = sa.table('leases', sa.column('id'), sa.column('created_at'),
                      sa.column('updated_at'),
                      sa.column('status_changed_at'))
    missing = leases.c.status_changed_at.is_(None)
    found = connection.scalar(
        sa.select(sa.func.count()).select_from(leases).where(missing))
    if not found or not limit:
        return found, 0
    ids = [row.id for row in connection.execute(
        sa.select(leases.c.id).where(missing).limit(limit))]
    done = connection.execute(
        leases.update().where(leases.c.id.in_(ids), missing).values(
            status_changed_at=sa.func.coalesce(leases.c.updated_at,
                                               leases.c.created_at))
    ).rowcount
    return found, done


ONLINE_MIGRATIONS: list[tuple[str, OnlineMigration]] = [
    ('lease_status_changed_at', _lease_status_changed_at),
]


def pending_online(conf: cfg.ConfigOpts, *,
                   database: api.Database | None = None) -> dict[str, int]:
    """Rows each online data migration still has to change (the expand
    branch must be at head)."""
    return {name: found for name, found, _ in
            _online(conf, database, limit=0)}


def migrate(conf: cfg.ConfigOpts, *, database: api.Database | None = None,
            batch: int = 500) -> dict[str, int]:
    """Run every online data migration to its end, ``batch`` rows per
    transaction (so the old services' writes go on meanwhile); rows
    changed per migration. Idempotent: a second run changes nothing.

    :raises exception.Conflict: the expand branch is not at this
        release's head (the columns they fill are not there yet).
    """
    _expanded(conf, database, 'online data migrations')
    done: dict[str, int] = {}
    while True:
        rows = _online(conf, database, limit=batch)
        for name, _, changed in rows:
            done[name] = done.get(name, 0) + changed
        if not any(changed for _, _, changed in rows):
            return done


def _expanded(conf: cfg.ConfigOpts, database: api.Database | None,
              step: str) -> None:
    state = branch_state(current(conf, database=database))[EXPAND]
    if state['state'] != 'current':
        raise exception.Conflict(
            reason=f'{step} refused: the expand branch is at '
                   f'{state["current"] or "nothing"}, not {state["head"]}; '
                   f'run "placement-ext-manage db expand" first')


def _online(conf: cfg.ConfigOpts, database: api.Database | None,
            limit: int) -> list[tuple[str, int, int]]:
    if not ONLINE_MIGRATIONS:
        return []
    owned = database is None
    database = database or api.Database(conf, create=False)
    try:
        out = []
        for name, function in ONLINE_MIGRATIONS:
            with database.engine.begin() as connection:
                found, changed = function(connection, limit)
            out.append((name, found, changed))
        return out
    finally:
        if owned:
            database.dispose()


# -- the three steps of a rolling upgrade ------------------------------------

def expand(conf: cfg.ConfigOpts, *,
           database: api.Database | None = None) -> None:
    """Add what the new code needs while the old services run."""
    upgrade(conf, f'{EXPAND}@head', database=database)


def contract(conf: cfg.ConfigOpts, *, old_services: list[str],
             database: api.Database | None = None) -> None:
    """Remove what only the old code read, once nothing old runs.

    :param old_services: the live services that run older code
        (``binary on host (version N)``), from the services table: the
        caller reads it (:mod:`placement_ext.objects.service`).
    :raises exception.Conflict: the expand branch is not at head, an
        online data migration has rows left, or an old service runs.
    """
    _expanded(conf, database, 'contract')
    if old_services:
        raise exception.Conflict(
            reason=f'contract refused: services still run an older '
                   f'release: {"; ".join(old_services)}. Restart them on '
                   f'this release (or wait until their rows go stale '
                   f'if they are gone) and run it again')
    left = {name: n for name, n in
            pending_online(conf, database=database).items() if n}
    if left:
        rows = ', '.join(f'{name}: {n} rows' for name, n in left.items())
        raise exception.Conflict(
            reason=f'contract refused: online data migrations are not '
                   f'done ({rows}); run "placement-ext-manage db migrate"')
    upgrade(conf, f'{CONTRACT}@head', database=database)


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
