"""Demo step: Kubernetes workers on distinct compute hosts, labelled with
them, and pods that follow the labels (Tacker's hardware-aware pod affinity).

The sample package (``samples/vnf_packages/k8s_workers``) is deployed by
Heat as Tacker v2 would (stack ``vnf-demo-k8s``): its anti-affinity
server group puts the two worker VMs on different compute hosts. The
workers register as Nodes of the Kubernetes API stand-in (no real
kube-apiserver can run here), the package's management script runs as
Tacker runs it for ``instantiate_end`` and labels each Node with its
VM's host, then three replicas with required pod anti-affinity on that
label are scheduled: two land on the two hosts, the third stays Pending.
The picture shows the worker VMs, their labels and where the pods went.
"""

import dataclasses
import pathlib
import tempfile
import time

import openstack

from demo import cloud
from demo import picture
from demo import showcase
from demo import snapshot
from demo import steps
from placement_ext.decision import node_labels
from placement_ext.testing import kube_apiserver as kas
from placement_ext.testing import tacker_mgmt

VNF_ID = 'demo-k8s'
STACK = f'vnf-{VNF_ID}'
KEY = 'topology.kubernetes.io/zone'
SETTINGS = {'placement_ext_k8s': {'worker_vdus': ['workerNode']}}
TAINT = {'key': 'node-role.kubernetes.io/control-plane',
         'effect': 'NoSchedule'}


def run(conn: openstack.connection.Connection, clouds_yaml: str,
        path: pathlib.Path, quota: cloud.Quota) -> None:
    """The whole step; writes the picture to ``path``."""
    reset(conn)                         # an earlier run's, if it left one
    quota.ensure(3, 'the master and 2 worker VMs')
    vnfcs = deploy(conn)
    kube = kas.KubeApiServer().start()
    try:
        names = register(kube, vnfcs)
        label(clouds_yaml, kube, vnfcs)
        pods = schedule(kube)
        draw(conn, kube, names, pods, path)
    finally:
        kube.stop()


def deploy(conn: openstack.connection.Connection) -> list[tuple]:
    """The package's stack, as Tacker v2 creates it; its (VDU, server)."""
    nfv = tacker_mgmt.nfv_parameter(showcase.FLAVOR, showcase.IMAGE, 2)
    stack = tacker_mgmt.create_stack(conn, STACK, nfv)
    while stack.status in ('CREATE_IN_PROGRESS', None, ''):
        time.sleep(2)
        stack = conn.orchestration.get_stack(stack.id)
    if stack.status != 'CREATE_COMPLETE':
        raise steps.StepFailed(f'stack {STACK}: {stack.status}: '
                               f'{stack.status_reason}')
    vnfcs = [(vdu, server) for vdu, server, _ in
             tacker_mgmt.stack_vnfcs(conn, stack)]
    for vdu, server in vnfcs:
        print(f'  {vdu} VM {server.id[:8]} on {server.compute_host}')
    print('  the workers are in one anti-affinity server group '
          '(Definitions: AntiAffinityRule on the PlacementGroup "workers")')
    return vnfcs


def register(kube: kas.KubeApiServer, vnfcs: list[tuple]) -> dict:
    """Each VM's kubelet registers its Node; server id -> Node name."""
    names, workers = {}, 0
    for vdu, server in vnfcs:
        master = vdu == 'masterNode'
        name = 'master-0' if master else f'worker-{workers}'
        workers += not master
        kube.add_node(name, f'10.0.0.{len(names) + 10}',
                      provider_id=f'openstack:///{server.id}',
                      taints=[TAINT] if master else None)
        names[server.id] = name
    return names


def label(clouds_yaml: str, kube: kas.KubeApiServer,
          vnfcs: list[tuple]) -> None:
    inst = tacker_mgmt.vnf_instance(
        VNF_ID, [(vdu, server.id) for vdu, server in vnfcs],
        tacker_mgmt.vims(clouds_yaml, 'admin', kube.host),
        metadata=SETTINGS)
    with tempfile.NamedTemporaryFile(suffix='.conf') as conf:
        result = tacker_mgmt.run_script(
            tacker_mgmt.payload('instantiate_end', inst),
            env={'PLACEMENT_EXT_CONFIG_FILES': conf.name})
    if result.returncode != 0:
        raise steps.StepFailed('the management script (instantiate_end) '
                               f'failed: {result.stderr.decode()}')
    print('  instantiate_end (Scripts/k8s_labels.py, run as Tacker runs '
          'it) labelled:')
    for node in kube.cluster.list('Node', ''):
        labels = node['metadata']['labels']
        print(f"    {node['metadata']['name']}: {KEY}="
              f"{labels.get(KEY, '(none: not a worker)')}")


def schedule(kube: kas.KubeApiServer) -> list[dict]:
    """Three replicas with required anti-affinity on the host label."""
    print(f'  3 replicas of "cache", required podAntiAffinity, '
          f'topologyKey {KEY}:')
    pods = []
    for n in range(3):
        pod = kube.create_pod('default', kas.anti_affine_pod(
            f'cache-{n}', 'cache', KEY))
        node = pod['spec'].get('nodeName')
        if node:
            host = kube.cluster.get('Node', '', node)['metadata'][
                'labels'][KEY]
            print(f'    cache-{n} -> {node} (compute host {host})')
        else:
            reason = pod['status']['conditions'][0]
            print(f"    cache-{n} Pending: {reason['reason']}: "
                  f"{reason['message']}")
        pods.append(pod)
    return pods


def draw(conn: openstack.connection.Connection, kube: kas.KubeApiServer,
         names: dict, pods: list[dict], path: pathlib.Path) -> None:
    """Hosts with the cluster's VMs (and their label) and the pods."""
    nodes = {n['metadata']['name']: n for n in kube.cluster.list('Node', '')}
    labels = {}
    for server_id, name in names.items():
        host = nodes[name]['metadata']['labels'].get(
            node_labels.COMPUTE_HOST_KEY)
        labels[server_id] = f'{name} VM' + (f' (label {host})'
                                            if host else '')
    by_node = {}
    for pod in pods:
        node = pod['spec'].get('nodeName')
        if node:
            by_node.setdefault(node, []).append(
                picture.Item(f"pod {pod['metadata']['name']}", 'pod'))
    pending = [p['metadata']['name'] for p in pods
               if not p['spec'].get('nodeName')]
    node_of = {labels[server_id]: name for server_id, name in names.items()}
    zones = []
    for zone in snapshot.zones(conn, labels):
        # each VM followed by the pods on its Node
        hosts = tuple(dataclasses.replace(host, items=tuple(
            shown for item in host.items for shown in
            (item, *by_node.get(node_of.get(item.label), ()))))
            for host in zone.hosts)
        zones.append(dataclasses.replace(zone, hosts=hosts))
    title = 'placement_ext demo: Kubernetes workers and their pods'
    if pending:
        title += f" ({', '.join(pending)} Pending: no third compute host)"
    path.write_text(picture.render(title, zones))
    print(f'  wrote {path} (open it in a browser)')


def reset(conn: openstack.connection.Connection) -> None:
    """Delete the step's stack; wait until it and its VMs are gone."""
    cloud.delete_stack(conn, STACK)
