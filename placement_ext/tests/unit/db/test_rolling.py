"""The steps of a rolling upgrade: ``placement-ext-manage db expand``,
``migrate``, ``contract``, ``status``, the services table and what a
service accepts at start."""

import datetime

import sqlalchemy as sa
import testtools

from placement_ext import exception
from placement_ext import rpc_client
from placement_ext.db import migration
from placement_ext.db import models
from placement_ext.objects import service as service_obj
from placement_ext.tests.unit.db import test_manage
from placement_ext.vocabulary import service_versions

EXPAND, CONTRACT = migration.heads()['expand'], migration.heads()['contract']
# the first revision of the contract branch (1.0.0's head)
CONTRACT_1_0 = 'c0417ac7b001'


class TestSteps(test_manage.ManageFixtures):
    """A SQLite file and a config file, as TestManageDb's."""

    def _at_split(self):
        self.assertEqual(0, self.manage('db', 'upgrade', migration.SPLIT)[0])

    def test_status_before_and_after_each_step(self):
        self._at_split()
        status, out, _ = self.manage('db', 'status')
        self.assertEqual(0, status)
        self.assertIn(f'expand: None (this release: {EXPAND}) missing', out)
        self.assertIn('online data migrations: after "db expand"', out)
        self.assertFailed(self.manage('db', 'migrate'),
                          'online data migrations refused',
                          'db expand" first')
        self.assertFailed(self.manage('db', 'contract'),
                          'contract refused', 'db expand" first')
        self.assertEqual(0, self.manage('db', 'expand')[0])
        out = self.manage('db', 'status')[1]
        self.assertIn(f'expand: {EXPAND} (this release: {EXPAND}) current',
                      out)
        self.assertIn(f'contract: None (this release: {CONTRACT}) missing',
                      out)
        self.assertEqual((0, 'Online data migrations: lease_status_changed_at '
                             '0 rows.\n', ''),
                         self.manage('db', 'migrate'))
        self.assertEqual(0, self.manage('db', 'contract')[0])
        out = self.manage('db', 'status')[1]
        self.assertIn(f'contract: {CONTRACT} (this release: {CONTRACT}) '
                      f'current', out)

    def test_contract_refused_while_an_old_service_is_live(self):
        self._at_split()
        self.manage('db', 'expand')
        database = self.database.db
        service_obj.register(database, 'placement-ext-manager',
                             'controller1', 'topic', version=0)
        service_obj.register(database, 'placement-ext-manager',
                             'controller2', 'topic')
        self.assertFailed(self.manage('db', 'contract'),
                          'placement-ext-manager on controller1 '
                          '(version 0)')
        out = self.manage('db', 'status')[1]
        self.assertIn('placement-ext-manager on controller1 (version 0)',
                      out)
        # a killed old service: its row goes stale, and no longer counts
        table = models.Service.__table__
        with database.writer() as session:
            session.execute(table.update().where(
                table.c.host == 'controller1').values(
                heartbeat_at=models.utcnow() - datetime.timedelta(
                    seconds=3600)))
        self.assertEqual(0, self.manage('db', 'contract')[0])


    def test_leases_of_the_previous_release_are_migrated_before_contract(
            self):
        # a lease as a 1.0.0 service writes it: no status_changed_at
        self.assertEqual(0, self.manage('db', 'expand')[0])
        leases = models.Lease.__table__
        created = datetime.datetime(2026, 1, 1)
        with self.database.db.writer() as session:
            for n in range(3):
                session.execute(leases.insert().values(
                    id=f'lease-{n}', name=f'l{n}', user_id='u',
                    project_id='p', start_date=created,
                    end_date=created + datetime.timedelta(days=1),
                    status='ACTIVE', generation=0, created_at=created,
                    updated_at=created if n else None,
                    status_changed_at=None))
        out = self.manage('db', 'status')[1]
        self.assertIn('online data migrations: lease_status_changed_at 3 '
                      'rows left', out)
        self.assertFailed(self.manage('db', 'contract'),
                          'lease_status_changed_at: 3 rows',
                          'db migrate')
        self.assertEqual(
            (0, 'Online data migrations: lease_status_changed_at 3 '
                'rows.\n', ''), self.manage('db', 'migrate'))
        # idempotent
        self.assertEqual(
            (0, 'Online data migrations: lease_status_changed_at 0 '
                'rows.\n', ''), self.manage('db', 'migrate'))
        self.assertEqual(0, self.manage('db', 'contract')[0])
        with self.database.db.reader() as session:
            self.assertEqual({created}, set(session.scalars(
                sa.select(leases.c.status_changed_at))))


class TestBranchState(testtools.TestCase):

    def test_newer_expand_and_older_contract_are_what_a_rolling_upgrade_runs(
            self):
        state = migration.branch_state(('f00dfeed0001', CONTRACT_1_0))
        self.assertEqual('newer', state['expand']['state'])
        self.assertEqual('behind', state['contract']['state'])

    def test_a_newer_contract_is_seen(self):
        # only a branch's newest revision is stored: ours is gone
        state = migration.branch_state((EXPAND, 'f00dfeed0002'))
        self.assertEqual(('current', 'newer'),
                         (state['expand']['state'],
                          state['contract']['state']))

    def test_before_the_split_both_are_missing(self):
        state = migration.branch_state((migration.SPLIT,))
        self.assertEqual({'missing'}, {row['state']
                                       for row in state.values()})


class TestEnsureCurrent(testtools.TestCase):

    def _check(self, revisions):
        database = type('Database', (), {'backend': 'mysql'})()
        self.patch(migration, 'current', lambda conf, database: revisions)
        migration.ensure_current(None, database)

    def test_old_expand_refused(self):
        exc = self.assertRaises(exception.ServiceUnavailable, self._check,
                                (migration.SPLIT,))
        self.assertIn('db expand', exc.detail)

    def test_newer_expand_accepted(self):
        self._check(('f00dfeed0001', CONTRACT_1_0))

    def test_contract_not_run_yet_accepted(self):
        self._check((EXPAND,))

    def test_newer_contract_refused(self):
        exc = self.assertRaises(exception.ServiceUnavailable, self._check,
                                (EXPAND, 'f00dfeed0002'))
        self.assertIn('newer release contracted', exc.detail)


class TestAutoCap(testtools.TestCase):

    def test_caps(self):
        history = service_versions.RPC_HISTORY
        newest, oldest = max(history), min(history)
        # no live service, or the newest: no cap
        self.assertIsNone(rpc_client.auto_cap('manager', None))
        self.assertIsNone(rpc_client.auto_cap('manager', newest))
        self.assertIsNone(rpc_client.auto_cap('manager', newest + 1))
        # older than any this code knows: the oldest it knows
        self.assertEqual(history[oldest]['conductor'],
                         rpc_client.auto_cap('conductor', oldest - 1))
