"""``placement-ext-conductor``: the lifecycle operation service."""

from placement_ext.cmd import rpc_service
from placement_ext.conductor import service as conductor_service


def main(argv: list[str] | None = None) -> int:
    return rpc_service.main('placement-ext-conductor',
                            conductor_service.create_service, argv)
