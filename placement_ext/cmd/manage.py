"""``placement-ext-manage``: operator commands for the database schema.

::

    placement-ext-manage [--config-file FILE] db sync
    placement-ext-manage db upgrade [REVISION]     (default: head)
    placement-ext-manage db version

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
from placement_ext.db import migration

LOG = logging.getLogger(__name__)

PROG = 'placement-ext-manage'


class DbCommands:
    """``db`` sub-commands; each returns the process exit status."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf

    def sync(self) -> int:
        migration.upgrade(self.conf, 'head')
        return self._report()

    def upgrade(self) -> int:
        migration.upgrade(self.conf, self.conf.command.revision)
        return self._report()

    def version(self) -> int:
        print(migration.version(self.conf) or 'None')
        return 0

    def _report(self) -> int:
        print(f'Database schema is at revision '
              f'{migration.version(self.conf) or "None"}.')
        return 0


def _add_db_parsers(subparsers: object) -> None:
    parser = subparsers.add_parser('db', help='Database schema commands.')
    db_parsers = parser.add_subparsers(dest='action', metavar='ACTION')
    db_parsers.required = True
    db_parsers.add_parser(
        'sync', help='Upgrade the schema to the newest revision.')
    upgrade = db_parsers.add_parser(
        'upgrade', help='Upgrade the schema to REVISION (default: head).')
    upgrade.add_argument('revision', nargs='?', default='head')
    db_parsers.add_parser('version', help='Print the current revision.')


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
