"""What a host service's LCM step means for our operation.

Inside tacker-conductor our operation runs within Tacker's LCM operation
occurrence (SOL 003 VnfLcmOpOcc): Tacker's try failed, ours reselects.
When ours does not complete, Tacker's occurrence is FAILED_TEMP and the
operator retries, rolls back or fails it there. These pure functions say
what that means for our operation, from its state and whether a live
process holds its claim (heartbeat younger than the takeover timeout):

* :func:`on_retry`: Tacker retries its occurrence;
* :func:`on_host_end`: Tacker's occurrence ended (rolled back, failed).
"""

from placement_ext.vocabulary import states

RESUME = 'resume'        # FAILED_TEMP: runnable again, its failed zones kept
ADOPT = 'adopt'          # runnable, its owner stopped: claim it and run it
WAIT = 'wait'            # runnable, a live process drives it: await its end
REUSE = 'reuse'          # COMPLETED: the stack has its zones already
START_NEW = 'start_new'  # ended otherwise: nothing to resume

_RUNNABLE = (states.STATE_STARTING, states.STATE_PROCESSING)
# Tacker's terminal LcmOperationStateType values -> ours. COMPLETED with
# ours unended: another conductor (Tacker's own, before ours was swapped
# in again) completed the occurrence without ours, which did not
# complete: it ends FAILED, its cause kept
HOST_ENDS = {'FAILED': states.STATE_FAILED,
             'ROLLED_BACK': states.STATE_ROLLED_BACK,
             'COMPLETED': states.STATE_FAILED}


def on_retry(state: str, claim_live: bool) -> str:
    """What a retry of the host's occurrence does with our operation.

    FAILED (every zone tried, or a limit reached) and ROLLED_BACK start
    anew: the operator retries after freeing room, which the zones ours
    found full may now have.
    """
    if state == states.STATE_FAILED_TEMP:
        return RESUME
    if state in _RUNNABLE:
        return WAIT if claim_live else ADOPT
    if state == states.STATE_COMPLETED:
        return REUSE
    return START_NEW


def on_host_end(state: str, claim_live: bool,
                host_state: str | None) -> str | None:
    """Our end state once the host's occurrence is ``host_state`` (None:
    unknown, or not ended), or None to leave ours as it is.

    Only an operation nobody drives is ended: FAILED_TEMP, or runnable
    with a stale claim (its process stopped, as Tacker's did). A live run
    is left to finish; a COMPLETED one keeps what it did. An occurrence
    COMPLETED while ours had not ended was completed without ours (by
    Tacker's own conductor, swapped in meanwhile: our retry resumes ours
    before Tacker's stack request): ours ends FAILED.
    """
    ended = HOST_ENDS.get(host_state or '')
    if ended is None:
        return None
    if state == states.STATE_FAILED_TEMP or (state in _RUNNABLE
                                             and not claim_live):
        return ended
    return None
