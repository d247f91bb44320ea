"""tools/minicloud/schema_cache.py: migrated schemas kept by the pins,
a dump that does not load dropped (no MariaDB run: the bring-up of the
functional tests loads and saves real dumps)."""

import pathlib
import subprocess
import sys
from unittest import mock

import fixtures
import testtools

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4]
                       / 'tools'))
from minicloud import schema_cache  # noqa: E402

VARIABLE = schema_cache.mc_settings.PREFIX + 'SCHEMA_CACHE'


class TestSchemaCache(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = pathlib.Path(self.useFixture(fixtures.TempDir()).path)
        self.useFixture(fixtures.EnvironmentVariable(VARIABLE, str(self.dir)))
        self.settings = mock.Mock()
        self.settings.path.return_value = self.dir / 'mysqld.sock'

    def dump(self, name='services'):
        return self.dir / f'{name}-{schema_cache.key()}.sql'

    def test_off(self):
        self.useFixture(fixtures.EnvironmentVariable(VARIABLE, 'OFF'))
        self.assertIsNone(schema_cache.folder())
        self.assertFalse(schema_cache.load(self.settings, 'services', ('a',)))

    def test_default_folder_under_the_user_cache(self):
        self.useFixture(fixtures.EnvironmentVariable(VARIABLE))
        self.useFixture(fixtures.EnvironmentVariable('XDG_CACHE_HOME', '/c'))
        self.assertEqual(pathlib.Path('/c/placement_ext/minicloud-schemas'),
                         schema_cache.folder())

    def test_key_follows_the_pins(self):
        before = schema_cache.key()
        pins = (*schema_cache.mc_settings.PIP_REQUIREMENTS, 'nova==35.0.0')
        with mock.patch.object(schema_cache.mc_settings, 'PIP_REQUIREMENTS',
                               pins):
            self.assertNotEqual(before, schema_cache.key())

    def test_no_dump_means_migrate(self):
        with mock.patch.object(subprocess, 'run') as run:
            self.assertFalse(schema_cache.load(self.settings, 'services',
                                               ('heat',)))
        run.assert_not_called()

    def test_dump_loaded(self):
        self.dump().write_text('CREATE TABLE t (i int);\n')
        ok = subprocess.CompletedProcess([], 0, b'', b'')
        with mock.patch.object(subprocess, 'run', return_value=ok) as run:
            self.assertTrue(schema_cache.load(self.settings, 'services',
                                              ('heat',)))
        self.assertIn('--no-defaults', run.call_args.args[0])

    def test_bad_dump_removed_and_databases_emptied(self):
        self.dump().write_text('garbage\n')
        bad = subprocess.CompletedProcess([], 1, b'', b'ERROR 1064 syntax')
        with mock.patch.object(subprocess, 'run', return_value=bad), \
                mock.patch.object(schema_cache.backends, 'run_sql') as sql:
            self.assertFalse(schema_cache.load(
                self.settings, 'services', ('heat', 'nova')))
        self.assertFalse(self.dump().exists())
        self.assertEqual(
            'DROP DATABASE IF EXISTS heat; CREATE DATABASE heat; '
            'DROP DATABASE IF EXISTS nova; CREATE DATABASE nova',
            sql.call_args.args[1])

    def test_failed_dump_leaves_nothing(self):
        bad = subprocess.CompletedProcess([], 2, None, b'Access denied')
        with mock.patch.object(subprocess, 'run', return_value=bad):
            schema_cache.save(self.settings, 'services', ('heat',))
        self.assertEqual([], list(self.dir.glob('*.sql*')))

    def test_dump_written_whole_then_named(self):
        def dump(argv, stdout, stderr):
            stdout.write(b'-- schema\n')
            self.assertEqual([], list(self.dir.glob('*.sql')))
            return subprocess.CompletedProcess(argv, 0, None, b'')
        with mock.patch.object(subprocess, 'run', side_effect=dump):
            schema_cache.save(self.settings, 'services', ('heat',))
        self.assertEqual('-- schema\n', self.dump().read_text())
