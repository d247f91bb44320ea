"""The conductor's RPC endpoint: one method per RPC method.

Lifecycle operations follow Tacker's shape: ``create_operation`` checks
the request and writes the operation record (STARTING) before any work,
then the client casts ``run_operation`` with the ID only (it runs on
a bounded pool of workers, never on the RPC server's threads), and
``get_operation`` shows progress and every zone attempt. Conductors may
share a database: each operation is driven by the one that claimed it,
and adopted by another when that one stops heart-beating. The diagnostic
``ping`` and ``echo`` come from :class:`placement_ext.rpc_server.Endpoint`.
"""

import functools
import threading

import oslo_messaging
from oslo_log import log as logging

from placement_ext import background
from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import rpc_server
from placement_ext import validation
from placement_ext.conductor import homing
from placement_ext.conductor import homing_inputs
from placement_ext.conductor import k8s_labels
from placement_ext.conductor import lifecycle
from placement_ext.conductor import ownership
from placement_ext.conductor import wiring
from placement_ext.objects import operation as op_obj
from placement_ext.schemas import operation as operation_schema
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)

_UUID = {'type': 'string', 'minLength': 36, 'maxLength': 36}
CREATE_OPERATION_V1_1 = {
    'type': 'object',
    'properties': {'request': operation_schema.OPERATION_REQUEST_V1_0},
    'required': ['request'],
    'additionalProperties': False,
}
OPERATION_ID_V1_1 = {
    'type': 'object',
    'properties': {'operation_id': _UUID},
    'required': ['operation_id'],
    'additionalProperties': False,
}
LIST_OPERATIONS_V1_1 = {
    'type': 'object',
    'properties': {'states': {
        'type': 'array', 'items': {'enum': list(states.OPERATION_STATES)}}},
    'additionalProperties': False,
}
SELECT_CLOUD_V1_2 = {
    'type': 'object',
    'properties': {'request': {'type': 'object'}},  # checked by homing
    'required': ['request'],
    'additionalProperties': False,
}
REALIZE_INTENT_V1_2 = {
    'type': 'object',
    'properties': {'policy': {'type': 'object'},
                   'template': {'type': 'object'},
                   'region_name': {'type': ['string', 'null']},
                   'flavors': {'type': ['array', 'null']}},
    'required': ['policy', 'template'],
    'additionalProperties': False,
}
LABEL_NODES_V1_3 = {
    'type': 'object',
    'properties': {
        'vnf_instance_id': {'type': 'string', 'minLength': 1},
        'stack': {'type': 'string', 'minLength': 1},
        'servers': {'type': 'array', 'minItems': 1,
                    'items': {'type': 'string', 'minLength': 1}},
        'prune': {'type': 'boolean'},
        'dry_run': {'type': 'boolean'}},
    'oneOf': [{'required': ['vnf_instance_id']}, {'required': ['stack']},
              {'required': ['servers']}],
    'additionalProperties': False,
}
_CONTRACT = (exception.InvalidInput, exception.NotFound, exception.Conflict,
             exception.ServiceUnavailable, exception.ServiceError,
             exception.NoRegion, exception.IntentUnrealisable)


class ConductorManager(rpc_server.Endpoint):
    """Endpoint of the conductor, API version 1.3."""

    SERVICE = 'conductor'
    target = oslo_messaging.Target(version='1.3')

    def __init__(self, conf: object, host: str, database: object = None,
                 runner: lifecycle.LifecycleRunner | None = None) -> None:
        super().__init__(conf, host, database)
        self._runner = runner
        self._runner_lock = threading.Lock()
        self._ownership = ownership.Ownership(self.database, host,
                                              conf.conductor)
        self._workers = background.Workers(conf.conductor.operation_workers)
        # calls that read or write other services (regions, Heat, Nova,
        # Kubernetes): a bounded number at once, off the RPC threads
        self._calls = background.Calls(conf.conductor.service_call_workers)
        self._resumed_own = False
        self._region_clients: homing_inputs.RegionClients | None = None

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(CREATE_OPERATION_V1_1)
    def create_operation(self, context: pe_context.RequestContext,
                         request: dict) -> dict:
        op = wiring.create_operation(
            self.database, request,
            self.conf.v2_vnfm.placement_regrant_before_move,
            check_stack=lambda: self._get_runner().check_stack_exists(
                request), request_id=context.request_id)
        LOG.info('Operation %(id)s (%(kind)s of %(vnf)s) created',
                 {'id': op.id, 'kind': op.operation,
                  'vnf': op.vnf_instance_id})
        return op.to_dict()

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(OPERATION_ID_V1_1)
    def run_operation(self, context: pe_context.RequestContext,
                      operation_id: str) -> dict:
        """Hand the operation to a worker (not run on this RPC thread);
        the operation as it is now, with ``waiting`` when every worker
        is busy."""
        op = op_obj.get(self.database, operation_id)
        if self._workers.submit(operation_id, functools.partial(
                self._drive_logged, operation_id)):
            waiting = self._workers.waiting(operation_id)
            LOG.info('Operation %s handed to a worker%s', operation_id,
                     f'; {waiting}' if waiting else '')
        return self._shown(op)

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(OPERATION_ID_V1_1)
    def retry_operation(self, context: pe_context.RequestContext,
                        operation_id: str) -> dict:
        """Make a FAILED_TEMP operation runnable again (then cast run).

        Its failed zones stay failed: the retry starts from the attempts
        already recorded, not from the Grant's zones.
        """
        op = op_obj.get(self.database, operation_id)
        return op_obj.retry(self.database, op).to_dict()

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(OPERATION_ID_V1_1)
    def get_operation(self, context: pe_context.RequestContext,
                      operation_id: str) -> dict:
        return self._shown(op_obj.get(self.database, operation_id))

    def _shown(self, op: op_obj.Operation) -> dict:
        out = op.to_dict()
        waiting = self._workers.waiting(op.id)
        if waiting:
            out['waiting'] = waiting
        return out

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(LIST_OPERATIONS_V1_1)
    def list_operations(self, context: pe_context.RequestContext,
                        states: list | None = None) -> list:
        return [op.to_dict() for op in op_obj.list_operations(
            self.database, tuple(states or ()))]

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(SELECT_CLOUD_V1_2)
    def select_cloud(self, context: pe_context.RequestContext,
                     request: dict) -> dict:
        """The best candidate region (see :func:`homing.select`)."""
        return self._calls.run(functools.partial(
            homing.select, self.conf, request, self._regions()))

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(REALIZE_INTENT_V1_2)
    def realize_intent(self, context: pe_context.RequestContext,
                       policy: dict, template: dict,
                       region_name: str | None = None,
                       flavors: list | None = None) -> dict:
        """The template with the policy's intent realised."""
        return self._calls.run(functools.partial(
            homing.realize, self.conf, policy, template,
            clients=self._regions(), region_name=region_name,
            flavors=flavors))

    @rpc_server.expected_exceptions(*_CONTRACT)
    @validation.schema(LABEL_NODES_V1_3)
    def label_nodes(self, context: pe_context.RequestContext,
                    vnf_instance_id: str | None = None,
                    stack: str | None = None, servers: list | None = None,
                    prune: bool = True, dry_run: bool = False) -> dict:
        """Label the worker Nodes with their VM's compute host, with
        ``[heat]``, ``[nova]`` and ``[kubernetes]``; a VNF instance's
        workers are the servers of its Tacker v2 stack."""
        return self._calls.run(functools.partial(
            self._label_nodes, vnf_instance_id, stack, servers or (),
            prune, dry_run))

    def _label_nodes(self, vnf_instance_id: str | None, stack: str | None,
                     servers: list | tuple, prune: bool,
                     dry_run: bool) -> dict:
        conf = self.conf
        if vnf_instance_id:
            stack = k8s_labels.stack_of(vnf_instance_id)
        nova, heat = k8s_labels.cloud_drivers(conf, stack=bool(stack))
        return k8s_labels.label(
            k8s_labels.kubernetes(conf),
            k8s_labels.workers(nova, heat, ids=servers, stack=stack),
            conf.kubernetes.host_label, prune=prune, dry_run=dry_run)

    def stop(self) -> None:
        """Take no more operations or service calls (see
        :class:`placement_ext.background.Workers`)."""
        self._workers.stop()
        self._calls.stop()

    def _regions(self) -> homing_inputs.RegionClients:
        if self._region_clients is None:
            self._region_clients = homing_inputs.RegionClients(self.conf)
        return self._region_clients

    def heartbeat(self, context: pe_context.RequestContext) -> None:
        """Renew this conductor's claim on the operations it drives.

        A periodic task, not an RPC method of the API. Only operations a
        thread of this conductor drives right now are renewed: one whose
        thread ended without giving it up goes stale and is adopted.
        """
        self._ownership.heartbeat()

    def adopt_operations(self, context: pe_context.RequestContext) -> None:
        """Drive the operations that no live conductor drives.

        A periodic task, not an RPC method of the API; only its first
        run, at start-up, takes this host's own operations (what its
        previous run left), so one that stopped on an unexpected error is
        not run again in a loop. Each adopted operation runs on a worker
        (:class:`~placement_ext.background.Workers`), resuming from its
        recorded attempts.
        """
        include_own, self._resumed_own = not self._resumed_own, True
        for op in op_obj.adoptable(self.database, self.host,
                                   self._ownership.stale_before(),
                                   include_own):
            if self._ownership.driving(op.id) or not self._workers.submit(
                    op.id, functools.partial(self._drive_logged, op.id)):
                continue
            LOG.info('Adopting operation %(id)s (%(state)s, owner '
                     '%(owner)s)', {'id': op.id, 'state': op.state,
                                    'owner': op.owner or 'none'})

    def _drive_logged(self, operation_id: str) -> None:
        """:meth:`drive` on a worker, which has no caller to hand an
        error to: log it."""
        try:
            self.drive(operation_id)
        except exception.ConcurrentUpdate:
            LOG.info('Operation %s was updated by another conductor '
                     'while driven here; leaving it', operation_id)
        except Exception:
            LOG.exception('Operation %s stopped with an error',
                          operation_id)

    def drive(self, operation_id: str) -> op_obj.Operation:
        """Claim the operation, run it, give it up when it stops running.

        A conductor drives an operation at most once at a time (a cast
        and an adoption may ask together), and not at all while another
        live conductor owns it.
        """
        try:
            with self._ownership.owned(operation_id):
                op = self._get_runner().run(operation_id)
        except ownership.NotClaimed as exc:
            LOG.info('%s', exc.detail)
            return op_obj.get(self.database, operation_id)
        # an unexpected error ends the operation FAILED_TEMP in the
        # runner; if even that could not be written (the database failed),
        # the raise keeps the claim, which goes stale (see ownership)
        return op_obj.get(self.database, op.id)

    def _get_runner(self) -> lifecycle.LifecycleRunner:
        with self._runner_lock:
            if self._runner is None:
                self._runner = wiring.build_runner(self.conf, self.database)
            return self._runner
