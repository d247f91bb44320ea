"""Label worker Nodes with their VM's compute host: gather, reconcile.

One path for every caller: ``placement-ext k8s label-nodes``, the
conductor's ``label_nodes`` RPC method and Tacker's management driver
(:mod:`placement_ext.adapters.tacker.k8s_labels_mgmt`). The callers build
the drivers (from our options, or from a VNF instance's VIMs); the plan
is :func:`placement_ext.decision.node_labels.plan`, applied by
:class:`placement_ext.drivers.kubernetes.KubernetesDriver`.

The result is a plain dict, so it crosses RPC unchanged::

    {'changes': [{'node', 'server', 'set', 'remove', 'result'}],
     'unchanged': [node...], 'unmatched_servers': [server id...],
     'notes': [text...]}

``result`` is ``patched``, ``up to date`` (another writer got there
first) or, with ``dry_run``, ``planned``.
"""

import time
from collections.abc import Iterable

from placement_ext import exception
from placement_ext import polling
from placement_ext.decision import node_labels
from placement_ext.drivers import heat as heat_driver
from placement_ext.drivers import keystone
from placement_ext.drivers import kubernetes as k8s_driver
from placement_ext.drivers import nova as nova_driver

# the stack Tacker v2's OpenStack infra driver creates for a VNF instance
TACKER_V2_STACK = 'vnf-{}'
# what wait_for_nodes waits with (tests replace them, not time's own)
_clock = time.monotonic
_sleep = time.sleep


def stack_of(vnf_instance_id: str) -> str:
    return TACKER_V2_STACK.format(vnf_instance_id)


def cloud_drivers(conf: object, stack: bool = False
                  ) -> tuple[nova_driver.NovaDriver,
                             heat_driver.HeatDriver | None]:
    """Nova from ``[nova]`` and, to read a stack, Heat from ``[heat]``."""
    heat = None
    if stack:
        heat = heat_driver.HeatDriver(
            keystone.load_session(conf, 'heat'),
            adapter_kwargs=keystone.adapter_kwargs(conf, 'heat'))
    return nova_driver.NovaDriver(
        keystone.load_session(conf, 'nova'),
        adapter_kwargs=keystone.adapter_kwargs(conf, 'nova')), heat


def kubernetes(conf: object) -> k8s_driver.KubernetesDriver:
    """The Kubernetes API of ``[kubernetes]``."""
    return k8s_driver.KubernetesDriver(k8s_driver.api_client(conf))


def workers(nova: nova_driver.NovaDriver,
            heat: heat_driver.HeatDriver | None = None, *,
            ids: Iterable[str] = (), name_prefix: str | None = None,
            stack: str | None = None) -> list[node_labels.Server]:
    """The worker servers: by id, by name prefix, or a stack's servers.

    :raises NotFound: the stack has no server.
    """
    ids = list(ids)
    if stack:
        ids = heat.stack_servers(stack)
        if not ids:
            raise exception.NotFound(kind='server of Heat stack', id=stack)
    return nova.worker_servers(ids=ids, name_prefix=name_prefix)


def wait_for_nodes(kube: k8s_driver.KubernetesDriver,
                   servers: list[node_labels.Server], timeout: float, *,
                   interval: float = 2.0) -> list[str]:
    """Wait at most ``timeout`` seconds until a Node matches every server;
    the ids of the servers still without one, sorted.

    A kubelet registers its Node only after its VM has booted, while
    Tacker runs ``instantiate_end`` as soon as Heat's stack is complete.
    """
    wanted = {s.id for s in servers}
    missing: list[str] = sorted(wanted)

    def all_there() -> bool | None:
        matched, _ = node_labels.match(servers, kube.nodes())
        missing[:] = sorted(wanted - {s.id for s in matched.values()})
        return True if not missing else None

    polling.until(all_there, timeout=timeout, interval=interval,
                  sleep=_sleep, clock=_clock)
    return missing


def label(kube: k8s_driver.KubernetesDriver,
          servers: list[node_labels.Server], host_label: str, *,
          prune: bool = True, dry_run: bool = False) -> dict:
    """Reconcile the Nodes' labels with ``servers``; the result dict.

    :param prune: ``servers`` is the whole set of workers: our labels
        leave the Nodes that match none of them.
    """
    plan, patched = kube.reconcile(servers, host_label, prune=prune,
                                   dry_run=dry_run)
    return result(plan, patched, dry_run)


def result(plan: node_labels.Plan, patched: list[str],
           dry_run: bool) -> dict:
    def outcome(change: node_labels.NodeChange) -> str:
        if dry_run:
            return 'planned'
        return 'patched' if change.node in patched else 'up to date'

    return {
        'changes': [{'node': c.node, 'server': c.server,
                     'set': dict(c.set), 'remove': dict(c.remove),
                     'result': outcome(c)} for c in plan.changes],
        'unchanged': list(plan.unchanged),
        'unmatched_servers': list(plan.unmatched_servers),
        'notes': list(plan.notes),
    }


def summary(labelled: dict) -> str:
    """One line: what was patched, how many Nodes were already right."""
    done = [f"{c['node']}: {_labels(c['set']) or 'our labels removed'}"
            for c in labelled['changes']]
    parts = [f"{len(labelled['unchanged'])} node(s) unchanged"]
    if labelled['unmatched_servers']:
        parts.append('no node for server(s) '
                     + ', '.join(labelled['unmatched_servers']))
    return '; '.join(done + parts)


def _labels(labels: dict) -> str:
    return ', '.join(f'{k}={v}' for k, v in sorted(labels.items()))
