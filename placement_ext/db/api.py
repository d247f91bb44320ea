"""The transaction factory: one :class:`Database` per service, no globals.

Usage::

    db = Database(conf)
    with db.writer() as session:
        hosts = lock_computehosts(session, host_ids)
        ...                       # read capacity, insert allocations
        compare_and_swap(session, models.Lease, lease_id, seen_generation)

``reader()`` and ``writer()`` yield a SQLAlchemy 2 ``Session`` inside a
transaction that commits when the block ends and rolls back when it
raises. Opening one inside another in the same thread joins the outer
transaction (like oslo.db's enginefacade), so object-layer functions can
each open ``db.writer()`` and still compose into one transaction; a writer
inside a reader is refused.

Writers serialise on the capacity they read:

* SQLite: every writer transaction starts with ``BEGIN IMMEDIATE``, so
  only one writer (in any process) runs at a time; readers still proceed.
* MySQL/MariaDB and PostgreSQL: callers lock the rows their decision
  depends on with ``SELECT ... FOR UPDATE`` through :func:`lock_rows` /
  :func:`lock_computehosts`, before inserting rows that reference them
  (an insert takes a shared lock on the parent row; upgrading it later
  can deadlock). Writers run at READ COMMITTED (PostgreSQL's default, set
  explicitly on MySQL), so reads made after the lock is granted see
  everything committed before it, even if the transaction read something
  earlier.
* Galera: ``SELECT ... FOR UPDATE`` locks rows on the node that runs it
  only. A writer that depends on a locked row therefore also *writes* it
  (:func:`touch_computehosts`), so that two writers on two nodes
  deciding on the same host conflict at commit (certification) and the
  later one fails with a deadlock error.

Deadlocks (and Galera certification failures, reported as deadlocks)
are retried around the WHOLE transaction, never a statement inside it:
every object-layer writer is decorated with :func:`retry_on_deadlock`,
which re-runs the function (re-reading and re-deciding) when it opened
the outermost transaction, and lets the error through to the outermost
caller's retry when it only joined one. A caller that opens the
outermost ``writer()`` itself wraps its block in a function and runs it
with :meth:`Database.retrying`. The bounds are oslo.db's ``[database]``
``db_max_retries``, ``db_retry_interval``, ``db_inc_retry_interval`` and
``db_max_retry_interval``; with ``use_db_reconnect = true`` a lost
connection (a Galera node, or the proxy in front of it, failed) is
retried the same way. Each retry is logged as a warning.

The same code runs on all three backends (``lock_rows`` is a plain
SELECT on SQLite, where the writer already holds the database lock).

Engines come from oslo.db (``engines.create_engine``: ``[database]``
options, SQLite pragmas, MySQL sql_mode, DBError translation). oslo.db's
enginefacade is not used: it is built around a module-level transaction
context, and it cannot start SQLite writers with BEGIN IMMEDIATE.
"""

import contextlib
import functools
import os
import threading
import typing
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator

import sqlalchemy as sa
from oslo_config import cfg
from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import engines
from oslo_log import log as logging
from sqlalchemy import event
from sqlalchemy import orm

from placement_ext import exception
from placement_ext.conf import paths
from placement_ext.db import models

LOG = logging.getLogger(__name__)
T = typing.TypeVar('T')

# Execution option marking connections that belong to writer sessions.
_WRITER_OPTION = 'placement_ext_writer'
# Session.info key: True in writer sessions, False in reader sessions.
_WRITER_INFO = 'placement_ext_writer'
# [database] options (oslo.db's) passed on to its create_engine().
_ENGINE_OPTIONS = (
    'sqlite_synchronous', 'mysql_sql_mode', 'mysql_wsrep_sync_wait',
    'connection_recycle_time', 'connection_debug', 'max_pool_size',
    'max_overflow', 'pool_timeout', 'connection_trace', 'max_retries',
    'retry_interval', 'connection_parameters')


class Database:
    """Engine plus reader/writer session factories for one ConfigOpts.

    :param conf: a ConfigOpts with placement_ext's options registered
        (``placement_ext.conf.register_opts``); ``[database]`` holds
        oslo.db's options. The engine is created (and the connection
        tested, with ``[database] max_retries``) at construction.
    :param create: create a missing SQLite file (0600, its directory
        0700); False for read-only uses, which refuse a missing file
        (NotFound) rather than create one.
    """

    def __init__(self, conf: cfg.ConfigOpts, create: bool = True) -> None:
        self.conf = conf
        self.engine = _create_engine(conf, create)
        writer_options: dict = {_WRITER_OPTION: True}
        if self.engine.dialect.name in ('mysql', 'mariadb'):
            writer_options['isolation_level'] = 'READ COMMITTED'
        self._reader = orm.sessionmaker(
            bind=self.engine, expire_on_commit=False)
        self._writer = orm.sessionmaker(
            bind=self.engine.execution_options(**writer_options),
            expire_on_commit=False)
        self._local = threading.local()

    @property
    def backend(self) -> str:
        """``sqlite``, ``mysql`` (MariaDB too) or ``postgresql``."""
        return self.engine.dialect.name

    @property
    def in_transaction(self) -> bool:
        """True inside a reader or writer block of this thread."""
        return getattr(self._local, 'session', None) is not None

    def retrying(self, fn: Callable[..., T], *args: object,
                 **kwargs: object) -> T:
        """``fn(*args, **kwargs)``, run again from the start when its
        transaction fails with a deadlock (or, with ``[database]
        use_db_reconnect``, a lost connection).

        ``fn`` must open the transaction itself and hold no state from a
        failed run. Inside an enclosing transaction ``fn`` runs once: the
        error reaches the outermost :meth:`retrying`, which redoes the
        whole transaction (a statement cannot be retried alone: its
        transaction was rolled back).
        """
        if self.in_transaction:
            return fn(*args, **kwargs)
        db = self.conf.database
        retry = oslo_db_api.wrap_db_retry(
            retry_interval=db.db_retry_interval,
            max_retries=db.db_max_retries,
            inc_retry_interval=db.db_inc_retry_interval,
            max_retry_interval=db.db_max_retry_interval,
            retry_on_deadlock=True,
            retry_on_disconnect=db.use_db_reconnect)
        return retry(_logged(fn))(*args, **kwargs)

    def dispose(self) -> None:
        """Close pooled connections (tests, and after a fork)."""
        self.engine.dispose()

    def reader(self) -> contextlib.AbstractContextManager[orm.Session]:
        """A read transaction; joins an enclosing reader or writer."""
        return self._transaction(writer=False)

    def writer(self) -> contextlib.AbstractContextManager[orm.Session]:
        """A write transaction; joins an enclosing writer."""
        return self._transaction(writer=True)

    @contextlib.contextmanager
    def _transaction(self, writer: bool) -> Iterator[orm.Session]:
        outer = getattr(self._local, 'session', None)
        if outer is not None:
            if writer and not outer.info[_WRITER_INFO]:
                raise RuntimeError(
                    'Cannot open a writer transaction inside a reader '
                    'transaction; open the writer first.')
            yield outer
            return
        session = self._writer() if writer else self._reader()
        session.info[_WRITER_INFO] = writer
        self._local.session = session
        try:
            with session.begin():
                yield session
        finally:
            self._local.session = None
            session.close()


# what a Galera node out of the primary component (cut off from the
# majority) answers: to a commit "1180, Error while appending streaming
# replication fragment(provider status: Not connected to Primary
# Component)", which oslo.db lets through as a bare OperationalError; to
# a new connection's set-up (wsrep_sync_wait) "1047, WSREP has not yet
# prepared node for application use", raised by the driver itself.
# Nothing was committed there: both are a lost connection to the cluster
LOST_PRIMARY = ('not connected to primary component',
                'wsrep has not yet prepared node')


def _as_lost_connection(exc: Exception) -> Exception:
    """``exc`` as DBConnectionError when its node left the cluster."""
    text = str(exc).lower()
    if any(marker in text for marker in LOST_PRIMARY):
        return db_exc.DBConnectionError(exc)
    return exc


def _warn_retry(fn: Callable, exc: db_exc.DBError) -> None:
    LOG.warning('%(fn)s: transaction failed (%(kind)s: %(exc)s); '
                'running it again if retries are left',
                {'fn': fn.__qualname__, 'kind': type(exc).__name__,
                 'exc': exc.inner_exception or exc})


def _logged(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn``, warning about each failure that its retry redoes (a node
    that left the Galera cluster's primary component included: see
    :data:`LOST_PRIMARY`)."""
    @functools.wraps(fn)
    def run(*args: object, **kwargs: object) -> T:
        try:
            return fn(*args, **kwargs)
        except (db_exc.DBDeadlock, db_exc.DBConnectionError) as exc:
            _warn_retry(fn, exc)
            raise
        except Exception as exc:   # noqa: BLE001 - only LOST_PRIMARY
            lost = _as_lost_connection(exc)
            if lost is exc:
                raise
            _warn_retry(fn, lost)
            raise lost from exc
    return run


def retry_on_deadlock(fn: Callable[..., T]) -> Callable[..., T]:
    """Decorator for object-layer functions whose first argument is the
    :class:`Database`: see :meth:`Database.retrying`. Readers take it
    too: with ``use_db_reconnect`` a read cut off by a dead database node
    (a Galera node behind HAProxy) is read again through the next one."""
    @functools.wraps(fn)
    def wrapper(database: 'Database', *args: object,
                **kwargs: object) -> T:
        return database.retrying(fn, database, *args, **kwargs)
    return wrapper


def _create_engine(conf: cfg.ConfigOpts, create: bool) -> sa.Engine:
    db = conf.database
    url = sa.make_url(db.connection)
    if url.get_backend_name() == 'sqlite':
        _prepare_sqlite_path(conf, url, create)
    if url.get_backend_name() in ('mysql', 'mariadb') and \
            'charset' not in url.query:
        # the tables are utf8mb4; a connection in the driver's default
        # (utf8mb3 or latin1) cannot carry 4-byte characters such as emoji
        url = url.update_query_dict({'charset': 'utf8mb4'})
    try:
        engine = engines.create_engine(
            url.render_as_string(hide_password=False), sqlite_fk=True,
            logging_name='placement_ext',
            **{name: db[name] for name in _ENGINE_OPTIONS})
    except ImportError as exc:
        raise exception.InvalidInput(
            field='[database] connection',
            reason=f'the {url.drivername} driver is not installed ({exc}); '
                   f'install it, or use mysql+pymysql:// or '
                   f'postgresql+psycopg2://')
    except db_exc.DBConnectionError as exc:
        # oslo.db tried max_retries times, retry_interval s apart: say
        # so, since that wait is the operator's to tune
        tries = 'retrying for ever' if db.max_retries < 0 else \
            f'after {db.max_retries + 1} attempt(s) {db.retry_interval} s ' \
            f'apart'
        raise exception.ServiceUnavailable(
            service='database',
            reason=f'{url.render_as_string(hide_password=True)} did not '
                   f'answer, {tries} ([database] max_retries, '
                   f'retry_interval): {exc.inner_exception or exc}')
    if engine.dialect.name == 'sqlite':
        event.listen(engine, 'begin', _sqlite_begin_immediate)
    return engine


def _prepare_sqlite_path(conf: cfg.ConfigOpts, url: sa.URL,
                         create: bool) -> None:
    """Create a file database, private to our user (its directory too);
    without ``create``, refuse one that does not exist (SQLite would
    create it on connect)."""
    if not url.database or url.database == ':memory:':
        return
    if not create:
        if not os.path.isfile(url.database):
            raise exception.NotFound(kind='SQLite database',
                                     id=url.database)
        return
    paths.private_file(url.database)


def _sqlite_begin_immediate(conn: sa.Connection) -> None:
    """Start SQLite writer transactions with BEGIN IMMEDIATE.

    A plain (deferred) BEGIN takes the write lock only at the first write,
    so two writers could both read the same free capacity and then both
    insert. IMMEDIATE takes the lock before the first read.
    """
    if not conn.get_execution_options().get(_WRITER_OPTION):
        return
    dbapi_connection = conn.connection.driver_connection
    # NOTE: oslo.db's own 'begin' listener (registered by
    # engines.create_engine, so run before this one) has already emitted a
    # deferred BEGIN. Nothing ran in it yet, so replacing it costs nothing.
    # test_api checks the lock is really taken.
    if dbapi_connection.in_transaction:
        dbapi_connection.execute('ROLLBACK')
    dbapi_connection.execute('BEGIN IMMEDIATE')
    # oslo.db's marker: a transaction is open (cleared at commit/rollback).
    conn.info['in_transaction'] = True


def is_writer(session: orm.Session) -> bool:
    """True if ``session`` belongs to a :meth:`Database.writer` block."""
    return bool(session.info.get(_WRITER_INFO))


def lock_rows(session: orm.Session, model: type[models.Base],
              ids: Iterable) -> list:
    """Lock the rows of ``model`` with these ids until the transaction ends.

    Rows are locked in id order so concurrent writers locking overlapping
    sets cannot deadlock, and re-read (``populate_existing``) so the
    returned objects show the latest committed values. On MySQL/MariaDB
    and PostgreSQL this is ``SELECT ... FOR UPDATE``; SQLite has no row
    locks and relies on the writer's ``BEGIN IMMEDIATE`` instead.

    Missing ids are simply absent from the result; compare lengths to
    detect them.

    :raises RuntimeError: if ``session`` is not a writer session.
    """
    if not is_writer(session):
        raise RuntimeError('lock_rows() needs a Database.writer() session.')
    stmt = (sa.select(model)
            .where(model.id.in_(sorted(set(ids))))
            .order_by(model.id)
            .with_for_update()
            .execution_options(populate_existing=True))
    return list(session.scalars(stmt))


def lock_computehosts(session: orm.Session,
                      host_ids: Iterable[int]) -> list[models.ComputeHost]:
    """Lock these compute hosts before reading or changing their capacity.

    Call it before reading allocations that a new reservation's decision
    depends on: two writers creating leases on the same host then run one
    after the other, so they cannot both take the last slot.
    """
    return lock_rows(session, models.ComputeHost, host_ids)


def touch_computehosts(session: orm.Session,
                       host_ids: Iterable[int]) -> None:
    """Write the rows of the hosts whose slots this transaction changes.

    On one server the :func:`lock_computehosts` lock is enough. On Galera
    it holds on one node only; only rows in a transaction's write set
    conflict at commit. An allocation inserted under that lock happens to
    add its host to the write set on MariaDB 10.11 (its foreign key
    check), but not without the lock, and that is the server's detail,
    not a promise. Writing the host row (``updated_at``; the generation
    stays, it tells changes of the host itself) makes it one: of two
    writers on two nodes choosing the same host, the later fails at
    commit with a deadlock error, and its retry sees the other's slots.
    """
    ids = sorted(set(host_ids))
    if not ids:
        return
    session.execute(
        sa.update(models.ComputeHost)
        .where(models.ComputeHost.id.in_(ids))
        .values(updated_at=models.utcnow())
        .execution_options(synchronize_session=False))


def compare_and_swap(session: orm.Session, model: type[models.Base],
                     row_id: object, seen_generation: int,
                     **values: object) -> int:
    """Bump ``generation`` (and set ``values``) only if nobody else did.

    Runs ``UPDATE ... SET generation = seen + 1 WHERE id = :id AND
    generation = :seen``, like placement's resource provider generation.
    Call it in the writer transaction that changes the row or its
    children, with the generation the caller read (or the client echoed).

    :returns: the new generation.
    :raises placement_ext.exception.ConcurrentUpdate: if the row is gone
        or its generation is no longer ``seen_generation``.
    """
    new_generation = seen_generation + 1
    stmt = (sa.update(model)
            .where(model.id == row_id, model.generation == seen_generation)
            .values(generation=new_generation, **values)
            .execution_options(synchronize_session='evaluate'))
    result = session.execute(stmt)
    if result.rowcount != 1:
        raise exception.ConcurrentUpdate(kind=model.__tablename__, id=row_id)
    return new_generation
