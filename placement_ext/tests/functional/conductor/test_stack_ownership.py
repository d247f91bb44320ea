"""One Heat stack belongs to one VNF instance, and one operation at a time
changes it, on the embedded cloud's real Heat.

Before, four concurrent INSTANTIATE operations on one new stack name all
ran (Heat was asked to create it more than once), and an INSTANTIATE for
VNF B naming VNF A's stack updated A's stack; both reported COMPLETED.
"""

import threading

import oslo_messaging

from placement_ext import exception
from placement_ext.conductor import manager as conductor_manager
from placement_ext.tests.functional.conductor import base
from placement_ext.vocabulary import states


class TestStackOwnership(base.ConductorCloudTestCase):

    def _endpoint(self):
        return conductor_manager.ConductorManager(self.conf, 'test', self.db)

    def _race(self, bodies):
        """create_operation of each body at once; then run the accepted."""
        endpoint, barrier = self._endpoint(), threading.Barrier(len(bodies))
        outcomes = [None] * len(bodies)

        def create(index):
            barrier.wait()
            try:
                outcomes[index] = endpoint.create_operation(
                    self._context(), request=bodies[index])
            except oslo_messaging.ExpectedException as exc:
                outcomes[index] = exc.exc_info[1]

        threads = [threading.Thread(target=create, args=(i,))
                   for i in range(len(bodies))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        accepted = [op for op in outcomes if isinstance(op, dict)]
        # run_operation hands the operation to a worker and returns; the
        # test drives it in its own thread to see how it ends
        return [endpoint.drive(op['id']).to_dict()
                for op in accepted], outcomes

    def test_one_stack_one_vnf_one_operation_at_a_time(self):
        body = self.request('INSTANTIATE', {'VDU1-0': 'AZ-1'}, ['VDU1-0'])
        ran, outcomes = self._race([dict(body) for _ in range(4)])
        self.assertEqual(1, len(ran), outcomes)
        self.assertEqual(states.STATE_COMPLETED, ran[0]['state'])
        for refused in outcomes:
            if not isinstance(refused, dict):
                self.assertIsInstance(refused, exception.Conflict)
                self.assertIn(f'stack {self.stack_name}', refused.detail)
        stacks = [s for s in self.cloud.admin.orchestration.stacks()
                  if s.name == self.stack_name]
        self.assertEqual(1, len(stacks))
        seen = self.cloud.admin.orchestration.get_stack(stacks[0].id)

        # VNF B names A's stack: refused, A's stack left as it was
        other = dict(body, vnf_instance_id='vnf-b',
                     placement={'VDU1-0': 'AZ-2'})
        exc = self.assertRaises(oslo_messaging.ExpectedException,
                                self._endpoint().create_operation,
                                self._context(), request=other).exc_info[1]
        self.assertIsInstance(exc, exception.Conflict)
        self.assertIn(f'stack {self.stack_name} belongs to VNF instance '
                      f'{self.stack_name}', exc.detail)
        now = self.cloud.admin.orchestration.get_stack(stacks[0].id)
        self.assertEqual((seen.status, seen.updated_at),
                         (now.status, now.updated_at))
