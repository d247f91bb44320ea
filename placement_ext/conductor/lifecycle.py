"""Run one lifecycle operation: stack create/update with zone reselection.

The loop (Tacker's "Availability zone reselection" specification): send
the stack create or update with the current placement; on a capacity
failure, mark the zone failed for the VNFC Heat names, ask
:mod:`placement_ext.decision.zone_reselection` for a new placement and
try again, until success, no zone is left, or a limit is reached. Any
other failure ends the operation at once with Heat's text. With
``[v2_vnfm] placement_az_precheck``,
:mod:`placement_ext.decision.zone_precheck` first moves the targets
Placement says cannot fit where they were granted, and after a failure
the other targets of the zone Heat found full.

Every try is an attempt row written before it is sent, so a conductor
that stops half-way resumes the operation without repeating a failed
zone. Deciding is left to ``decision/``; this module only gathers inputs
(Heat's reason, Nova's zones, Placement's capacity) and applies outputs.

Longer than 400 lines on purpose: the loop, its pre-check and its
re-grant step read and write the same operation and attempt records in
one order; apart, each would need the others' bookkeeping.
"""

import dataclasses
import random
import re
import time
from collections.abc import Callable

from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import exception
from placement_ext.conductor import stack_request
from placement_ext.conductor import zone_inputs
from placement_ext.db import api as db_api
from placement_ext.decision import heat_failure
from placement_ext.decision import regrant
from placement_ext.decision import retry_policy
from placement_ext.decision import zone_precheck
from placement_ext.decision import zone_reselection
from placement_ext.drivers import heat as heat_driver
from placement_ext.drivers import protocols
from placement_ext.objects import operation as op_obj
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)
_SIBLING_CANCELLED = re.compile(r'\b(?:CREATE|UPDATE) cancelled\b|'
                                r'Operation cancelled')


@dataclasses.dataclass(frozen=True)
class Settings:
    """The ``[v2_vnfm]`` options the loop obeys."""

    capacity_error: re.Pattern
    strategy: str = zone_reselection.STRATEGY_CAPACITY
    limits: retry_policy.RetryLimits = retry_policy.RetryLimits()
    stack_timeout_minutes: int = 20
    rollback: bool = False
    restrict_to_grant: bool = False
    regrant: bool = False
    precheck: bool = True

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> 'Settings':
        opts = conf.v2_vnfm
        return cls(
            capacity_error=re.compile(opts.placement_az_resource_error),
            strategy=opts.placement_az_select_strategy,
            limits=retry_policy.RetryLimits(
                opts.placement_az_select_retry,
                opts.placement_az_select_timeout),
            stack_timeout_minutes=opts.openstack_vim_stack_create_timeout,
            rollback=opts.enable_rollback_stack,
            restrict_to_grant=opts.placement_az_restrict_to_grant,
            regrant=opts.placement_regrant_before_move,
            precheck=opts.placement_az_precheck)


class LifecycleRunner:
    """Drive operations to a terminal state; safe to call again on resume.

    :param zone_source: where candidate zones and their capacity come
        from (:class:`placement_ext.conductor.zone_inputs.ZoneSource`).
    :param nfvo: grants moves when ``settings.regrant``
        (:class:`placement_ext.drivers.nfvo.NfvoDriver`).
    """

    def __init__(self, database: db_api.Database,
                 heat: protocols.Stacks, zone_source: protocols.Zones,
                 settings: Settings,
                 clock: Callable[[], float] = time.monotonic,
                 nfvo: protocols.Grants | None = None) -> None:
        self._db = database
        self._heat = heat
        self._zones = zone_source
        self._settings = settings
        self._clock = clock
        self._nfvo = nfvo

    def check_stack_exists(self, request: dict) -> None:
        """Refuse a HEAL or SCALE of a stack Heat does not have: it has
        nothing to change, and the request no template to create from.

        :raises InvalidInput: naming ``stack_name``.
        :raises ServiceUnavailable: Heat (or Keystone) cannot be reached.
        """
        if self._heat.find_stack(request['stack_name']) is None:
            raise exception.InvalidInput(
                field='stack_name',
                reason=f'Heat has no stack {request["stack_name"]!r}; '
                       f'{request["operation"]} changes an existing stack')

    def run(self, operation_id: str,
            sent: heat_driver.StackOutcome | None = None
            ) -> op_obj.Operation:
        """Drive the operation to a terminal (or FAILED_TEMP) state.

        :param sent: the failed outcome of the granted placement, when the
            host service (tacker-conductor) sent the first create or
            update itself: it is recorded as the first attempt and the
            loop goes on as after any failure of ours.
        """
        op = op_obj.get(self._db, operation_id)
        if op.state not in op_obj.RUNNABLE_STATES:
            LOG.info('Operation %(id)s is %(state)s; nothing to run',
                     {'id': op.id, 'state': op.state})
            return op
        if op.state == states.STATE_STARTING:
            op = op_obj.set_state(self._db, op, states.STATE_PROCESSING)
        started = self._clock()
        try:
            if sent is not None and not op.attempts:
                op, retry = self._after_sent(op, sent, started)
                if not retry:
                    return op
            return self._loop(op, started=started)
        except exception.ConcurrentUpdate:
            # another conductor (or a duplicate cast) drives it now
            LOG.info('Operation %s changed under us; leaving it to the '
                     'writer that changed it', op.id)
            return op_obj.get(self._db, op.id)
        except exception.PlacementExtError as exc:
            return self._fail_retryable(op.id, exc)
        except Exception as exc:
            # a bug or an unmapped library error: the operation must still
            # end, retryable, with the cause on its record
            LOG.exception('Operation %s stopped by an unexpected error',
                          op.id)
            return self._fail_retryable(op.id, exception.PlacementExtError(
                message=f'unexpected error: {type(exc).__name__}: {exc}'))

    def _fail_retryable(self, operation_id: str,
                        exc: exception.PlacementExtError
                        ) -> op_obj.Operation:
        op = op_obj.get(self._db, operation_id)
        if op.in_flight:
            op = op_obj.finish_attempt(
                self._db, op, outcome=states.OUTCOME_ERROR,
                duration_s=0.0, error_text=exc.detail)
        return self._fail(op, states.STATE_FAILED_TEMP, exc)

    def _loop(self, op: op_obj.Operation, started: float
              ) -> op_obj.Operation:
        if not op.attempts:
            op = self._start_first_attempt(op)
        elif self._stopped_before_moving(op):
            op, retry = self._move_on(op, op.attempts[-1].vdu_id, started)
            if not retry:
                return op
        elif op.in_flight is None:
            op = self._start_again(op)
        retry = True
        while retry:
            begun = self._clock()
            outcome = self._send_or_resume(op, started)
            took = self._clock() - begun
            if outcome.succeeded:
                op = op_obj.finish_attempt(
                    self._db, op, outcome=states.OUTCOME_SUCCESS,
                    duration_s=took)
                LOG.info('Operation %(id)s completed with %(placement)s',
                         {'id': op.id, 'placement': op.placement})
                return op_obj.set_state(self._db, op,
                                        states.STATE_COMPLETED)
            op, retry = self._after_failure(op, outcome, took, started)
        return op

    def _after_sent(self, op: op_obj.Operation,
                    sent: heat_driver.StackOutcome, started: float) -> tuple:
        """Record the host service's own try as the first attempt."""
        first = op.params['targets'][0]
        op = op_obj.start_attempt(
            self._db, op, vdu_id=first, zone=op.placement[first],
            placement=op.placement,
            decision={'reasons': ['placement as granted, sent by the '
                                  'host service']})
        return self._after_failure(op, sent, 0.0, started)

    @staticmethod
    def _stopped_before_moving(op: op_obj.Operation) -> bool:
        """The last attempt lacked capacity and no move was started (the
        conductor stopped, or the move's Grant failed): reselect, rather
        than send the failed zone again."""
        last = op.attempts[-1]
        return (last.outcome == states.OUTCOME_INSUFFICIENT_CAPACITY
                and op.in_flight is None)

    def _start_again(self, op: op_obj.Operation) -> op_obj.Operation:
        """A retry after an error (a service failed or timed out): the
        same placement is sent again as a new attempt, so its outcome is
        recorded on an attempt of its own."""
        last = op.attempts[-1]
        return op_obj.start_attempt(
            self._db, op, vdu_id=last.vdu_id,
            zone=op.placement.get(last.vdu_id, last.zone),
            placement=op.placement,
            decision={'reasons': [f'retry: the placement of attempt '
                                  f'{last.seq} again, after its error']})

    def _start_first_attempt(self, op: op_obj.Operation) -> op_obj.Operation:
        result, decision = None, {'reasons': ['placement as granted']}
        if self._settings.precheck:
            result, decision = self._prechecked(op)
        if result is None:
            first = op.params['targets'][0]
            return op_obj.start_attempt(
                self._db, op, vdu_id=first, zone=op.placement[first],
                placement=op.placement, decision=decision)
        return self._start_move(op, result, decision)

    def _prechecked(self, op: op_obj.Operation) -> tuple:
        """Move what cannot fit before the first attempt; return (result
        or None, decision). Regranted like any move. Without flavors, or
        with Nova or Placement unreadable, the grant goes as it is."""
        params = op.params
        granted = 'placement as granted'
        if not any(stack_request.flavor_resources(params, vnfc)
                   for vnfc in params['targets']):
            return None, {'reasons': [
                granted, 'pre-check: no target has a flavor in the '
                         'request, so its room is unknown']}
        seed = f'{op.id}:{len(op.attempts)}'
        try:
            zones, _ = self._zones.candidates(
                params, self._settings.restrict_to_grant)
            request = self._reselection_request(op, zones, None)
            result, fits, note = self._precheck(op, request, None, seed)
        except (exception.ServiceUnavailable, exception.ServiceError) as exc:
            LOG.warning('Operation %(id)s: no capacity pre-check: '
                        '%(detail)s', {'id': op.id, 'detail': exc.detail})
            return None, {'reasons': [
                granted, f'pre-check skipped: {exc.detail}']}
        reasons = list(result.reasons) + [note]
        if not result.moved:
            return None, {'reasons': [granted, *reasons]}
        grant = None
        if self._settings.regrant:
            result, grant = self._granted(op, request, result)
            reasons = list(result.reasons) + [note]
        return result, self._decision(result, seed, grant, None, zones,
                                      reasons, {'precheck': True,
                                                'room': fits})

    def _precheck(self, op: op_obj.Operation,
                  request: zone_reselection.ReselectionRequest,
                  full_zone: str | None, seed: str,
                  read: dict | None = None) -> tuple:
        """(result, room read, note) of a pre-check of ``request``'s
        placement; after a failure only ``full_zone`` is judged
        (``read``: the room the reselection just read, VNFC -> zone -> n,
        not read again)."""
        params = op.params
        allowed, note = zone_precheck.allowed_zones(
            request.zones, params.get('grant_zones'), params['placement'],
            params['targets'])
        fits = zone_inputs.capacity_by_target(
            self._zones, list(request.zones), params, read)
        result = zone_precheck.precheck(
            zone_precheck.PrecheckRequest(
                zones=allowed, placement=request.placement,
                targets=request.targets, fits=fits,
                constraints=request.constraints, failed=request.failed,
                judged=None if full_zone is None else [full_zone]),
            strategy=self._settings.strategy,
            rng=random.Random(f'{seed}:precheck'))
        return result, fits, note

    def _send_or_resume(self, op: op_obj.Operation, started: float
                        ) -> heat_driver.StackOutcome:
        """Send the in-flight attempt, or wait for it if Heat still runs it.

        Resending an attempt a stopped conductor had already sent is
        harmless: an update to the same parameters changes nothing.
        """
        params, heat = op.params, self._heat
        deadline = self._attempt_timeout(started) * 60
        stack = heat.find_stack(params['stack_name'])
        if stack and stack['stack_status'].endswith('_IN_PROGRESS'):
            action = stack['stack_status'].split('_', 1)[0]
            return heat.wait(stack['id'], action, deadline)
        parameters = stack_request.stack_parameters(params, op.placement)
        timeout = self._attempt_timeout(started)
        rollback_off = not self._settings.rollback
        if stack is None:
            if params['operation'] != 'INSTANTIATE':
                # deleted since the request was accepted: nothing to heal
                # or scale, and no template to create it from
                raise exception.NotFound(kind='stack',
                                         id=params['stack_name'])
            stack_id = heat.create_stack(
                params['stack_name'], params['template'], parameters,
                files=params.get('files'), timeout_mins=timeout,
                disable_rollback=rollback_off)
            return heat.wait(stack_id, 'CREATE', deadline)
        heat.wait_settled(stack['id'], deadline, status=stack['stack_status'])
        if params['operation'] == 'HEAL' and len(op.attempts) == 1:
            for name in params.get('heal_resources', ()):
                heat.mark_unhealthy(stack['id'], name, f'heal by {op.id}')
        heat.update_stack(stack['id'], parameters, timeout_mins=timeout,
                          disable_rollback=rollback_off,
                          template=params.get('template'),
                          files=params.get('files'))
        return heat.wait(stack['id'], 'UPDATE', deadline,
                         started_after=stack.get('updated_time'))

    def _attempt_timeout(self, started: float) -> int:
        return retry_policy.attempt_timeout_minutes(
            self._settings.limits, self._settings.stack_timeout_minutes,
            started, self._clock())

    def _after_failure(self, op: op_obj.Operation,
                       outcome: heat_driver.StackOutcome, took: float,
                       started: float) -> tuple:
        """Record the failure; return (op, whether to try again)."""
        reason = self._failure_reason(outcome)
        failure = heat_failure.classify(
            reason, self._settings.capacity_error, op.placement)
        if not failure.reselectable or \
                failure.vdu_id not in op.params['targets']:
            op = op_obj.finish_attempt(
                self._db, op, outcome=states.OUTCOME_ERROR, duration_s=took,
                error_text=reason)
            if failure.reselectable:
                reason = (f'{reason} ({failure.vdu_id} is not a target of '
                          f'this operation, so it is not moved)')
            return self._fail(op, states.STATE_FAILED_TEMP,
                              exception.StackFailed(
                                  stack=op.params['stack_name'],
                                  reason=reason)), False
        op = op_obj.finish_attempt(
            self._db, op, outcome=states.OUTCOME_INSUFFICIENT_CAPACITY,
            duration_s=took, vdu_id=failure.vdu_id,
            zone=op.placement[failure.vdu_id], error_text=reason)
        return self._move_on(op, failure.vdu_id, started)

    def _move_on(self, op: op_obj.Operation, failed_vnfc: str,
                 started: float) -> tuple[op_obj.Operation, bool]:
        """After a capacity failure: stop at a limit, or reselect."""
        verdict = retry_policy.should_stop(
            self._settings.limits, len(op.attempts) - 1, started,
            self._clock())
        if verdict.stop:
            return self._exhausted(op, verdict.reason), False
        return self._reselect(op, failed_vnfc)

    def _failure_reason(self, outcome: heat_driver.StackOutcome) -> str:
        # After a rollback the stack's own reason only says it rolled back;
        # and when one resource fails Heat cancels its siblings, whose
        # "Stack UPDATE cancelled" can become the stack's reason (seen on
        # the embedded cloud). Either way the failed event says why,
        # unless the reason given is already a capacity failure (Tacker
        # read the event before handing its failed try to us).
        if heat_failure.is_capacity(outcome.reason,
                                   self._settings.capacity_error):
            return outcome.reason
        if outcome.status.startswith('ROLLBACK') or \
                _SIBLING_CANCELLED.search(outcome.reason):
            return (self._heat.latest_failure_reason(outcome.stack_id)
                    or outcome.reason)
        return outcome.reason

    def _reselect(self, op: op_obj.Operation, failed_vnfc: str
                  ) -> tuple[op_obj.Operation, bool]:
        params = op.params
        zones, note = self._zones.candidates(params,
                                             self._settings.restrict_to_grant)
        capacity = None
        if self._settings.strategy == zone_reselection.STRATEGY_CAPACITY:
            capacity = self._zones.capacity(zones, params, failed_vnfc)
        seed = f'{op.id}:{len(op.attempts)}'
        request = self._reselection_request(op, zones, capacity)
        result = zone_reselection.reselect(
            request, strategy=self._settings.strategy,
            rng=random.Random(seed))
        if result.exhausted or not result.moved:
            return self._exhausted(op, 'no availability zone is left'), False
        notes, extra = [note] if note else [], {}
        if self._settings.precheck:
            result, extra['room'], also = self._also_full(
                op, request, result, op.placement[failed_vnfc], seed,
                None if capacity is None else {failed_vnfc: capacity})
            notes.append(also)
        grant = None
        if self._settings.regrant:
            result, grant = self._granted(op, request, result)
        decision = self._decision(result, seed, grant, capacity, zones,
                                  list(result.reasons) + notes, extra)
        return self._start_move(op, result, decision), True

    def _also_full(self, op: op_obj.Operation,
                   request: zone_reselection.ReselectionRequest,
                   result: zone_reselection.ReselectionResult,
                   full_zone: str, seed: str, read: dict | None) -> tuple:
        """After a capacity failure: also move the other targets of the
        zone Heat found full; (result, room read, note)."""
        moved = dataclasses.replace(request, placement=result.placement)
        checked, fits, note = self._precheck(op, moved, full_zone, seed,
                                             read)
        return zone_reselection.result_for(
            request, checked.placement, False,
            [*result.reasons, *checked.reasons]), fits, note

    def _reselection_request(self, op: op_obj.Operation, zones: list[str],
                             capacity: dict | None
                             ) -> zone_reselection.ReselectionRequest:
        params = op.params
        return zone_reselection.ReselectionRequest(
            zones=zones, placement=op.placement, targets=params['targets'],
            constraints=stack_request.constraints(params),
            failed=op.failed_zones, capacity=capacity)

    def _decision(self, result: zone_reselection.ReselectionResult,
                  seed: str, grant: dict | None, capacity: dict | None,
                  zones: list[str], reasons: list[str],
                  extra: dict | None = None) -> dict:
        """The attempt's record of why the VNFCs moved (``extra``: the
        pre-check's flag and the room it read, VNFC -> zone -> n)."""
        decision = {'strategy': self._settings.strategy, 'seed': seed,
                    'grant': grant, 'moved': result.moved,
                    'broken': [c.to_dict() for c in result.broken],
                    'capacity': capacity, 'zones': list(zones),
                    'reasons': reasons}
        return {**decision, **(extra or {})}

    def _start_move(self, op: op_obj.Operation,
                    result: zone_reselection.ReselectionResult,
                    decision: dict) -> op_obj.Operation:
        moved = sorted(result.moved)
        LOG.info('Operation %(id)s: moving %(moved)s; %(reasons)s',
                 {'id': op.id, 'moved': result.moved,
                  'reasons': '; '.join(decision['reasons'])})
        return op_obj.start_attempt(
            self._db, op, vdu_id=moved[0], zone=result.placement[moved[0]],
            placement=dict(result.placement), decision=decision)

    def _granted(self, op: op_obj.Operation,
                 request: zone_reselection.ReselectionRequest,
                 proposal: zone_reselection.ReselectionResult) -> tuple:
        """Ask the NFVO to grant the move; return (result, grant record).

        The Grant decides where the targets go; the proposal is what we
        tell the NFVO. A refusal raises GrantRefused.
        """
        params = op.params
        names = params.get('resource_names', {})
        targets = params['targets']
        grant = self._nfvo.grant(regrant.move_request(
            params['grant_request'], attempt=len(op.attempts),
            proposed={vnfc: proposal.placement[vnfc] for vnfc in targets},
            failed=op.failed_zones, resource_names=names))
        zones = regrant.granted_placement(grant, targets, op.failed_zones,
                                          names)
        overridden = sorted(vnfc for vnfc, zone in zones.items()
                            if zone != proposal.placement[vnfc])
        if overridden:
            places = ', '.join(f'{vnfc} in {zones[vnfc]}'
                               for vnfc in overridden)
            reason = (f'NFVO Grant {grant.id} places {places} instead of '
                      f'the proposal')
        else:
            reason = f'NFVO Grant {grant.id} agrees with the proposal'
        result = zone_reselection.result_for(
            request, {**proposal.placement, **zones}, False,
            [*proposal.reasons, reason])
        return result, {'id': grant.id, 'zones': zones,
                        'overridden': overridden}

    def _exhausted(self, op: op_obj.Operation, why: str) -> op_obj.Operation:
        tried = '; '.join(
            f'{vnfc} in {", ".join(zones)}'
            for vnfc, zones in sorted(op.failed_zones.items()))
        last = op.attempts[-1].error_text if op.attempts else None
        return self._fail(op, states.STATE_FAILED, exception.ZonesExhausted(
            reason=f'Zone reselection stopped: {why}. Tried without '
                   f'capacity: {tried}.'
                   + (f' Last Heat error: {last}' if last else '')))

    def _fail(self, op: op_obj.Operation, state: str,
              error: exception.PlacementExtError) -> op_obj.Operation:
        LOG.warning('Operation %(id)s %(state)s: %(detail)s',
                    {'id': op.id, 'state': state, 'detail': error.detail})
        return op_obj.set_state(self._db, op, state, error=error.to_dict())
