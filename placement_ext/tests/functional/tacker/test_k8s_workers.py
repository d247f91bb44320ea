"""The k8s sample package (samples/vnf_packages/k8s_workers) through the
real Tacker 16 and ``placement-ext-tacker-conductor`` on the embedded
cloud: onboarded, instantiated, scaled out and healed through Tacker's
v2 API; Tacker itself runs the management driver the VNFD declares
(``Vnflcm`` ``instantiate_end``, ``scale_end``, ``heal_end``: the
package's ``Scripts/k8s_labels.py``). After each step every worker's
Node on the Kubernetes stand-in carries the compute host the real Nova
placed its VM on.

No kubelet runs in the fake VMs: :class:`Kubelets` registers a Node for
each server of the VNF's stack once Nova has it ACTIVE, with the provider
ID the OpenStack cloud provider sets. The VNF's settings (instance
``metadata``) name the stand-in's kubeconfig and make the driver wait
for those Nodes (``node_wait``), as it must for kubelets that join after
their VM boots.
"""

import threading
import uuid

import fixtures
import yaml

from placement_ext.decision import node_labels as nl
from placement_ext.testing import kube_apiserver as kas
from placement_ext.testing import tacker_mgmt as tm
from placement_ext.tests.functional.cloud import fixture
from placement_ext.tests.functional.tacker import base

ZONE = 'topology.kubernetes.io/zone'
WORKER = 'workerNode'
CONTROL_PLANE_TAINT = {'key': 'node-role.kubernetes.io/control-plane',
                       'effect': 'NoSchedule'}
# what Tacker's DefaultUserData cannot find in the sample's VNFD (no
# images, flavors or external networks there): the embedded cloud's,
# and no ports (its nested templates boot servers without any)
NFV = {'VDU': {vdu: {'computeFlavourId': fixture.FLAVOR,
                     'vcImageId': fixture.IMAGE}
               for vdu in ('masterNode', WORKER)},
       'CP': {cp: {'network': 'none'}
              for cp in ('masterNode_CP1', 'workerNode_CP1')}}


class Kubelets:
    """A Node for each ACTIVE server of the VNF's stack, registered by a
    thread polling Heat and Nova (``conn``: openstacksdk, admin)."""

    def __init__(self, conn: object, kube: kas.KubeApiServer,
                 inst_id: str) -> None:
        self.conn, self.kube, self.inst_id = conn, kube, inst_id
        self.node_of: dict[str, str] = {}      # server id -> Node name
        self.error: Exception | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> 'Kubelets':
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(1):
            try:
                self._register()
                self.error = None
            except Exception as exc:     # shown by the test's assertions
                self.error = exc

    def _register(self) -> None:
        stack = self.conn.orchestration.find_stack(f'vnf-{self.inst_id}')
        if stack is None:
            return
        for res in tm.stack_resources(self.conn, stack):
            server_id = res['physical_resource_id']
            if (res['resource_type'] != 'OS::Nova::Server' or not server_id
                    or server_id in self.node_of):
                continue
            server = self.conn.compute.find_server(server_id,
                                                   ignore_missing=True)
            if server is None or server.status != 'ACTIVE':
                continue
            vdu = res['resource_name']
            name = f'{vdu.lower()}-{len(self.node_of)}'
            self.kube.add_node(
                name, f'10.0.0.{len(self.node_of) + 1}',
                provider_id=f'openstack:///{server.id}',
                taints=None if vdu == WORKER else [CONTROL_PLANE_TAINT])
            self.node_of[server.id] = name


class TestSampleK8sPackageInTacker(base.TackerTestCase):

    def setUp(self):
        super().setUp()
        self.kube = kas.KubeApiServer().start()
        self.addCleanup(self.kube.stop)
        kubeconfig = self.useFixture(fixtures.TempDir()).join('kubeconfig')
        with open(kubeconfig, 'w') as stream:
            yaml.safe_dump(kas.kubeconfig(self.kube.host), stream)
        self.settings = {'worker_vdus': [WORKER], 'kubeconfig': kubeconfig,
                         'node_wait': 120}

    def test_instantiate_scale_out_heal_label_the_workers(self):
        vnfd_id = str(uuid.uuid4())
        self.tacker.upload_package(tm.package_csar(self.addon['venv'],
                                                   vnfd_id))
        inst_id = self.tacker.create_instance(
            vnfd_id, fixture.unique_name('k8s'),
            metadata={'placement_ext_k8s': self.settings})
        self.addCleanup(self.tacker.terminate_and_delete, inst_id)
        # a connection of its own: the thread polls beside the test
        self.kubelets = Kubelets(fixture.connect(self.cloud.clouds_yaml,
                                                 'admin'),
                                 self.kube, inst_id).start()
        self.addCleanup(self.kubelets.stop)

        self.assertCompleted(self.tacker.wait(self.tacker.lcm(
            inst_id, 'instantiate', {
                'flavourId': 'default', 'vimConnectionInfo': self.vim(),
                'additionalParams': {'nfv': NFV}})))
        workers = self.assertLabelled(inst_id, 2)

        self.assertCompleted(self.tacker.wait(self.tacker.lcm(
            inst_id, 'scale', {'type': 'SCALE_OUT',
                               'aspectId': 'worker_scale',
                               'numberOfSteps': 1})))
        scaled = self.assertLabelled(inst_id, 3)
        self.assertLess(set(workers), set(scaled))

        # heal one worker: Heat replaces its VM, whose kubelet registers
        # a new Node; the old VM's Node lingers and loses our labels
        healed = next(iter(workers))
        inst = self.tacker.instance(inst_id)
        res_id = next(r['id'] for r in inst['instantiatedVnfInfo'][
            'vnfcResourceInfo'] if r['computeResource'][
                'resourceId'] == healed)
        vnfc_info_id = next(v['id'] for v in inst['instantiatedVnfInfo'][
            'vnfcInfo'] if v['vnfcResourceInfoId'] == res_id)
        self.assertCompleted(self.tacker.wait(self.tacker.lcm(
            inst_id, 'heal', {'vnfcInstanceId': [vnfc_info_id]})))
        after = self.assertLabelled(inst_id, 3)
        self.assertNotIn(healed, after)
        self.assertLess(set(scaled) - {healed}, set(after))
        old = self.labels(self.kubelets.node_of[healed])
        self.assertNotIn(ZONE, old)
        self.assertNotIn(nl.COMPUTE_HOST_KEY, old)

    def labels(self, node: str) -> dict:
        return self.kube.cluster.get('Node', '', node)['metadata']['labels']

    def assertLabelled(self, inst_id: str, count: int) -> dict[str, str]:
        """Every worker's Node has its VM's compute host (from Nova),
        the master's none; the workers' hosts differ (anti-affinity).
        {server id: host} of the workers."""
        self.assertIsNone(self.kubelets.error)
        vnfcs = self.tacker.instance(inst_id)['instantiatedVnfInfo'][
            'vnfcResourceInfo']
        hosts, nodes = {}, {}
        for vnfc in vnfcs:
            server = self.cloud.admin.compute.get_server(
                vnfc['computeResource']['resourceId'])
            labels = self.labels(self.kubelets.node_of[server.id])
            if vnfc['vduId'] != WORKER:
                self.assertNotIn(ZONE, labels)
                continue
            hosts[server.id] = server.compute_host
            nodes[server.id] = {k: labels.get(k)
                                for k in (ZONE, nl.COMPUTE_HOST_KEY)}
        self.assertEqual(count, len(hosts), vnfcs)
        self.assertEqual(count, len(set(hosts.values())), hosts)
        self.assertEqual({s: {ZONE: h, nl.COMPUTE_HOST_KEY: h}
                          for s, h in hosts.items()}, nodes)
        return hosts
