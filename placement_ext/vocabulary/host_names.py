"""Which compute node an operator's host name means.

Operators name a host by its hypervisor hostname or by its nova-compute
service host; the two differ on Ironic-style hosts with several nodes.
An exact hypervisor name wins; a service host must name one node.
"""

from collections.abc import Callable
from collections.abc import Sequence
from typing import TypeVar

from placement_ext import exception

T = TypeVar('T')


def resolve(name: str, nodes: Sequence[T],
            hypervisor: Callable[[T], str],
            service_host: Callable[[T], str], kind: str) -> T:
    """The node ``name`` designates among ``nodes``.

    :raises Conflict: ``name`` is a service host with several nodes.
    :raises NotFound: nothing is called ``name`` (``kind`` names what).
    """
    exact = [node for node in nodes if hypervisor(node) == name]
    if exact:
        return exact[0]
    by_host = [node for node in nodes if service_host(node) == name]
    if len(by_host) > 1:
        raise exception.Conflict(
            reason=f'compute service {name} has several nodes ('
                   + ', '.join(hypervisor(node) for node in by_host)
                   + '); name the hypervisor')
    if not by_host:
        raise exception.NotFound(kind=kind, id=name)
    return by_host[0]
