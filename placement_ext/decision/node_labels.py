"""Which Kubernetes worker node gets which compute-host labels (pure).

Tacker's hardware-aware pod affinity needs every worker Node to carry
the compute host its VM runs on, under the topologyKey that the CNF's
``podAntiAffinity`` terms use. :func:`plan` reconciles, it does not only
add:

* a Node is matched to a server by its provider ID
  (``openstack:///<server id>``, set by the OpenStack cloud provider) or,
  failing that, by an ``InternalIP`` the server has; never by name. A Node
  whose address belongs to several servers is left alone, with a note;
* the host is Nova's ``OS-EXT-SRV-ATTR:host`` (admin only); when Nova
  hides it the per-project ``hostId`` is used instead, with a note: it is
  an opaque hash, stable per project and host, fine as a topology domain
  but not a host name;
* a value that differs (after heal or migration) is overwritten;
* OUR labels leave Nodes whose server is gone; a Node is ours when it
  carries :data:`COMPUTE_HOST_KEY`, and the host label is only removed
  while it still holds the value we set (another writer's value stays);
* no other label is touched.

:func:`label_patch` turns a :class:`NodeChange` into the label part of a
merge patch against a Node's current labels, so a writer that lost a
race re-applies the same intent to a fresh read.
"""

import dataclasses
import re
from collections.abc import Iterable
from collections.abc import Mapping

COMPUTE_HOST_KEY = 'placement-ext.openstack.org/compute-host'
PROVIDER_PREFIX = 'openstack:///'
# a label value: at most 63 characters, alphanumeric at both ends
_VALUE = re.compile(r'^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$')


@dataclasses.dataclass(frozen=True)
class Server:
    """A worker VM as Nova shows it."""

    id: str
    name: str
    addresses: frozenset[str]
    host: str | None = None
    host_id: str | None = None


@dataclasses.dataclass(frozen=True)
class Node:
    """A Kubernetes Node: what matching and reconciling need."""

    name: str
    internal_ips: frozenset[str]
    provider_id: str | None
    labels: Mapping[str, str]
    resource_version: str | None = None


@dataclasses.dataclass(frozen=True)
class NodeChange:
    """Labels to set on a Node, and labels to remove from it while they
    still hold the given value."""

    node: str
    set: Mapping[str, str]
    remove: Mapping[str, str]
    server: str | None = None


@dataclasses.dataclass(frozen=True)
class Plan:
    changes: tuple[NodeChange, ...]
    unchanged: tuple[str, ...]
    unmatched_servers: tuple[str, ...]
    notes: tuple[str, ...]


def host_of(server: Server) -> tuple[str | None, str | None]:
    """(label value, note): the compute host, else the hostId."""
    if server.host:
        return server.host, None
    if server.host_id:
        return server.host_id, (
            f'server {server.id}: compute host hidden by Nova policy '
            '(OS-EXT-SRV-ATTR:host is admin only); labelled with the '
            'per-project hostId, an opaque hash of the host')
    return None, f'server {server.id}: Nova shows neither host nor hostId'


def match(servers: Iterable[Server], nodes: Iterable[Node]
          ) -> tuple[dict[str, Server], list[str]]:
    """({node name: its server}, notes); provider ID first, then a
    single server owning one of the Node's InternalIPs."""
    servers = list(servers)
    by_id = {s.id: s for s in servers}
    matched: dict[str, Server] = {}
    notes = []
    for node in nodes:
        server_id = _provider_server(node.provider_id)
        if server_id is not None:
            if server_id in by_id:
                matched[node.name] = by_id[server_id]
            continue
        owners = {s.id: s for s in servers
                  if s.addresses & node.internal_ips}
        if len(owners) == 1:
            matched[node.name] = next(iter(owners.values()))
        elif owners:
            notes.append(f'node {node.name}: InternalIPs belong to servers '
                         f'{", ".join(sorted(owners))}; left alone')
    return matched, notes


def plan(servers: Iterable[Server], nodes: Iterable[Node],
         host_label: str, *, prune: bool = True) -> Plan:
    """The label changes that make ``nodes`` show their servers' hosts.

    :param servers: the worker servers; with ``prune`` ALL of them, as a
        Node of ours that matches none loses our labels.
    :param prune: remove our labels from Nodes matching no server.
    """
    servers, nodes = list(servers), list(nodes)
    matched, notes = match(servers, nodes)
    keys = _our_keys(host_label)
    changes, unchanged = [], []
    for node in nodes:
        server = matched.get(node.name)
        if server is None:
            change = _stale(node, keys) if prune else None
        else:
            change, note = _wanted(node, server, keys)
            notes += [note] if note else []
        if change is None:
            unchanged.append(node.name)
        else:
            changes.append(change)
    seen = {s.id for s in matched.values()}
    unmatched = tuple(sorted(s.id for s in servers if s.id not in seen))
    notes += [f'server {s}: no Node matches it by provider ID or '
              'InternalIP' for s in unmatched]
    return Plan(tuple(changes), tuple(unchanged), unmatched, tuple(notes))


def label_patch(labels: Mapping[str, str], change: NodeChange
                ) -> dict[str, str | None]:
    """The ``metadata.labels`` of a merge patch applying ``change`` to a
    Node whose labels are now ``labels``; {} when nothing is to do."""
    patch: dict[str, str | None] = {
        key: value for key, value in change.set.items()
        if labels.get(key) != value}
    patch.update({key: None for key, value in change.remove.items()
                  if key not in change.set and labels.get(key) == value})
    return patch


def _our_keys(host_label: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys((host_label, COMPUTE_HOST_KEY)))


def _wanted(node: Node, server: Server, keys: tuple[str, ...]
            ) -> tuple[NodeChange | None, str | None]:
    host, note = host_of(server)
    if host is None:
        return None, note
    if not _VALUE.match(host):
        return None, (f'server {server.id}: {host!r} is not a valid label '
                      'value (63 characters at most, alphanumeric ends)')
    change = NodeChange(node.name, {key: host for key in keys}, {},
                        server=server.id)
    return (change if label_patch(node.labels, change) else None), note


def _stale(node: Node, keys: tuple[str, ...]) -> NodeChange | None:
    """Our labels off a Node whose server is gone (or not a worker)."""
    ours = node.labels.get(COMPUTE_HOST_KEY)
    if ours is None:
        return None
    remove = {key: ours for key in keys if node.labels.get(key) == ours}
    return NodeChange(node.name, {}, remove)


def _provider_server(provider_id: str | None) -> str | None:
    if provider_id and provider_id.startswith(PROVIDER_PREFIX):
        return provider_id[len(PROVIDER_PREFIX):].rsplit('/', 1)[-1] or None
    return None
