"""Our operation inside a host service's LCM operation occurrence.

In tacker-conductor (:mod:`placement_ext.adapters.tacker.driver`) our
operation runs within Tacker's occurrence and names it
(``params['lcm_op_occ_id']``). Tacker's retry of the occurrence resumes
our operation, the same record with its failed zones kept
(:meth:`HostLcm.resume`); Tacker's rollback or fail of it ends ours the
same way (:meth:`HostLcm.end_with_host`). What each step means is
:mod:`placement_ext.decision.host_lcm`'s; this module reads and writes
the records, claims the operation and runs it.
"""

import itertools
import time
from collections.abc import Callable

from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import exception
from placement_ext import polling
from placement_ext.conductor import lifecycle
from placement_ext.conductor import ownership
from placement_ext.db import api as db_api
from placement_ext.decision import host_lcm
from placement_ext.objects import operation as op_obj

LOG = logging.getLogger(__name__)
POLL_SECONDS = 2.0


class StillRunning(exception.Conflict):
    msg_fmt = ('placement-ext operation %(id)s is still %(state)s, driven '
               'by %(owner)s, after %(waited)d s; retry once it has ended')


def wait_limit(conf: cfg.ConfigOpts) -> float:
    """Seconds a retry waits for our operation while another live process
    drives it: one Heat attempt's longest run (``[v2_vnfm]
    openstack_vim_stack_create_timeout``) plus ``[conductor]
    operation_takeover_timeout``, after which a stopped owner's claim is
    stale and the retry adopts the operation."""
    return (60 * conf.v2_vnfm.openstack_vim_stack_create_timeout
            + conf.conductor.operation_takeover_timeout)


class HostLcm:
    """Our operations of one host service's occurrences.

    :param owner: this process as an owner of operations.
    :param limit: seconds :meth:`resume` waits for a live run elsewhere
        (:func:`wait_limit`).
    """

    def __init__(self, database: db_api.Database,
                 owner: ownership.Ownership, limit: float,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._db = database
        self._owner = owner
        self._limit = limit
        self._clock = clock
        self._sleep = sleep

    def resume(self, vnf_instance_id: str, lcm_op_occ_id: str,
               runner: Callable[[], lifecycle.LifecycleRunner]
               ) -> op_obj.Operation | None:
        """On the host's retry of ``lcm_op_occ_id``: our operation as it
        ended after resuming it (the same record, from its attempts:
        no failed zone is sent again), or waiting for or adopting its
        run; None when there is none to resume (the host then tries as
        the first time, and a failure starts a new operation).

        :param runner: builds the runner, only when ours is run here.
        :raises StillRunning: another live process still drives ours
            after the wait limit; the host's retry fails, retryable.
        """
        op = op_obj.for_lcm_op_occ(self._db, vnf_instance_id,
                                   lcm_op_occ_id)
        if op is None:
            return None
        seen = [op]
        looks = itertools.count()

        def look() -> tuple[op_obj.Operation | None] | None:
            waited = next(looks) > 0
            if waited:
                seen[0] = op_obj.get(self._db, seen[0].id)
            return self._step(seen, lcm_op_occ_id, runner, waited)

        ended = polling.until(look, timeout=self._limit,
                              interval=POLL_SECONDS, sleep=self._sleep,
                              clock=self._clock)
        if ended is None:
            op = seen[0]
            raise StillRunning(id=op.id, state=op.state,
                               owner=op.owner or 'nobody',
                               waited=self._limit)
        return ended[0]

    def _step(self, seen: list[op_obj.Operation], lcm_op_occ_id: str,
              runner: Callable[[], lifecycle.LifecycleRunner],
              waited: bool) -> tuple[op_obj.Operation | None] | None:
        """One look at our operation ``seen[0]`` (replaced by the one
        made runnable again): ``(the operation or None,)`` as
        :meth:`resume` returns it, or None to look again later."""
        op = seen[0]
        step = host_lcm.on_retry(op.state, self._owner.live(op))
        if not waited or step != host_lcm.WAIT:
            LOG.info('Retry of LCM operation occurrence %(lcm)s: '
                     '%(step)s placement-ext operation %(id)s '
                     '(%(state)s)', {'lcm': lcm_op_occ_id, 'step': step,
                                     'id': op.id, 'state': op.state})
        if step == host_lcm.START_NEW:
            return (None,)
        if step == host_lcm.REUSE:
            return (op,)
        if step == host_lcm.RESUME:
            op = self._runnable_again(op)
            if op is None:
                return (None,)
            seen[0] = op
        if step in (host_lcm.RESUME, host_lcm.ADOPT):
            try:
                with self._owner.owned(op.id, beat=True):
                    return (runner().run(op.id),)
            except ownership.NotClaimed as exc:
                # another process claimed it first: await its end
                LOG.info('%s', exc.detail)
        return None

    def _runnable_again(self, op: op_obj.Operation
                        ) -> op_obj.Operation | None:
        """FAILED_TEMP -> PROCESSING; None when a newer operation took
        its stack (that one is then the stack's)."""
        try:
            return op_obj.retry(self._db, op)
        except exception.ConcurrentUpdate:
            return op_obj.get(self._db, op.id)
        except exception.Conflict as exc:
            LOG.info('Operation %(id)s is not resumed: %(why)s',
                     {'id': op.id, 'why': exc.detail})
            return None

    def end_with_host(self, host_state: Callable[[str], str | None]
                      ) -> list[op_obj.Operation]:
        """End our operations whose host occurrence ended (rolled back
        or failed) the same way, or completed without ours (FAILED); the
        ones ended.

        :param host_state: the host occurrence's state by its id (None:
            unknown).
        """
        ended = []
        for op in op_obj.lcm_op_occ_pending(self._db):
            lcm = op.params['lcm_op_occ_id']
            host = host_state(lcm)
            state = host_lcm.on_host_end(op.state, self._owner.live(op),
                                         host)
            if state is None:
                continue
            ended_by = exception.HostEnded(lcm=lcm, state=host).to_dict()
            if op.error:  # the failure's cause stays first
                ended_by = {**op.error, 'detail': f'{op.error["detail"]} '
                                                  f'({ended_by["detail"]})'}
            try:
                op = op_obj.set_state(self._db, op, state, error=ended_by)
            except exception.ConcurrentUpdate:
                continue  # changed since read: the next pass judges it
            LOG.info('Operation %(id)s %(state)s with LCM operation '
                     'occurrence %(lcm)s', {'id': op.id, 'state': state,
                                            'lcm': lcm})
            ended.append(op)
        return ended
