"""Hardware-aware pod anti-affinity, end to end on the embedded cloud.

The sample package's VNFD (samples/vnf_packages/k8s_workers) is
translated and deployed by Heat as Tacker v2 would (stack ``vnf-<id>``,
the ``nfv`` parameter): two worker VMs in an anti-affinity server group
and a master. The workers become Nodes of the Kubernetes API stand-in
(provider ID ``openstack:///<server id>``, as the OpenStack cloud
provider sets it). The package's management script then runs exactly as
Tacker runs it (a subprocess with the pickled request on stdin), for
``instantiate_end`` and, after a heal that recreates a worker on another
host, ``heal_end``.
"""

import json
import os
import subprocess
import sys
import uuid

import fixtures
import yaml

from placement_ext.decision import node_labels as nl
from placement_ext.testing import cloud_config
from placement_ext.testing import kube_apiserver as kas
from placement_ext.testing import tacker_mgmt as tm
from placement_ext.tests.functional.cloud import base
from placement_ext.tests.functional.cloud import fixture

ZONE = 'topology.kubernetes.io/zone'
NFV = tm.nfv_parameter(fixture.FLAVOR, fixture.IMAGE, workers=2)
SETTINGS = {'placement_ext_k8s': {'worker_vdus': ['workerNode']}}
CONTROL_PLANE_TAINT = {'key': 'node-role.kubernetes.io/control-plane',
                       'effect': 'NoSchedule'}


class TestWorkerLabels(base.CloudTestCase):

    def setUp(self):
        super().setUp()
        self.admin = self.cloud.admin
        self.kube = kas.KubeApiServer().start()
        self.addCleanup(self.kube.stop)
        self.inst_id = str(uuid.uuid4())
        self.vims = tm.vims(self.cloud.clouds_yaml, 'admin', self.kube.host)
        conf = self.useFixture(fixtures.TempDir()).join('tacker.conf')
        open(conf, 'w').close()
        self.env = {'PLACEMENT_EXT_CONFIG_FILES': conf}

    # -- the VNF --------------------------------------------------------

    def deploy(self):
        stack = tm.create_stack(self.admin, f'vnf-{self.inst_id}', NFV)
        stack = self.cloud.wait_stack(self.admin, stack.id, action='CREATE')
        self.assertEqual('CREATE_COMPLETE', stack.status,
                         stack.status_reason)
        return stack

    def vnfcs(self, stack):
        return tm.stack_vnfcs(self.admin, stack)

    def hook(self, operation, vnfcs):
        inst = tm.vnf_instance(self.inst_id,
                               [(vdu, s.id) for vdu, s, _ in vnfcs],
                               self.vims, metadata=SETTINGS,
                               vim_connection_id='vim-os')
        result = tm.run_script(tm.payload(operation, inst), env=self.env)
        self.assertEqual(0, result.returncode, result.stderr.decode())
        return result.stderr.decode()

    def heal(self, stack, server_resource):
        """Tacker v2's heal of one VNFC: mark the AutoScalingGroup member
        holding the server (its parent resource) unhealthy, then update
        the stack as it is."""
        orchestration = self.admin.orchestration
        member = next(r for r in tm.stack_resources(self.admin, stack) if r[
            'resource_name'] == server_resource['parent_resource'])
        orchestration.patch(
            f'{_link(member, "stack")}/resources/{member["resource_name"]}',
            json={'mark_unhealthy': True,
                  'resource_status_reason': 'heal by test'},
            raise_exc=True)
        before = orchestration.get_stack(stack.id).updated_at
        # PATCH: an update that keeps the template and parameters
        orchestration.patch(f'/stacks/{stack.name}/{stack.id}', json={
            'parameters': {'nfv': NFV}}, raise_exc=True)
        stack = self.cloud.wait_stack(self.admin, stack.id, action='UPDATE',
                                      changed_since=before)
        self.assertEqual('UPDATE_COMPLETE', stack.status,
                         stack.status_reason)

    # -- the cluster ----------------------------------------------------

    def register(self, name, server, taint=None):
        """The Node a kubelet on ``server`` registers."""
        self.kube.add_node(name, f'10.0.0.{len(self.kube.cluster.objects)}',
                           provider_id=f'openstack:///{server.id}',
                           taints=[taint] if taint else None)

    def labels(self, name):
        node = self.kube.cluster.get('Node', '', name)
        return node['metadata']['labels']

    def test_workers_labels_pods_heal(self):
        stack = self.deploy()
        vnfcs = self.vnfcs(stack)
        workers = [s for vdu, s, _ in vnfcs if vdu == 'workerNode']
        master = next(s for vdu, s, _ in vnfcs if vdu == 'masterNode')
        hosts = [s.compute_host for s in workers]
        self.assertEqual(2, len(set(hosts)), hosts)
        group = next(self.admin.compute.server_groups(all_projects=True))
        self.assertEqual(['anti-affinity'], [group.policy])
        self.assertEqual({s.id for s in workers}, set(group.member_ids))

        self.register('master-0', master, taint=CONTROL_PLANE_TAINT)
        for n, server in enumerate(workers):
            self.register(f'worker-{n}', server)
        self.hook('instantiate_end', vnfcs)
        for n, host in enumerate(hosts):
            self.assertEqual({ZONE: host, nl.COMPUTE_HOST_KEY: host},
                             {k: self.labels(f'worker-{n}').get(k)
                              for k in (ZONE, nl.COMPUTE_HOST_KEY)})
        self.assertNotIn(ZONE, self.labels('master-0'))

        # two replicas: two compute hosts; the third has none left
        pods = [self.kube.create_pod('default', kas.anti_affine_pod(
            f'c-{i}', 'cache', ZONE)) for i in range(3)]
        placed = [self.labels(p['spec']['nodeName'])[ZONE]
                  for p in pods[:2]]
        self.assertEqual(sorted(hosts), sorted(placed))
        self.assertNotIn('nodeName', pods[2]['spec'])
        condition = pods[2]['status']['conditions'][0]
        self.assertEqual(('False', 'Unschedulable'),
                         (condition['status'], condition['reason']))
        self.assertEqual(
            "0/3 nodes are available: 2 node(s) didn't match pod "
            'anti-affinity rules, 1 node(s) were unschedulable or had '
            'untolerated taint(s).', condition['message'])

        # heal worker-0: its host is down, Heat recreates the VM elsewhere
        # and its kubelet registers a new Node; the old Node lingers
        healed = next(f for f in vnfcs if f[1].id == workers[0].id)
        service = next(self.admin.compute.services(
            binary='nova-compute', host=hosts[0]))
        self.admin.compute.disable_service(service,
                                           disabled_reason='heal test')
        self.heal(stack, healed[2])
        vnfcs = self.vnfcs(stack)
        new = [s for vdu, s, _ in vnfcs
               if vdu == 'workerNode' and s.id != workers[1].id]
        self.assertEqual(1, len(new))
        self.assertNotIn(new[0].compute_host, hosts)
        self.register('worker-2', new[0])
        err = self.hook('heal_end', vnfcs)
        self.assertEqual(new[0].compute_host, self.labels('worker-2')[ZONE])
        self.assertEqual(hosts[1], self.labels('worker-1')[ZONE])
        # the stale labels of the deleted VM's Node are gone, only ours
        self.assertEqual({'kubernetes.io/hostname': 'worker-0'},
                         self.labels('worker-0'), err)

        # the conductor (RPC label_nodes, in-process here) sees the VNF
        # through its stack: the workers are right; the master, which
        # the package's settings leave out, is not a worker to it
        rows = {r['Node']: r['Result'] for r in self.label_nodes_cli(
            '--vnf', self.inst_id, '--dry-run')}
        self.assertEqual({'master-0': 'planned', 'worker-0': 'unchanged',
                          'worker-1': 'unchanged', 'worker-2': 'unchanged'},
                         rows)

    def label_nodes_cli(self, *argv):
        tmp = self.useFixture(fixtures.TempDir()).path
        kubeconfig = os.path.join(tmp, 'kubeconfig')
        with open(kubeconfig, 'w') as stream:
            yaml.safe_dump(kas.kubeconfig(self.kube.host), stream)
        sections = cloud_config.service_sections(self.cloud.clouds_yaml,
                                                 'admin')
        sections['DEFAULT'] = {'state_path': tmp}
        sections['kubernetes'] = {'kubeconfig': kubeconfig}
        config = os.path.join(tmp, 'placement_ext.conf')
        cloud_config.write(config, sections)
        result = subprocess.run(
            [os.path.join(os.path.dirname(sys.executable), 'placement-ext'),
             '--config-file', config, 'k8s', 'label-nodes', *argv,
             '-f', 'json'], capture_output=True, text=True, timeout=300)
        self.assertEqual(0, result.returncode, result.stderr)
        return json.loads(result.stdout)


def _link(resource: dict, rel: str) -> str:
    """The path (from /stacks) of a resource's link ``rel``."""
    href = next(link['href'] for link in resource['links']
                if link['rel'] == rel)
    return href[href.index('/stacks/'):]
