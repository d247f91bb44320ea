"""Client side of the conductor RPC API (``[conductor] topic``).

API version history (bump the minor version per added method; guard it
with ``can_send_version``):

* 1.0 - ping, echo
* 1.1 - create_operation, run_operation, retry_operation, get_operation,
  list_operations
* 1.2 - select_cloud, realize_intent
* 1.3 - label_nodes
"""

from placement_ext import context as pe_context
from placement_ext import rpc_client

V_OPERATIONS = '1.1'
V_HOMING = '1.2'
V_K8S = '1.3'


class ConductorAPI(rpc_client.ServiceAPI):
    """Build one per process: the RPC client is built once, in __init__."""

    SERVICE = 'conductor'
    VERSION = '1.3'

    def start_operation(self, context: pe_context.RequestContext,
                        request: dict) -> dict:
        """Record the operation, then have a conductor run it."""
        op = self._call(context, 'create_operation', request=request,
                        version=V_OPERATIONS)
        self.run_operation(context, op['id'])
        return op

    def run_operation(self, context: pe_context.RequestContext,
                      operation_id: str) -> None:
        self.client.prepare(version=V_OPERATIONS).cast(
            context, 'run_operation', operation_id=operation_id)

    def retry_operation(self, context: pe_context.RequestContext,
                        operation_id: str) -> dict:
        op = self._call(context, 'retry_operation',
                        operation_id=operation_id, version=V_OPERATIONS)
        self.run_operation(context, operation_id)
        return op

    def get_operation(self, context: pe_context.RequestContext,
                      operation_id: str) -> dict:
        return self._call(context, 'get_operation',
                          operation_id=operation_id, version=V_OPERATIONS)

    def list_operations(self, context: pe_context.RequestContext,
                        states: list | None = None) -> list:
        kwargs = {'states': states} if states else {}
        return self._call(context, 'list_operations', version=V_OPERATIONS,
                          **kwargs)

    def select_cloud(self, context: pe_context.RequestContext,
                     request: dict) -> dict:
        """The best candidate region for a cloud selection request."""
        return self._call(context, 'select_cloud', request=request,
                          version=V_HOMING)

    def realize_intent(self, context: pe_context.RequestContext,
                       policy: dict, template: dict,
                       region_name: str | None = None,
                       flavors: list | None = None) -> dict:
        """A Heat template with a policy's deployment intent realised."""
        return self._call(context, 'realize_intent', policy=policy,
                          template=template, region_name=region_name,
                          flavors=flavors, version=V_HOMING)

    def label_nodes(self, context: pe_context.RequestContext, *,
                    vnf_instance_id: str | None = None,
                    stack: str | None = None,
                    servers: list | None = None, prune: bool = True,
                    dry_run: bool = False) -> dict:
        """Label the worker Nodes with their VM's compute host (one of
        ``vnf_instance_id``, ``stack``, ``servers``); see
        :mod:`placement_ext.conductor.k8s_labels` for the result."""
        source = {k: v for k, v in (('vnf_instance_id', vnf_instance_id),
                                    ('stack', stack), ('servers', servers))
                  if v is not None}
        return self._call(context, 'label_nodes', prune=prune,
                          dry_run=dry_run, version=V_K8S, **source)
