"""One stack, one VNF instance, one operation at a time.

Before, the conductor accepted an INSTANTIATE for VNF B naming VNF A's
stack and updated A's stack, and four concurrent operations on one new
stack name all ran (the stack was created twice). On SQLite here;
``tests/functional/db/test_api.py`` runs the same tests on MariaDB and
PostgreSQL, with the writers racing in threads.
"""

import threading

import sqlalchemy as sa

from placement_ext import exception
from placement_ext.db import models
from placement_ext.objects import operation as op_obj
from placement_ext.tests.unit.db import test_api as db_tests
from placement_ext.vocabulary import states


class TestStackOwnership(db_tests.DbTestCase):

    def _create(self, vnf='vnf-a', stack='stack-1', kind='INSTANTIATE'):
        return op_obj.create(
            self.db, vnf_instance_id=vnf, operation=kind,
            params={'stack_name': stack}, placement={'VDU1-0': 'AZ-1'})

    def _end(self, op, state):
        return op_obj.set_state(self.db, op, state)

    def test_another_vnf_cannot_take_a_stack(self):
        first = self._create()
        self._end(first, states.STATE_COMPLETED)
        exc = self.assertRaises(exception.Conflict, self._create, 'vnf-b')
        self.assertIn('stack stack-1 belongs to VNF instance vnf-a',
                      exc.detail)
        self.assertEqual([first.id], self._operation_ids())

    def test_one_operation_at_a_time_on_a_stack(self):
        first = self._create()
        exc = self.assertRaises(exception.Conflict, self._create,
                                kind='HEAL')
        self.assertIn(f'operation {first.id} (INSTANTIATE, STARTING) is '
                      f'changing stack stack-1', exc.detail)
        self._end(first, states.STATE_COMPLETED)
        second = self._create(kind='HEAL')
        self.assertEqual([first.id, second.id], self._operation_ids())

    def test_a_failed_temp_operation_is_superseded_then_not_retried(self):
        first = self._end(self._create(), states.STATE_FAILED_TEMP)
        second = self._create()
        exc = self.assertRaises(exception.Conflict, op_obj.retry, self.db,
                                first)
        self.assertIn(f'operation {second.id} took stack stack-1 after '
                      f'{first.id} failed', exc.detail)
        self._end(second, states.STATE_FAILED_TEMP)
        self.assertEqual(states.STATE_PROCESSING,
                         op_obj.retry(self.db, op_obj.get(
                             self.db, second.id)).state)

    def test_only_failed_temp_is_retried(self):
        op = self._create()
        exc = self.assertRaises(exception.Conflict, op_obj.retry, self.db,
                                op)
        self.assertIn('only FAILED_TEMP operations can be retried',
                      exc.detail)

    def test_concurrent_creates_on_a_new_stack_one_wins(self):
        outcomes, barrier = [], threading.Barrier(4)

        def create(index):
            barrier.wait()
            try:
                outcomes.append(self._create(vnf=f'vnf-{index % 2}').id)
            except exception.Conflict as exc:
                outcomes.append(exc)

        threads = [threading.Thread(target=create, args=(i,))
                   for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        created = [o for o in outcomes if isinstance(o, str)]
        self.assertEqual(1, len(created), outcomes)
        self.assertEqual(created, self._operation_ids())
        with self.db.reader() as session:
            stack = session.get(models.Stack, 'stack-1')
        self.assertEqual(created[0], stack.operation_id)

    def _operation_ids(self):
        with self.db.reader() as session:
            return list(session.scalars(
                sa.select(models.Operation.id)
                .order_by(models.Operation.created_at)))
