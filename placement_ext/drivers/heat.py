"""Heat: create, update and wait for stacks; read failure reasons.

Talks to Heat and reports what happened; it never decides what to do about
a failure (that is :mod:`placement_ext.decision`).
"""

import dataclasses
import itertools
import math
import time
from collections.abc import Callable
from collections.abc import Iterator

from heatclient import client as heat_client
from heatclient import exc as heat_exc
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from oslo_log import log as logging

from placement_ext import exception
from placement_ext import polling
from placement_ext.drivers import keystone

LOG = logging.getLogger(__name__)

# Waiting for a stack action we just started: one look every WAIT_EVERY
# s (tacker-conductor's own interval) but none at once, as Tacker makes
# (Heat has done nothing yet), so that with the one read before a retry
# a retry makes no more requests than Tacker's for any duration (a
# first look sooner, at 2 s then 6, 11, 16 ..., made one more for an
# update of 17 s); after WAIT_LONG s (a large create) every
# WAIT_LONG_EVERY s.
WAIT_EVERY, WAIT_LONG, WAIT_LONG_EVERY = 5.0, 60.0, 10.0
# Waiting for a failed stack's other resources to settle: they usually
# have within a fraction of a second, and the retry waits on this.
SETTLE_FIRST, SETTLE_MOST = 0.25, 2.0
# A stack whose action ended changes only when an action is sent to it,
# and the conductor owning the operation is the one that sends them: a
# second find_stack this soon after one that saw it ended (the Tacker
# adapter's, then the runner's) answers from that read.
ENDED_FRESH_S = 10.0
STACK_GONE = ('DELETE_COMPLETE',)


@dataclasses.dataclass(frozen=True)
class StackOutcome:
    """Where a stack create or update ended."""

    stack_id: str
    status: str
    reason: str

    @property
    def succeeded(self) -> bool:
        return self.status.endswith('_COMPLETE') and not \
            self.status.startswith('ROLLBACK')


def wait_intervals() -> Iterator[float]:
    """Sleeps between looks at a stack action (see :data:`WAIT_EVERY`)."""
    return itertools.chain(
        itertools.repeat(WAIT_EVERY, math.ceil(WAIT_LONG / WAIT_EVERY)),
        itertools.repeat(WAIT_LONG_EVERY))


class HeatDriver:
    """A thin python-heatclient wrapper with a deadline-bounded wait."""

    def __init__(self, session: ks_session.Session, *,
                 adapter_kwargs: dict | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._client = heat_client.Client(
            '1', session=session, **(adapter_kwargs or {}))
        self._sleep = sleep
        self._clock = clock
        # stack id -> "name/id": heat-api answers a bare id or name with a
        # redirect to that path, one more request per call
        self._paths: dict[str, str] = {}
        # stack name -> (when, stack) of find_stack's last read of an
        # ended action (ENDED_FRESH_S)
        self._ended: dict[str, tuple[float, dict]] = {}

    def find_stack(self, name: str) -> dict | None:
        """The stack called ``name`` (or ``name/id``), or None (a resumed
        create reuses it)."""
        stack_name = name.split('/', 1)[0]
        when, ended = self._ended.get(stack_name, (None, None))
        if ended is not None and self._clock() - when <= ENDED_FRESH_S:
            return dict(ended)
        stack = self._find(name)
        if stack is not None and not \
                stack['stack_status'].endswith('_IN_PROGRESS') and \
                stack['stack_status'] not in STACK_GONE:
            self._ended[stack_name] = (self._clock(), dict(stack))
        return stack

    def _find(self, name: str) -> dict | None:
        bare = name.split('/', 1)[0]
        path = name if '/' in name else next(
            (path for path in self._paths.values()
             if path.split('/', 1)[0] == bare), None)
        if path:
            stack = self._live(path)
            if stack is not None:
                return stack
        try:
            return self._show(bare)
        except exception.NotFound:
            return None

    def _live(self, path: str) -> dict | None:
        """The stack at ``name/id``, or None once it is deleted: by id
        Heat also shows a deleted stack, and its name may have been given
        to a new one since (Tacker's heal with ``additionalParams``
        ``all: true`` deletes the stack, creates another under the same
        name, then names the old id)."""
        try:
            stack = self._show(path)
            if stack['stack_status'] not in STACK_GONE:
                return stack
        except exception.NotFound:
            pass
        self._paths = {k: v for k, v in self._paths.items() if v != path}
        return None

    def _show(self, ref: str) -> dict:
        # outputs are never read here; resolving them costs heat-engine
        # a walk of every resource
        stack = self._call('show stack', self._client.stacks.get, ref,
                           resolve_outputs=False).to_dict()
        self._learn(stack)
        return stack

    def _learn(self, stack: dict) -> None:
        if stack.get('id') and stack.get('stack_name'):
            self._paths[stack['id']] = f'{stack["stack_name"]}/{stack["id"]}'

    def _forget(self, stack_id: str) -> None:
        """An action is being sent: no earlier read holds any more."""
        name = self._path(stack_id).split('/', 1)[0]
        self._ended = {k: v for k, v in self._ended.items()
                       if k != name and v[1].get('id') != stack_id}

    def _path(self, stack_id: str) -> str:
        """``name/id`` of a stack seen before, else what was given."""
        return self._paths.get(stack_id, stack_id)

    def stack_servers(self, stack: str, nested_depth: int = 5) -> list[str]:
        """Ids of the ``OS::Nova::Server`` resources of a stack and of
        its nested stacks (AutoScalingGroup members), down to
        ``nested_depth``."""
        resources = self._call('list stack resources',
                               self._client.resources.list,
                               self._path(stack), nested_depth=nested_depth,
                               filters={'type': 'OS::Nova::Server'})
        return sorted(r.physical_resource_id for r in resources
                      if r.resource_type == 'OS::Nova::Server'
                      and r.physical_resource_id)

    def create_stack(self, name: str, template: dict, parameters: dict,
                     files: dict | None = None, timeout_mins: int = 20,
                     disable_rollback: bool = True) -> str:
        body = self._call('create stack', self._client.stacks.create,
                          stack_name=name, template=template,
                          parameters=parameters, files=files or {},
                          timeout_mins=timeout_mins,
                          disable_rollback=disable_rollback)
        self._ended.pop(name, None)
        self._learn({'id': body['stack']['id'], 'stack_name': name})
        return body['stack']['id']

    def update_stack(self, stack_id: str, parameters: dict,
                     timeout_mins: int = 20, disable_rollback: bool = True,
                     template: dict | None = None,
                     files: dict | None = None) -> None:
        """PATCH the stack: other parameters keep their values.

        ``template`` (and its ``files``) replace the stack's template,
        as a scale out that adds VNFC resources does; without it the
        stack keeps its template.
        """
        extra = {'template': template, 'files': files or {}} \
            if template else {}
        self._forget(stack_id)
        self._call('update stack', self._client.stacks.update,
                   self._path(stack_id),
                   existing=True, parameters=parameters,
                   timeout_mins=timeout_mins,
                   disable_rollback=disable_rollback, **extra)

    def mark_unhealthy(self, stack_id: str, resource_name: str,
                       reason: str) -> None:
        """Have the next update replace ``resource_name`` (a heal)."""
        self._forget(stack_id)
        self._call('mark resource unhealthy',
                   self._client.resources.mark_unhealthy,
                   self._path(stack_id), resource_name, True, reason)

    def wait(self, stack_id: str, action: str, deadline_s: float,
             started_after: str | None = None) -> StackOutcome:
        """Wait until the stack's ``action`` (CREATE, UPDATE, DELETE) ends.

        ``started_after``: the stack's ``updated_time`` before an update was
        sent; the stack still shows the previous action's status until the
        engine starts the new one, so that status must not be taken for
        the update's result.

        The action was just started (or found in progress), so the first
        look is after :data:`WAIT_EVERY` s (:func:`wait_intervals`).
        """
        seen: dict = {}

        def ended() -> StackOutcome | None:
            stack = self._stack_or_gone(stack_id)
            seen['status'] = stack['stack_status'] if stack else 'UNKNOWN'
            if stack and self._finished(stack, action, started_after):
                return StackOutcome(stack_id, seen['status'],
                                    stack.get('stack_status_reason') or '')
            return None

        outcome = polling.until(ended, timeout=deadline_s,
                                interval=wait_intervals(), first_after=True,
                                sleep=self._sleep, clock=self._clock)
        if outcome is None:
            raise exception.ServiceError(
                service='Heat',
                reason=f'stack {stack_id} still {seen["status"]} after '
                       f'{deadline_s:.0f} s waiting for {action}')
        return outcome

    def wait_settled(self, stack_id: str, deadline_s: float,
                     status: str | None = None) -> None:
        """Wait until no resource of the stack is still in progress.

        Heat marks a stack FAILED as soon as one resource fails, while
        its siblings may still be creating. An update sent then starts a
        second traversal over the first, which Heat 27 does not always
        survive (an IntegrityError deleting the old raw_template was seen
        on the embedded cloud), so the next attempt waits for quiet.

        ``status``: the stack's, when just read; only a FAILED action can
        leave resources behind in progress (a COMPLETE one, rollbacks
        included, has ended every resource), so no other is listed.
        """
        if status is not None and not status.endswith('_FAILED'):
            return
        def settled() -> bool | None:
            resources = self._call('list stack resources',
                                   self._client.resources.list,
                                   self._path(stack_id), nested_depth=3)
            busy = [r.resource_name for r in resources
                    if getattr(r, 'resource_status', '') == 'IN_PROGRESS']
            if not busy:
                return True
            LOG.debug('Stack %(id)s still has resources in progress: '
                      '%(busy)s', {'id': stack_id, 'busy': busy})
            return None

        # settled or not at the deadline, the next attempt goes ahead
        polling.until(settled, timeout=deadline_s,
                      interval=polling.backoff(SETTLE_FIRST, SETTLE_MOST),
                      sleep=self._sleep, clock=self._clock)

    def latest_failure_reason(self, stack_id: str) -> str | None:
        """The newest FAILED resource event's reason, nested stacks included.

        With rollback enabled the stack ends ROLLBACK_COMPLETE and its own
        reason no longer says why the create failed; the event does.
        """
        events = self._call(
            'list stack events', self._client.events.list,
            self._path(stack_id),
            filters={'resource_status': 'FAILED'}, sort_dir='desc',
            nested_depth=3, limit=20)
        for event in events:
            reason = getattr(event, 'resource_status_reason', '') or ''
            if reason and 'ResourceInError' in reason:
                return reason
        return next((getattr(e, 'resource_status_reason', None)
                     for e in events), None)

    def _stack_or_gone(self, stack_id: str) -> dict | None:
        """The stack; a gone one as DELETE_COMPLETE; None if Heat stalls.

        heat-api answers 500 when its call to a busy heat-engine times
        out (seen while the engine backs off between its own action
        retries), and refuses connections while it restarts: both are
        "not known yet", so the wait goes on until its deadline.
        """
        try:
            stack = self._client.stacks.get(
                self._path(stack_id), resolve_outputs=False).to_dict()
            self._learn(stack)
            return stack
        except heat_exc.HTTPNotFound:
            return {'stack_status': 'DELETE_COMPLETE', 'id': stack_id}
        except heat_exc.HTTPException as exc:
            if (getattr(exc, 'code', 0) or 0) < 500:
                raise exception.ServiceError(
                    service='Heat', reason=f'show stack: {_text(exc)}')
            LOG.warning('Heat could not show stack %(id)s yet: %(exc)s',
                        {'id': stack_id, 'exc': _text(exc)})
        except (ks_exc.ConnectionError, ks_exc.DiscoveryFailure) as exc:
            # refused, timed out (a hung heat-api), or no token yet
            LOG.warning('Heat unreachable while waiting for stack %(id)s: '
                        '%(exc)s', {'id': stack_id, 'exc': exc})
        except ks_exc.ClientException as exc:
            raise exception.ServiceError(service='Heat',
                                         reason=f'show stack: {exc}')
        return None

    @staticmethod
    def _finished(stack: dict, action: str, started_after: str | None
                  ) -> bool:
        status = stack['stack_status']
        if action == 'DELETE' and status in STACK_GONE:
            return True
        if status.endswith('_IN_PROGRESS'):
            return False
        if started_after is not None and \
                stack.get('updated_time') in (None, started_after):
            return False
        return status.startswith((action + '_', 'ROLLBACK_'))

    @staticmethod
    def _call(what: str, func: Callable, *args: object,
              **kwargs: object) -> object:
        try:
            with keystone.transport_errors('Heat', what):
                return func(*args, **kwargs)
        except heat_exc.HTTPNotFound as exc:
            # the calls that take a stack name it first (an id or a name)
            stack = str(args[0]) if args else ''
            named = f' {stack}' if stack else ''
            raise exception.NotFound(
                kind='stack', id=stack,
                message=f'Heat: {what}{named}: {_text(exc)}')
        except heat_exc.HTTPException as exc:
            raise exception.ServiceError(service='Heat',
                                         reason=f'{what}: {_text(exc)}')


def _text(exc: heat_exc.HTTPException) -> str:
    """heatclient's text of an error answer; its ``str()`` fails with
    AttributeError on a body such as ``{"error": "text"}``."""
    try:
        return str(exc)
    except (AttributeError, KeyError, TypeError):
        return f'HTTP {getattr(exc, "code", "?")}: {exc.error!r}'
