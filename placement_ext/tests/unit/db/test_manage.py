"""``placement-ext-manage db ...``: exit statuses and messages."""

import contextlib
import io
import os

import fixtures
import testtools

from placement_ext.cmd import manage
from placement_ext.db import migration
from placement_ext.tests.fixtures import database as db_fixture


class TestManageDb(testtools.TestCase):

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

    def test_version_of_an_empty_database(self):
        self.assertEqual((0, 'None\n', ''), self.manage('db', 'version'))

    def test_sync_then_version(self):
        head = migration.head()
        status, out, _ = self.manage('db', 'sync')
        self.assertEqual(0, status)
        self.assertEqual(f'Database schema is at revision {head}.\n', out)
        self.assertEqual((0, f'{head}\n', ''), self.manage('db', 'version'))

    def test_upgrade_defaults_to_head(self):
        self.assertEqual(0, self.manage('db', 'upgrade')[0])
        self.assertEqual(migration.head(),
                         migration.version(self.database.conf))

    def test_downgrade_to_base_and_upgrade_to_a_revision(self):
        head = migration.head()
        self.assertEqual(0, self.manage('db', 'sync')[0])
        status, out, _ = self.manage('db', 'downgrade', 'base')
        self.assertEqual((0, 'Database schema is at revision None.\n'),
                         (status, out))
        self.assertEqual(0, self.manage('db', 'upgrade', head)[0])
        self.assertEqual((0, f'{head}\n', ''), self.manage('db', 'version'))

    def test_unknown_revision(self):
        self.assertFailed(self.manage('db', 'upgrade', 'nope'),
                          "'nope'", 'db version')

    def test_downgrade_above_the_current_revision(self):
        self.assertFailed(self.manage('db', 'downgrade', 'head'))

    def test_downgrade_needs_a_revision(self):
        with contextlib.redirect_stderr(io.StringIO()) as err:
            exc = self.assertRaises(SystemExit, manage.main,
                                    ['db', 'downgrade'])
        self.assertEqual(2, exc.code)
        self.assertIn('revision', err.getvalue())

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
