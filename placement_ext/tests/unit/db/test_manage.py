"""``placement-ext-manage db ...``: exit statuses and messages."""

import contextlib
import io
import os

import fixtures
import testtools

from placement_ext.cmd import manage
from placement_ext.db import migration
from placement_ext.tests.fixtures import database as db_fixture


def _heads() -> str:
    return ' '.join(f'{branch} {head}'
                    for branch, head in migration.heads().items())


class ManageFixtures(testtools.TestCase):
    """``placement-ext-manage`` on a SQLite file of its own."""

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.FakeLogger())
        self.database = self.useFixture(db_fixture.Database(migrate=False))
        self.config_file = self._write_config(self.database.url)

    def _write_config(self, connection: str, **database: object) -> str:
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'placement_ext.conf')
        lines = ['[DEFAULT]', f'state_path = {os.path.dirname(path)}',
                 '[database]', f'connection = {connection}']
        lines += [f'{key} = {value}' for key, value in database.items()]
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        return path

    def manage(self, *args: str,
               config_file: str | None = None) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        argv = ['--config-file', config_file or self.config_file, *args]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = manage.main(argv)
        return status, out.getvalue(), err.getvalue()

    def assertFailed(self, result, *fragments: str):
        status, out, err = result
        self.assertEqual(1, status, (out, err))
        self.assertTrue(err.startswith('ERROR: '), err)
        self.assertNotIn('Traceback', err)
        for fragment in fragments:
            self.assertIn(fragment, err)


class TestManageDb(ManageFixtures):

    def test_version_of_an_empty_database(self):
        self.assertEqual((0, 'None\n', ''), self.manage('db', 'version'))

    def test_sync_then_version(self):
        head = _heads()
        status, out, _ = self.manage('db', 'sync')
        self.assertEqual(0, status)
        self.assertEqual(f'Database schema is at revision {head}.\n', out)
        self.assertEqual((0, f'{head}\n', ''), self.manage('db', 'version'))

    def test_upgrade_defaults_to_heads(self):
        self.assertEqual(0, self.manage('db', 'upgrade')[0])
        self.assertEqual(_heads(), migration.version(self.database.conf))

    def test_upgrade_to_a_revision(self):
        head = migration.heads()[migration.EXPAND]
        status, out, _ = self.manage('db', 'upgrade', head)
        at = f'expand {head} contract None'
        self.assertEqual((0, f'Database schema is at revision {at}.\n'),
                         (status, out))
        self.assertEqual((0, f'{at}\n', ''), self.manage('db', 'version'))

    def test_unknown_revision(self):
        self.assertFailed(self.manage('db', 'upgrade', 'nope'),
                          "'nope'", 'db version')

    def test_no_downgrade(self):
        # OpenStack projects do not support schema downgrades
        with contextlib.redirect_stderr(io.StringIO()) as err:
            exc = self.assertRaises(SystemExit, manage.main,
                                    ['db', 'downgrade', 'base'])
        self.assertEqual(2, exc.code)
        self.assertIn("invalid choice: 'downgrade'", err.getvalue())

    def test_unreachable_database(self):
        config = self._write_config(
            'mysql+pymysql://placement:secret@127.0.0.1:1/placement_ext',
            max_retries=0)
        result = self.manage('db', 'version', config_file=config)
        self.assertFailed(result, 'Cannot use the database',
                          '127.0.0.1:1', 'Connection refused')
        self.assertNotIn('secret', result[2])

    def test_bad_connection_url(self):
        config = self._write_config('not a url')
        self.assertFailed(self.manage('db', 'sync', config_file=config),
                          '[database] connection')

    def test_bad_option_value(self):
        config = self._write_config(self.database.url, max_retries='many')
        self.assertFailed(self.manage('db', 'sync', config_file=config),
                          'max_retries')

    def test_missing_config_file(self):
        self.assertFailed(
            self.manage('db', 'version', config_file='/nonexistent.conf'),
            '/nonexistent.conf')

    def test_version_of_a_mistyped_sqlite_path_creates_nothing(self):
        missing_dir = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                   'typo')
        config = self._write_config(f'sqlite:///{missing_dir}/db.sqlite')
        self.assertFailed(self.manage('db', 'version', config_file=config),
                          f'SQLite database {missing_dir}/db.sqlite could '
                          f'not be found')
        self.assertFalse(os.path.exists(missing_dir))

    def test_driver_that_is_not_installed_names_the_option(self):
        config = self._write_config('mysql+mysqldb://root@127.0.0.1/x')
        self.assertFailed(self.manage('db', 'version', config_file=config),
                          'Invalid [database] connection: the mysql+mysqldb '
                          'driver is not installed')

    def test_sync_creates_a_private_sqlite_file_and_directory(self):
        directory = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                 'state')
        path = os.path.join(directory, 'db.sqlite')
        config = self._write_config(f'sqlite:///{path}')
        self.assertEqual(0, self.manage('db', 'sync', config_file=config)[0])
        self.assertEqual(0o600, os.stat(path).st_mode & 0o777)
        self.assertEqual(0o700, os.stat(directory).st_mode & 0o777)
