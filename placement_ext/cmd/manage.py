"""``placement-ext-manage``: operator commands for the database schema.

::

    placement-ext-manage [--config-file FILE] db sync
    placement-ext-manage db expand       (rolling upgrade, step 1)
    placement-ext-manage db migrate      (step 2, online data migrations)
    placement-ext-manage db contract     (step 3, once no old service runs)
    placement-ext-manage db status       (each phase, and the services)
    placement-ext-manage db upgrade [REVISION]     (default: heads)
    placement-ext-manage db version

``sync`` does the three steps at once, for a new database or an upgrade
with every service stopped; doc/source/upgrade.rst gives the order of a
rolling upgrade.

Built like ``placement-manage``/``nova-manage``: oslo.config sub-command
options, so ``--config-file`` and ``--config-dir`` work as for the
services. Operator mistakes (unknown revision, unreachable database, bad
configuration) print one ``ERROR:`` line and exit with status 1.
"""

import sys
from collections.abc import Callable

import sqlalchemy as sa
from alembic import util as alembic_util
from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_log import log as logging

from placement_ext import conf as pe_conf
from placement_ext import configuration
from placement_ext import exception
from placement_ext.db import api as db_api
from placement_ext.db import migration
from placement_ext.objects import service as service_obj
from placement_ext.vocabulary import service_versions

LOG = logging.getLogger(__name__)

PROG = 'placement-ext-manage'


class DbCommands:
    """``db`` sub-commands; each returns the process exit status."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf

    def sync(self) -> int:
        migration.upgrade(self.conf, 'heads')
        done = migration.migrate(self.conf)
        if any(done.values()):
            self._print_online(done)
        return self._report()

    def upgrade(self) -> int:
        migration.upgrade(self.conf, self.conf.command.revision)
        return self._report()

    def expand(self) -> int:
        migration.expand(self.conf)
        return self._report()

    def migrate(self) -> int:
        self._print_online(migration.migrate(self.conf))
        return 0

    def contract(self) -> int:
        database = db_api.Database(self.conf, create=False)
        try:
            old = [svc.describe() for svc in self._live(database)
                   if svc.version < service_versions.SERVICE_VERSION]
            migration.contract(self.conf, database=database,
                               old_services=old)
        finally:
            database.dispose()
        return self._report()

    def version(self) -> int:
        print(migration.version(self.conf) or 'None')
        return 0

    def status(self) -> int:
        """Each branch against this code's head, the online migrations
        left, and the live services with their versions."""
        database = db_api.Database(self.conf, create=False)
        try:
            state = migration.branch_state(
                migration.current(self.conf, database=database))
            for branch, row in state.items():
                print(f'{branch}: {row["current"] or "None"} '
                      f'(this release: {row["head"]}) {row["state"]}')
            if state[migration.EXPAND]['state'] == 'current':
                left = {name: n for name, n in migration.pending_online(
                    self.conf, database=database).items() if n}
                print('online data migrations: ' + (', '.join(
                    f'{name} {n} rows left' for name, n in left.items())
                    or 'none pending'))
            else:
                print('online data migrations: after "db expand"')
            live = self._live(database)
        finally:
            database.dispose()
        print(f'live services (heartbeat within '
              f'{self.conf.service_down_time} s):')
        for svc in live:
            print(f'  {svc.describe()}')
        return 0

    def _live(self, database: db_api.Database) -> list:
        if migration.branch_state(migration.current(
                self.conf, database=database))[migration.EXPAND][
                    'state'] == 'missing':
            return []       # no services table before the first expand
        return service_obj.live(database, self.conf.service_down_time)

    @staticmethod
    def _print_online(done: dict[str, int]) -> None:
        print('Online data migrations: ' + (', '.join(
            f'{name} {n} rows' for name, n in done.items()) or 'none to run')
            + '.')

    def _report(self) -> int:
        print(f'Database schema is at revision '
              f'{migration.version(self.conf) or "None"}.')
        return 0


def _add_db_parsers(subparsers: object) -> None:
    parser = subparsers.add_parser('db', help='Database schema commands.')
    db_parsers = parser.add_subparsers(dest='action', metavar='ACTION')
    db_parsers.required = True
    db_parsers.add_parser(
        'sync', help='Expand, migrate and contract at once (a new '
                     'database, or an upgrade with every service stopped).')
    db_parsers.add_parser(
        'expand', help='Rolling upgrade, step 1: add what the new release '
                       'needs; old services keep running.')
    db_parsers.add_parser(
        'migrate', help='Rolling upgrade, step 2: the online data '
                        'migrations, in batches.')
    db_parsers.add_parser(
        'contract', help='Rolling upgrade, step 3: remove what only the '
                         'old release read; refused while an old service '
                         'is live.')
    db_parsers.add_parser(
        'status', help='Each branch against this release, the online '
                       'migrations left, the live services.')
    upgrade = db_parsers.add_parser(
        'upgrade', help='Upgrade the schema to REVISION (default: heads).')
    upgrade.add_argument('revision', nargs='?', default='heads')
    db_parsers.add_parser('version', help='Print the current revisions.')


def _command_opt() -> cfg.SubCommandOpt:
    return cfg.SubCommandOpt(
        'command', title='Commands', help='Available commands',
        handler=_add_db_parsers)


def _parse(argv: list[str]) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    pe_conf.register_opts(conf)
    conf.register_cli_opt(_command_opt())
    conf(argv, project='placement_ext', prog=PROG)
    pe_conf.validate(conf)
    return conf


def _error(message: str) -> int:
    print(f'ERROR: {message}', file=sys.stderr)
    return 1


def _database(conf: cfg.ConfigOpts) -> str:
    url = sa.make_url(conf.database.connection)
    return url.render_as_string(hide_password=True)


def _reason(exc: BaseException) -> str:
    """The driver's message, without SQLAlchemy's SQL and links."""
    exc = getattr(exc, 'inner_exception', None) or exc
    return str(getattr(exc, 'orig', None) or exc)


def _run(conf: cfg.ConfigOpts) -> int:
    commands = DbCommands(conf)
    action: Callable[[], int] = getattr(commands, conf.command.action)
    try:
        return action()
    except exception.PlacementExtError as exc:
        return _error(exc.detail)
    except alembic_util.CommandError as exc:
        return _error(f'{exc}. Run "{PROG} db version" and check the '
                      f'revision.')
    except sa.exc.ArgumentError as exc:
        return _error(f'[database] connection: {exc}')
    except cfg.Error as exc:
        # oslo.config checks a value when it is first read
        return _error(str(exc))
    except (db_exc.DBConnectionError, db_exc.DBNonExistentDatabase,
            sa.exc.OperationalError) as exc:
        LOG.debug('Database error', exc_info=True)
        return _error(f'Cannot use the database {_database(conf)}: '
                      f'{_reason(exc)}')
    except db_exc.DBError as exc:
        LOG.debug('Database error', exc_info=True)
        return _error(f'Database {_database(conf)} failed: {_reason(exc)}')


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``placement-ext-manage``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        conf = _parse(argv)
    except cfg.Error as exc:
        return _error(str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        return _error(configuration.unreadable_config(argv, None, exc).detail)
    return _run(conf)


if __name__ == '__main__':
    sys.exit(main())
