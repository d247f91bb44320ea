"""The reservation manager's RPC endpoint: one method per RPC method.

Hosts and leases of instance reservations (python-blazarclient's
``host-*`` and ``lease-*`` commands), each validated with a versioned
schema; the work is done by :class:`placement_ext.manager.reservations.
Reservations`. The diagnostic ``ping`` and ``echo`` come from
:class:`placement_ext.rpc_server.Endpoint`. ``process_events`` is the
periodic task, not an RPC method.
"""

import datetime
import threading

import oslo_messaging
from oslo_log import log as logging

from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import rpc_server
from placement_ext import validation
from placement_ext.db import models
from placement_ext.manager import reservations
from placement_ext.objects import event as event_obj
from placement_ext.objects import host as host_obj
from placement_ext.objects import lease as lease_obj
from placement_ext.schemas import reservation as reservation_schema
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_OPTIONAL_NAME = {'anyOf': [{'type': 'null'}, _NAME]}
CREATE_HOST_V1_1 = {
    'type': 'object', 'properties': {'name': _NAME},
    'required': ['name'], 'additionalProperties': False}
HOST_REF_V1_2 = {
    'type': 'object',
    'properties': {'host': {'anyOf': [_NAME, {'type': 'integer'}]}},
    'required': ['host'], 'additionalProperties': False}
NO_ARGS_V1_3 = {'type': 'object', 'properties': {},
                'additionalProperties': False}
CREATE_LEASE_V1_5 = {
    'type': 'object',
    'properties': {'lease': reservation_schema.LEASE_V1_0,
                   'project_id': _OPTIONAL_NAME, 'user_id': _OPTIONAL_NAME},
    'required': ['lease'], 'additionalProperties': False}
LEASE_REF_V1_6 = {
    'type': 'object',
    'properties': {'lease': _NAME, 'project_id': _OPTIONAL_NAME},
    'required': ['lease'], 'additionalProperties': False}
LIST_LEASES_V1_7 = {
    'type': 'object', 'properties': {'project_id': _OPTIONAL_NAME},
    'additionalProperties': False}
_LEASE_STATUSES = (states.LEASE_PENDING, states.LEASE_ACTIVE,
                   states.LEASE_TERMINATED, states.LEASE_ERROR)
LIST_LEASES_V1_10 = {
    'type': 'object',
    'properties': {'project_id': _OPTIONAL_NAME,
                   'status': {'type': ['string', 'null'],
                              'enum': [None, *_LEASE_STATUSES]}},
    'additionalProperties': False}
RECONCILE_V1_9 = {
    'type': 'object', 'properties': {'repair': {'type': 'boolean'}},
    'additionalProperties': False}
_CONTRACT = (exception.InvalidInput, exception.NotFound, exception.Conflict,
             exception.ServiceUnavailable, exception.ServiceError)


class ReservationManager(rpc_server.Endpoint):
    """Endpoint of the reservation manager, API version 1.10."""

    SERVICE = 'manager'
    target = oslo_messaging.Target(version='1.10')

    def __init__(self, conf: object, host: str, database: object = None,
                 service: reservations.Reservations | None = None) -> None:
        super().__init__(conf, host, database)
        self._reservations = service
        self._lock = threading.Lock()

    # -- hosts ----------------------------------------------------------------

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(CREATE_HOST_V1_1)
    def create_host(self, context: pe_context.RequestContext,
                    name: str) -> dict:
        return self._workflows().hosts.create(name).to_dict()

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(HOST_REF_V1_2)
    def get_host(self, context: pe_context.RequestContext,
                 host: str | int) -> dict:
        return host_obj.find(self.database, host).to_dict()

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(NO_ARGS_V1_3)
    def list_hosts(self, context: pe_context.RequestContext) -> list:
        return [h.to_dict() for h in host_obj.list_hosts(self.database)]

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(HOST_REF_V1_2)
    def delete_host(self, context: pe_context.RequestContext,
                    host: str | int) -> None:
        self._workflows().hosts.delete(str(host))

    # -- leases ---------------------------------------------------------------

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(CREATE_LEASE_V1_5)
    def create_lease(self, context: pe_context.RequestContext, lease: dict,
                     project_id: str | None = None,
                     user_id: str | None = None) -> dict:
        """Reserve; the owner is ``project_id``, else the caller's."""
        owner = project_id or context.project_id
        if not owner:
            raise exception.InvalidInput(
                field='project_id',
                reason='the lease needs an owner project (the project '
                       'that may boot its flavor); the caller has none')
        return self._workflows().leases.create(
            lease, owner, user_id or context.user_id or '').to_dict()

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(LEASE_REF_V1_6)
    def get_lease(self, context: pe_context.RequestContext, lease: str,
                  project_id: str | None = None) -> dict:
        return lease_obj.find(self.database, lease,
                              self._scope(context, project_id)).to_dict()

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(LIST_LEASES_V1_10)
    def list_leases(self, context: pe_context.RequestContext,
                    project_id: str | None = None,
                    status: str | None = None) -> list:
        return [lease.to_dict() for lease in lease_obj.list_leases(
            self.database, self._scope(context, project_id))
            if status is None or lease.status == status]

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(LEASE_REF_V1_6)
    def delete_lease(self, context: pe_context.RequestContext, lease: str,
                     project_id: str | None = None) -> None:
        self._workflows().delete_lease(lease,
                                       self._scope(context, project_id))

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(RECONCILE_V1_9)
    def reconcile(self, context: pe_context.RequestContext,
                  repair: bool = False) -> dict:
        return self._workflows().reconciler.run(repair=repair)

    # -- periodic task (not RPC) ---------------------------------------------

    def process_events(self, context: pe_context.RequestContext) -> None:
        """Start and end the leases whose time has come: the periodic
        task of manager/service.py, refused over RPC (no schema)."""
        # Nova and Placement clients are built only when there is work:
        # a manager without [nova]/[placement] settings (embedded in a
        # CLI run that has nothing to do with leases) stays quiet.
        if self.database is None or not event_obj.due_events(
                self.database, *self._event_window()):
            return
        for outcome in self._workflows().events.run_due():
            LOG.info('Lease %(lease)s: %(type)s %(result)s',
                     {'lease': outcome.lease_id, 'type': outcome.event_type,
                      'result': outcome.result})

    def _event_window(self) -> tuple:
        now = models.utcnow()
        return now, now - datetime.timedelta(
            seconds=self.conf.reservation.event_stale_after)

    def _workflows(self) -> reservations.Reservations:
        """The workflows, with drivers built on first use."""
        with self._lock:
            if self._reservations is None:
                self._reservations = reservations.Reservations.from_conf(
                    self.conf, self.database)
            return self._reservations

    @staticmethod
    def _scope(context: pe_context.RequestContext,
               project_id: str | None) -> str | None:
        """Admins see every project (or the one named); others theirs."""
        if context.is_admin:
            return project_id
        return context.project_id
