"""Migrations walk up and down, and agree with the models.

``MigrationChecks`` holds the checks; ``TestMigrationsSQLite`` runs them
on a SQLite file and the functional suite on MariaDB and PostgreSQL.
"""

import datetime
import os
import subprocess
import sys
import time

import fixtures
import sqlalchemy as sa
import testtools
from alembic import script as alembic_script
from oslo_db.sqlalchemy import test_migrations

from placement_ext.db import migration
from placement_ext.db import models
from placement_ext.tests.fixtures import database as db_fixture

# Identifier limit of PostgreSQL (63) and MySQL (64).
MAX_NAME_LENGTH = 63
_PREFIXES = {'index': ('ix_', 'uq_'), 'unique': ('uq_',),
             'foreign key': ('fk_',), 'check': ('ck_',)}


def revisions() -> list[tuple[str, str]]:
    """(revision, previous revision or 'base'), oldest first."""
    script = alembic_script.ScriptDirectory.from_config(
        migration.alembic_cfg())
    walk = list(script.walk_revisions('base', 'heads'))
    return [(rev.revision, rev.down_revision or 'base')
            for rev in reversed(walk)]


class MigrationChecks(test_migrations.ModelsMigrationsSync):
    """Checks for one backend; set BACKEND in the TestCase subclass.

    test_models_sync (from oslo.db) compares the schema built by the
    migrations with models.py using alembic autogenerate.
    """

    BACKEND = 'sqlite'

    def setUp(self):
        super().setUp()
        self.database = db_fixture.use_database(self, self.BACKEND,
                                                migrate=False)
        self.conf = self.database.conf

    # ModelsMigrationsSync interface
    def get_engine(self):
        return self.database.db.engine

    def get_metadata(self):
        return models.Base.metadata

    def db_sync(self, engine):
        migration.upgrade(self.conf, database=self.database.db)

    def include_object(self, object_, name, type_, reflected, compare_to):
        return not (type_ == 'table' and name == 'alembic_version')

    # helpers
    def _version(self):
        return migration.version(self.conf, database=self.database.db)

    def _tables(self) -> set[str]:
        return set(sa.inspect(self.get_engine()).get_table_names())

    # checks
    def test_walk_every_revision_up_and_down(self):
        script = alembic_script.ScriptDirectory.from_config(
            migration.alembic_cfg())
        for revision, _ in revisions():
            migration.upgrade(self.conf, revision, database=self.database.db)
            self.assertIn(revision, self._version().split())
            # each downgrade undoes its upgrade (one step back on its own
            # branch) and can be redone
            branch = set(script.get_revision(revision).branch_labels) & set(
                migration.BRANCHES)
            back = f'{branch.pop()}@-1' if branch else f'{revision}-1'
            migration.downgrade(self.conf, back, database=self.database.db)
            self.assertNotIn(revision, (self._version() or '').split())
            migration.upgrade(self.conf, revision, database=self.database.db)
        self.assertEqual(' '.join(f'{branch} {head}' for branch, head in
                                  migration.heads().items()),
                         self._version())
        self.assertEqual(set(models.Base.metadata.tables) |
                         {'alembic_version'}, self._tables())
        migration.downgrade(self.conf, 'base', database=self.database.db)
        self.assertIsNone(self._version())
        self.assertEqual({'alembic_version'}, self._tables())

    def test_stacks_are_filled_from_the_operations(self):
        # the latest operation on each stack names its VNF instance
        migration.upgrade(self.conf, '6e2c4a8b1f53',
                          database=self.database.db)
        rows = [('op-1', 'vnf-a', 's1', 1), ('op-2', 'vnf-a', 's1', 2),
                ('op-3', 'vnf-b', 's2', 3), ('op-4', 'vnf-c', None, 4)]
        table = models.Operation.__table__
        with self.get_engine().begin() as connection:
            for op_id, vnf, stack, second in rows:
                params = {'stack_name': stack} if stack else {}
                connection.execute(table.insert().values(
                    id=op_id, vnf_instance_id=vnf, operation='INSTANTIATE',
                    state='COMPLETED', params=params, placement={},
                    generation=0, state_entered_at=models.utcnow(),
                    created_at=datetime.datetime(2026, 1, 1, 0, 0, second)))
        migration.upgrade(self.conf, database=self.database.db)
        with self.get_engine().connect() as connection:
            stacks = connection.execute(sa.select(
                models.Stack.name, models.Stack.vnf_instance_id,
                models.Stack.operation_id).order_by(models.Stack.name))
            self.assertEqual([('s1', 'vnf-a', 'op-2'),
                              ('s2', 'vnf-b', 'op-3')], list(stacks))

    def test_every_constraint_and_index_is_named(self):
        self.db_sync(self.get_engine())
        inspector = sa.inspect(self.get_engine())
        for table in models.Base.metadata.tables:
            found = {
                'index': inspector.get_indexes(table),
                'unique': inspector.get_unique_constraints(table),
                'foreign key': inspector.get_foreign_keys(table),
                'check': [c for c in inspector.get_check_constraints(table)
                          # MariaDB's own json_valid() checks on JSON
                          if 'json_valid' not in c['sqltext']],
            }
            for kind, items in found.items():
                for item in items:
                    name = item['name']
                    self.assertIsNotNone(name, f'{table}: unnamed {kind}')
                    self.assertTrue(name.startswith(_PREFIXES[kind]),
                                    f'{table}: {kind} {name}')
                    self.assertLessEqual(len(name), MAX_NAME_LENGTH, name)

    def test_check_constraints_exist(self):
        # alembic autogenerate does not compare CHECK constraints
        self.db_sync(self.get_engine())
        inspector = sa.inspect(self.get_engine())
        for table in models.Base.metadata.sorted_tables:
            expected = {c.name for c in table.constraints
                        if isinstance(c, sa.CheckConstraint)}
            found = {c['name']
                     for c in inspector.get_check_constraints(table.name)}
            self.assertLessEqual(expected, found, table.name)


class TestMigrationsSQLite(MigrationChecks, testtools.TestCase):
    pass


class TestRevisions(testtools.TestCase):

    def test_history_splits_once_into_expand_and_contract(self):
        script = alembic_script.ScriptDirectory.from_config(
            migration.alembic_cfg())
        self.assertEqual(set(migration.heads().values()),
                         set(script.get_heads()))
        for revision, previous in revisions():
            labels = script.get_revision(revision).branch_labels
            if previous == migration.SPLIT or labels:
                # after the split, each revision is on exactly one branch
                self.assertEqual(1, len(labels & set(migration.BRANCHES)),
                                 revision)
            else:
                self.assertFalse(labels, revision)

    def test_first_revision_starts_from_base(self):
        self.assertEqual('base', revisions()[0][1])


# Run by each process of TestEmbeddedUpgradeRace: start-up's schema step.
# They start their upgrade at one instant (argv[2], time.time()), after
# the slow imports, so that they do collide.
_START_UP = '''
import sys, time
from placement_ext import conf
from placement_ext.db import api, migration
c = conf.new_conf(['--config-file', sys.argv[1]])
database = api.Database(c)
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
migration.ensure_current(c, database)
'''


PROCESSES = 4


class TestEmbeddedUpgradeRace(testtools.TestCase):
    """Services started together on a new SQLite file all start."""

    def test_concurrent_start_ups_upgrade_once(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(tmp, 'pe.conf')
        with open(path, 'w', encoding='utf-8') as conf_file:
            conf_file.write(f'[database]\nconnection = sqlite:///'
                            f'{tmp}/placement_ext.sqlite\n')
        at = str(time.time() + 6)
        procs = [subprocess.Popen([sys.executable, '-c', _START_UP, path, at],
                                  stderr=subprocess.PIPE, text=True)
                 for _ in range(PROCESSES)]
        errors = [proc.communicate(timeout=120)[1] for proc in procs]
        self.assertEqual([0] * PROCESSES,
                         [proc.returncode for proc in procs],
                         '\n'.join(errors))
