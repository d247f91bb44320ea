"""Nova flavors as Placement resources: the one mapping every caller uses.

A flavor comes in two shapes: Nova's (``vcpus``, ``ram``, ``disk``, as
the compute API lists it) and our operation request's size (``vcpus``,
``memory_mb``, ``disk_gb``, ``schemas/operation.py``). Both give the
resources of one instance: ``VCPU``, ``MEMORY_MB``, ``DISK_GB``, with
amounts of zero left out (Placement refuses a request for zero).
"""

from collections.abc import Iterable
from collections.abc import Mapping


def resources(flavor: Mapping) -> dict[str, int]:
    """Placement resources of one instance of ``flavor`` (either shape)."""
    amounts = {
        'VCPU': flavor['vcpus'],
        'MEMORY_MB': flavor['memory_mb'] if 'memory_mb' in flavor
        else flavor['ram'],
        'DISK_GB': flavor['disk_gb'] if 'disk_gb' in flavor
        else flavor['disk'],
    }
    return {rc: amount for rc, amount in amounts.items() if amount}


def size(nova_flavor: Mapping) -> dict[str, int]:
    """A Nova flavor as an operation request's size."""
    return {'vcpus': nova_flavor['vcpus'], 'memory_mb': nova_flavor['ram'],
            'disk_gb': nova_flavor['disk']}


def by_name_or_id(nova_flavors: Iterable[Mapping]) -> dict[str, Mapping]:
    """Nova's flavors under their id and under their name (a VNFD or a
    request may name a flavor either way)."""
    found = {}
    for flavor in nova_flavors:
        found[flavor['id']] = found[flavor['name']] = flavor
    return found
