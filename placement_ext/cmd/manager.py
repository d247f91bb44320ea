"""``placement-ext-manager``: the reservation host and lease service."""

from placement_ext.cmd import rpc_service
from placement_ext.manager import service as manager_service


def main(argv: list[str] | None = None) -> int:
    return rpc_service.main('placement-ext-manager',
                            manager_service.create_service, argv)
