"""Client side of the reservation manager RPC API (``[manager] topic``).

API version history (bump the minor version per added method; guard it
with ``can_send_version``):

* 1.0 - ping, echo
* 1.1 - create_host
* 1.2 - get_host
* 1.3 - list_hosts
* 1.4 - delete_host
* 1.5 - create_lease
* 1.6 - get_lease
* 1.7 - list_leases
* 1.8 - delete_lease
* 1.9 - reconcile
* 1.10 - list_leases takes status (and each lease has
  status_changed_at, None when a 1.9 service wrote it)
"""

from placement_ext import context as pe_context
from placement_ext import rpc_client

# Creating and deleting leases waits for Nova and Placement (a lease's
# servers are deleted and waited for, up to [reservation]
# server_delete_timeout): allow more than the default
# rpc_response_timeout. Host calls take seconds and keep it, so a
# stopped manager is reported in time. A caller's deadline (the CLI's
# --timeout) replaces both.
LONG_CALL_TIMEOUT = 900


class ManagerAPI(rpc_client.ServiceAPI):
    """Build one per process: the RPC client is built once, in __init__."""

    SERVICE = 'manager'
    VERSION = '1.10'

    def create_host(self, context: pe_context.RequestContext,
                    name: str) -> dict:
        return self._call(context, 'create_host', name=name, version='1.1')

    def get_host(self, context: pe_context.RequestContext,
                 host: str) -> dict:
        return self._call(context, 'get_host', host=host, version='1.2')

    def list_hosts(self, context: pe_context.RequestContext) -> list:
        return self._call(context, 'list_hosts', version='1.3')

    def delete_host(self, context: pe_context.RequestContext,
                    host: str) -> None:
        return self._call(context, 'delete_host', host=host, version='1.4')

    def create_lease(self, context: pe_context.RequestContext, lease: dict,
                     project_id: str | None = None,
                     user_id: str | None = None) -> dict:
        return self._call(context, 'create_lease', lease=lease,
                          project_id=project_id, user_id=user_id,
                          version='1.5', timeout=LONG_CALL_TIMEOUT)

    def get_lease(self, context: pe_context.RequestContext, lease: str,
                  project_id: str | None = None) -> dict:
        return self._call(context, 'get_lease', lease=lease,
                          project_id=project_id, version='1.6')

    def list_leases(self, context: pe_context.RequestContext,
                    project_id: str | None = None,
                    status: str | None = None) -> list:
        """The leases (of ``status`` only, if given: filtered by the
        manager from 1.10, here while the API is capped below it)."""
        if status is None:
            return self._call(context, 'list_leases', project_id=project_id,
                              version='1.7')
        if self.can_send_version('1.10'):
            return self._call(context, 'list_leases', project_id=project_id,
                              status=status, version='1.10')
        return [lease for lease in self._call(
            context, 'list_leases', project_id=project_id, version='1.7')
            if lease['status'] == status]

    def delete_lease(self, context: pe_context.RequestContext, lease: str,
                     project_id: str | None = None) -> None:
        return self._call(context, 'delete_lease', lease=lease,
                          project_id=project_id, version='1.8',
                          timeout=LONG_CALL_TIMEOUT)

    def reconcile(self, context: pe_context.RequestContext,
                  repair: bool = False) -> dict:
        return self._call(context, 'reconcile', repair=repair, version='1.9',
                          timeout=LONG_CALL_TIMEOUT)
