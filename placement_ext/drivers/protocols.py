"""What the core asks of each service driver, as ``typing.Protocol``.

The conductor's runner, the reservation manager and the NFVO stand-in
depend on these interfaces, not on the concrete drivers; the test fakes
(``placement_ext.tests.fixtures``) implement the same ones, and a unit
test checks that the drivers and the fakes both match them, so a fake
cannot drift from the driver it stands for.
"""

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Protocol
from typing import runtime_checkable

from placement_ext.decision import lease_servers
from placement_ext.sol import grant as grant_mod

if TYPE_CHECKING:
    # the group's plain data type, without importing novaclient
    from placement_ext.drivers import nova


@runtime_checkable
class Stacks(Protocol):
    """Heat, as the lifecycle runner drives a VNF's stack
    (:class:`placement_ext.drivers.heat.HeatDriver`)."""

    def find_stack(self, name: str) -> dict | None: ...

    def create_stack(self, name: str, template: dict, parameters: dict,
                     files: dict | None = None, timeout_mins: int = 20,
                     disable_rollback: bool = True) -> str: ...

    def update_stack(self, stack_id: str, parameters: dict,
                     timeout_mins: int = 20, disable_rollback: bool = True,
                     template: dict | None = None,
                     files: dict | None = None) -> None: ...

    def mark_unhealthy(self, stack_id: str, resource_name: str,
                       reason: str) -> None: ...

    def wait(self, stack_id: str, action: str, deadline_s: float,
             started_after: str | None = None) -> object: ...

    def wait_settled(self, stack_id: str, deadline_s: float,
                     status: str | None = None) -> None: ...

    def latest_failure_reason(self, stack_id: str) -> str | None: ...


@runtime_checkable
class Zones(Protocol):
    """Candidate zones and their capacity for one operation
    (:class:`placement_ext.conductor.zone_inputs.ZoneSource`)."""

    def candidates(self, request: dict, restrict_to_grant: bool
                   ) -> tuple[list[str], str]: ...

    def capacity(self, zones: list[str], request: dict, vnfc: str
                 ) -> dict[str, int] | None: ...


@runtime_checkable
class Grants(Protocol):
    """The NFVO's Grant API
    (:class:`placement_ext.drivers.nfvo.NfvoDriver`)."""

    def grant(self, grant_request: dict) -> grant_mod.Grant: ...


@runtime_checkable
class Packages(Protocol):
    """Onboarded VNF packages by VNFD id
    (:class:`placement_ext.drivers.vnfpkgm.VnfPackages`)."""

    def info(self, vnfd_id: str) -> dict: ...

    def content(self, vnfd_id: str) -> bytes: ...

    def vnfd(self, vnfd_id: str) -> bytes: ...


@runtime_checkable
class ReservationCompute(Protocol):
    """Nova, as the reservation manager uses it: hosts, aggregates,
    private flavors, servers, server groups
    (:class:`placement_ext.drivers.nova.NovaDriver`)."""

    def hypervisor(self, name: str) -> object: ...

    def compute_zone(self, service_host: str) -> str: ...

    def ensure_aggregate(self, name: str,
                         metadata: Mapping[str, str]) -> object: ...

    def add_host_to_aggregate(self, aggregate: object, host: str) -> None: ...

    def remove_host_from_aggregate(self, name: str, host: str) -> None: ...

    def aggregate_hosts(self, name: str) -> frozenset[str] | None: ...

    def ensure_private_flavor(self, flavor_id: str, name: str, *,
                              vcpus: int, memory_mb: int, disk_gb: int,
                              extra_specs: Mapping[str, str],
                              project_id: str) -> None: ...

    def revoke_flavor_access(self, flavor_id: str,
                             project_id: str) -> None: ...

    def delete_flavor(self, flavor_id: str) -> None: ...

    def flavors_named(self, prefix: str) -> dict[str, str]: ...

    def servers_with_flavor(self, flavor_id: str
                            ) -> list[lease_servers.Server]: ...

    def servers_by_id(self, server_ids: Iterable[str]
                      ) -> list[lease_servers.Server]: ...

    def delete_servers(self, server_ids: Iterable[str], *, timeout: float,
                       interval: float,
                       progress: Callable[[], None] | None = None
                       ) -> None: ...

    def server_group(self, group_id: str) -> 'nova.ServerGroup | None': ...

    def ensure_server_group(self, name: str, policy: str,
                            exclude: Iterable[str] = ()
                            ) -> 'nova.ServerGroup': ...

    def delete_server_group(self, group_id: str) -> None: ...
