"""Which conductor drives an operation: claim, heartbeat, release, adopt.

On SQLite here; ``tests/functional/db/test_api.py`` runs the same tests
on MariaDB and PostgreSQL.
"""

import datetime

import sqlalchemy as sa

from placement_ext.db import models
from placement_ext.objects import operation as op_obj
from placement_ext.tests.unit.db import test_api as db_tests
from placement_ext.vocabulary import states

MINUTE = datetime.timedelta(minutes=1)


class TestOwnership(db_tests.DbTestCase):

    def setUp(self):
        super().setUp()
        self.op = op_obj.create(
            self.db, vnf_instance_id='vnf-1', operation='INSTANTIATE',
            params={}, placement={'VDU1-0': 'AZ-1'})
        self.stale_before = models.utcnow() - MINUTE

    def _age(self, **ago):
        """Move the operation's timestamps into the past."""
        values = {column: models.utcnow() - delta
                  for column, delta in ago.items()}
        with self.db.writer() as session:
            session.execute(sa.update(models.Operation)
                            .where(models.Operation.id == self.op.id)
                            .values(**values))

    def _owner(self):
        return op_obj.get(self.db, self.op.id).owner

    def test_first_claim_wins_and_a_live_owner_keeps_it(self):
        self.assertTrue(op_obj.claim(self.db, self.op.id, 'a',
                                     self.stale_before))
        self.assertFalse(op_obj.claim(self.db, self.op.id, 'b',
                                      self.stale_before))
        self.assertEqual('a', self._owner())

    def test_claim_leaves_the_generation_alone(self):
        op_obj.claim(self.db, self.op.id, 'a', self.stale_before)
        op = op_obj.get(self.db, self.op.id)
        self.assertEqual(self.op.generation, op.generation)
        self.assertIsNotNone(op.heartbeat_at)

    def test_owner_claims_again_after_a_restart(self):
        op_obj.claim(self.db, self.op.id, 'a', self.stale_before)
        self.assertTrue(op_obj.claim(self.db, self.op.id, 'a',
                                     self.stale_before))

    def test_stale_owner_is_taken_over(self):
        op_obj.claim(self.db, self.op.id, 'a', self.stale_before)
        self._age(heartbeat_at=2 * MINUTE)
        self.assertTrue(op_obj.claim(self.db, self.op.id, 'b',
                                     self.stale_before))
        self.assertEqual('b', self._owner())

    def test_heartbeat_keeps_the_claim(self):
        op_obj.claim(self.db, self.op.id, 'a', self.stale_before)
        self._age(heartbeat_at=2 * MINUTE)
        self.assertEqual(1, op_obj.heartbeat(self.db, 'a'))
        self.assertFalse(op_obj.claim(self.db, self.op.id, 'b',
                                      self.stale_before))

    def test_heartbeat_renews_only_runnable_operations_of_the_host(self):
        op_obj.claim(self.db, self.op.id, 'a', self.stale_before)
        self.assertEqual(0, op_obj.heartbeat(self.db, 'b'))
        op_obj.set_state(self.db, self.op, states.STATE_COMPLETED)
        self.assertEqual(0, op_obj.heartbeat(self.db, 'a'))

    def test_heartbeat_renews_only_the_operations_named(self):
        # an operation whose driving thread died is not named: it goes
        # stale and is adopted, instead of being held forever
        op_obj.claim(self.db, self.op.id, 'a', self.stale_before)
        self.assertEqual(0, op_obj.heartbeat(self.db, 'a', []))
        self.assertEqual(0, op_obj.heartbeat(self.db, 'a', ['other']))
        self.assertEqual(1, op_obj.heartbeat(self.db, 'a', [self.op.id]))

    def test_release_frees_it_for_anyone(self):
        op_obj.claim(self.db, self.op.id, 'a', self.stale_before)
        op_obj.release(self.db, self.op.id, 'b')   # not b's to release
        self.assertEqual('a', self._owner())
        op_obj.release(self.db, self.op.id, 'a')
        self.assertIsNone(self._owner())
        self.assertTrue(op_obj.claim(self.db, self.op.id, 'b',
                                     self.stale_before))

    def test_ending_gives_the_owner_up_in_the_same_write(self):
        for state in (states.STATE_COMPLETED, states.STATE_FAILED_TEMP):
            op_obj.claim(self.db, self.op.id, 'a', self.stale_before)
            op = op_obj.get(self.db, self.op.id)
            ended = op_obj.set_state(self.db, op, state)
            self.assertEqual((None, None), (ended.owner, ended.heartbeat_at))
            self.op = op_obj.set_state(self.db, ended,
                                       states.STATE_PROCESSING)

    def test_ended_operation_cannot_be_claimed(self):
        op_obj.set_state(self.db, self.op, states.STATE_FAILED)
        self.assertFalse(op_obj.claim(self.db, self.op.id, 'a',
                                      self.stale_before))

    def _adoptable(self, host):
        return [op.id for op in op_obj.adoptable(self.db, host,
                                                 self.stale_before)]

    def test_young_unowned_operation_is_left_to_its_cast(self):
        self.assertEqual([], self._adoptable('a'))
        self._age(state_entered_at=2 * MINUTE)
        self.assertEqual([self.op.id], self._adoptable('a'))

    def test_own_operations_are_adoptable_at_once(self):
        op_obj.claim(self.db, self.op.id, 'a', self.stale_before)
        self.assertEqual([self.op.id], self._adoptable('a'))
        self.assertEqual([], self._adoptable('b'))

    def test_operations_of_a_silent_owner_are_adoptable(self):
        op_obj.claim(self.db, self.op.id, 'a', self.stale_before)
        self._age(heartbeat_at=2 * MINUTE)
        self.assertEqual([self.op.id], self._adoptable('b'))

    def test_shown_with_its_owner(self):
        op_obj.claim(self.db, self.op.id, 'a', self.stale_before)
        shown = op_obj.get(self.db, self.op.id).to_dict()
        self.assertEqual('a', shown['owner'])
        datetime.datetime.fromisoformat(shown['heartbeat_at'])
