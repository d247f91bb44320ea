"""The conductor's RPC endpoint: one method per RPC method.

Lifecycle operations follow Tacker's shape: ``create_operation`` checks
the request and writes the operation record (STARTING) before any work,
then the client casts ``run_operation`` with the ID only, and
``get_operation`` shows progress and every zone attempt. The diagnostic
``ping`` and ``echo`` come from :class:`placement_ext.rpc.Endpoint`.
"""

import functools
import threading

import oslo_messaging
from oslo_log import log as logging

from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import rpc
from placement_ext import validation
from placement_ext.conductor import lifecycle
from placement_ext.conductor import stack_request
from placement_ext.conductor import zone_inputs
from placement_ext.db import models
from placement_ext.drivers import heat as heat_driver
from placement_ext.drivers import keystone
from placement_ext.drivers import nova as nova_driver
from placement_ext.drivers import placement as placement_driver
from placement_ext.objects import operation as op_obj
from placement_ext.schemas import operation as operation_schema

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
        'type': 'array', 'items': {'enum': list(models.OPERATION_STATES)}}},
    'additionalProperties': False,
}
_CONTRACT = (exception.InvalidInput, exception.NotFound, exception.Conflict)


class ConductorManager(rpc.Endpoint):
    """Endpoint of the conductor, API version 1.1."""

    SERVICE = 'conductor'
    target = oslo_messaging.Target(version='1.1')

    def __init__(self, conf: object, host: str, database: object = None,
                 runner: lifecycle.LifecycleRunner | None = None) -> None:
        super().__init__(conf, host, database)
        self._runner = runner
        self._runner_lock = threading.Lock()

    @oslo_messaging.expected_exceptions(*_CONTRACT)
    @validation.schema(CREATE_OPERATION_V1_1)
    def create_operation(self, context: pe_context.RequestContext,
                         request: dict) -> dict:
        stack_request.validate(request)
        op = op_obj.create(
            self.database, vnf_instance_id=request['vnf_instance_id'],
            operation=request['operation'], params=request,
            placement=request['placement'], request_id=context.request_id)
        LOG.info('Operation %(id)s (%(kind)s of %(vnf)s) created',
                 {'id': op.id, 'kind': op.operation,
                  'vnf': op.vnf_instance_id})
        return op.to_dict()

    @oslo_messaging.expected_exceptions(*_CONTRACT)
    @validation.schema(OPERATION_ID_V1_1)
    def run_operation(self, context: pe_context.RequestContext,
                      operation_id: str) -> dict:
        return self._get_runner().run(operation_id).to_dict()

    @oslo_messaging.expected_exceptions(*_CONTRACT)
    @validation.schema(OPERATION_ID_V1_1)
    def retry_operation(self, context: pe_context.RequestContext,
                        operation_id: str) -> dict:
        """Make a FAILED_TEMP operation runnable again (then cast run).

        Its failed zones stay failed: the retry starts from the attempts
        already recorded, not from the Grant's zones.
        """
        op = op_obj.get(self.database, operation_id)
        if op.state != models.STATE_FAILED_TEMP:
            raise exception.Conflict(
                reason=f'operation {op.id} is {op.state}; only FAILED_TEMP '
                       f'operations can be retried')
        return op_obj.set_state(self.database, op,
                                models.STATE_PROCESSING).to_dict()

    @oslo_messaging.expected_exceptions(*_CONTRACT)
    @validation.schema(OPERATION_ID_V1_1)
    def get_operation(self, context: pe_context.RequestContext,
                      operation_id: str) -> dict:
        return op_obj.get(self.database, operation_id).to_dict()

    @oslo_messaging.expected_exceptions(*_CONTRACT)
    @validation.schema(LIST_OPERATIONS_V1_1)
    def list_operations(self, context: pe_context.RequestContext,
                        states: list | None = None) -> list:
        return [op.to_dict() for op in op_obj.list_operations(
            self.database, tuple(states or ()))]

    def resume_interrupted(self, context: pe_context.RequestContext
                           ) -> None:
        """Finish operations a stopped conductor left running.

        Not an RPC method of the API (it is run once at start-up); it
        runs each in turn, each resuming from its recorded attempts.
        """
        for op in op_obj.list_operations(self.database,
                                         op_obj.RUNNABLE_STATES):
            LOG.info('Resuming operation %(id)s (%(state)s)',
                     {'id': op.id, 'state': op.state})
            self._get_runner().run(op.id)

    def _get_runner(self) -> lifecycle.LifecycleRunner:
        with self._runner_lock:
            if self._runner is None:
                self._runner = build_runner(self.conf, self.database)
            return self._runner


def build_runner(conf: object, database: object
                 ) -> lifecycle.LifecycleRunner:
    """The runner with drivers built from ``[heat]``, ``[nova]``,
    ``[placement]``."""
    session = functools.partial(keystone.load_session, conf)
    heat = heat_driver.HeatDriver(
        session('heat'), adapter_kwargs=keystone.adapter_kwargs(conf, 'heat'))
    nova = nova_driver.NovaDriver(
        session('nova'), adapter_kwargs=keystone.adapter_kwargs(conf, 'nova'))
    placement = placement_driver.PlacementDriver.from_conf(conf)
    return lifecycle.LifecycleRunner(
        database, heat, zone_inputs.ZoneSource(nova, placement),
        lifecycle.Settings.from_conf(conf))
