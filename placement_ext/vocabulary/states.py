"""State and type names of the stored entities, by domain.

The values the objects layer and the services compare with: leases,
their reservations and events (Blazar's names), lifecycle operations and
their zone attempts (SOL 003's), and homing plans (ONAP HAS's). Kept
apart from the table definitions (``db/models.py`` reads them for its
CHECK constraints) so a reader of a state machine finds its states here,
not among the columns. Pure constants: this module imports nothing.
"""

# Lease and reservation statuses (blazar ``blazar/status.py``). Not CHECK
# constraints: the lease state machine belongs to the lease manager.
LEASE_PENDING = 'PENDING'
LEASE_ACTIVE = 'ACTIVE'
LEASE_TERMINATED = 'TERMINATED'
LEASE_ERROR = 'ERROR'
RESERVATION_PENDING = 'pending'
RESERVATION_ACTIVE = 'active'
RESERVATION_DELETED = 'deleted'
RESERVATION_ERROR = 'error'

# Lease events (blazar ``events.event_type`` / ``events.status``).
EVENT_START_LEASE = 'start_lease'
EVENT_END_LEASE = 'end_lease'
EVENT_TYPES = (EVENT_START_LEASE, EVENT_END_LEASE)
EVENT_UNDONE = 'UNDONE'
EVENT_IN_PROGRESS = 'IN_PROGRESS'
EVENT_DONE = 'DONE'
EVENT_ERROR = 'ERROR'
EVENT_STATUSES = (EVENT_UNDONE, EVENT_IN_PROGRESS, EVENT_DONE, EVENT_ERROR)

# Reservation resource types (blazar plugin resource_type).
RESOURCE_TYPE_INSTANCE = 'virtual:instance'
# Blazar's flavor-based instance reservation, served as an instance one
RESOURCE_TYPE_FLAVOR = 'flavor:instance'

# Lifecycle operations: SOL003 LcmOperationType and LcmOperationStateType
# values (uppercase, as in the SOL data model and Tacker's lcmocc).
OPERATION_INSTANTIATE = 'INSTANTIATE'
OPERATION_SCALE = 'SCALE'
OPERATION_HEAL = 'HEAL'
OPERATION_TYPES = (OPERATION_INSTANTIATE, OPERATION_SCALE, OPERATION_HEAL)
STATE_STARTING = 'STARTING'
STATE_PROCESSING = 'PROCESSING'
STATE_COMPLETED = 'COMPLETED'
STATE_FAILED_TEMP = 'FAILED_TEMP'
STATE_FAILED = 'FAILED'
STATE_ROLLING_BACK = 'ROLLING_BACK'
STATE_ROLLED_BACK = 'ROLLED_BACK'
OPERATION_STATES = (STATE_STARTING, STATE_PROCESSING, STATE_COMPLETED,
                    STATE_FAILED_TEMP, STATE_FAILED, STATE_ROLLING_BACK,
                    STATE_ROLLED_BACK)

# Zone attempt outcomes; NULL while the attempt is running. Not a CHECK
# constraint: error classification is expected to grow (quota, timeout).
OUTCOME_SUCCESS = 'success'
OUTCOME_INSUFFICIENT_CAPACITY = 'insufficient_capacity'
OUTCOME_ERROR = 'error'

# ONAP HAS plan statuses, as HAS moves a plan through them (solved
# asynchronously; no reserving): template -> translated -> solving ->
# solved -> done, or not found / error.
PLAN_TEMPLATE = 'template'
PLAN_TRANSLATED = 'translated'
PLAN_SOLVING = 'solving'
PLAN_SOLVED = 'solved'
PLAN_DONE = 'done'
PLAN_NOT_FOUND = 'not found'
PLAN_ERROR = 'error'
PLAN_UNFINISHED = (PLAN_TEMPLATE, PLAN_TRANSLATED, PLAN_SOLVING)
PLAN_STATUSES = (*PLAN_UNFINISHED, PLAN_SOLVED, PLAN_DONE, PLAN_NOT_FOUND,
                 PLAN_ERROR)
# a plan interrupted this many times (its process stopped) ends "error"
MAX_PLAN_ATTEMPTS = 3
