"""Stable error codes: ``placement_ext.<noun>.<condition>``.

A code is never changed or reused once released; callers (CLI, RPC
clients, the operation record) match on these strings, not on messages.
"""

INVALID_INPUT = 'placement_ext.input.invalid'
NOT_FOUND = 'placement_ext.resource.not_found'
CONFLICT = 'placement_ext.resource.conflict'
CONCURRENT_UPDATE = 'placement_ext.concurrent_update'
SERVICE_UNAVAILABLE = 'placement_ext.service.unavailable'
SERVICE_ERROR = 'placement_ext.service.error'
SERVICE_FORBIDDEN = 'placement_ext.service.forbidden'
INTERNAL = 'placement_ext.internal'
GRANT_REFUSED = 'placement_ext.grant.refused'
SERVICE_TOO_OLD = 'placement_ext.service.too_old'
STACK_FAILED = 'placement_ext.stack.failed'
ZONES_EXHAUSTED = 'placement_ext.zone.exhausted'
HOST_ENDED = 'placement_ext.operation.host_ended'
NO_CAPACITY = 'placement_ext.reservation.no_capacity'
NO_REGION = 'placement_ext.homing.no_region'
INTENT_UNREALISABLE = 'placement_ext.homing.intent_unrealisable'
