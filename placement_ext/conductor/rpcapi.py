"""Client side of the conductor RPC API (``[conductor] topic``).

API version history (bump the minor version per added method; guard it
with ``can_send_version``):

* 1.0 - ping, echo
* 1.1 - create_operation, run_operation, retry_operation, get_operation,
  list_operations
"""

from placement_ext import context as pe_context
from placement_ext import rpc

V_OPERATIONS = '1.1'


class ConductorAPI(rpc.ServiceAPI):
    """Build one per process: the RPC client is built once, in __init__."""

    SERVICE = 'conductor'
    VERSION = '1.1'

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
