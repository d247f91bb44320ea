"""``placement-ext-conductor``: the lifecycle operation service."""

from placement_ext import service
from placement_ext.conductor import service as conductor_service


def main(argv: list[str] | None = None) -> int:
    return service.run_service('placement-ext-conductor',
                               conductor_service.create_service, argv)
