"""``placement-ext k8s check|label-nodes``, in-process; label-nodes
against the Kubernetes API stand-in through the official client."""

import json
import os

import fixtures
import yaml
from oslo_messaging.rpc.dispatcher import ExpectedException

from placement_ext import conf as pe_conf
from placement_ext import exception
from placement_ext.cli import k8s as k8s_cli
from placement_ext.conductor import manager
from placement_ext.conductor import rpcapi
from placement_ext.decision import node_labels as nl
from placement_ext.testing import kube_apiserver as kas
from placement_ext.tests.unit.cli import test_grant
from placement_ext.tests.unit.cli import test_reselection as base
from placement_ext.tests.unit.decision import test_manifest_check as tm
from placement_ext.tests.unit.drivers import test_kubernetes as tk
from placement_ext.tests.unit.rpc import base as rpc_base

ZONE = tm.ZONE
EXAMPLE = os.path.join(test_grant.EXAMPLES, 'cnf_anti_affinity.yaml')


class K8sCliTestCase(base.CliTestCase):

    def k8s(self, *argv, config=''):
        for stream in (self.stdout, self.stderr):
            stream.seek(0)
            stream.truncate()
        return self.run_cli(
            '--config-file', rpc_base.write_config(self.tmp, config),
            'k8s', *argv)

    def manifests(self, *docs):
        path = os.path.join(self.tmp, 'cnf.yaml')
        with open(path, 'w') as stream:
            yaml.safe_dump_all(docs, stream)
        return path


class TestCheck(K8sCliTestCase):

    def test_seed_manifest_passes(self):
        status, out, err = self.k8s('check', self.manifests(
            tm.deployment(required=[tm.term()]), {'kind': 'Service'}))
        self.assertEqual((0, ''), (status, err))
        self.assertIn('1 podAntiAffinity term(s): all can keep pods',
                      out)

    def test_ineffective_term_exits_1_naming_object_and_term(self):
        status, out, _ = self.k8s('check', self.manifests(
            tm.deployment(required=[tm.term()],
                          preferred=[tm.term('kubernetes.io/hostname')])))
        self.assertEqual(1, status)
        self.assertIn("Deployment/redis-cache: podAntiAffinity preferred[0] "
                      "topologyKey 'kubernetes.io/hostname': not a "
                      'compute-host label we set', out)

    def test_host_label_option_is_ours(self):
        config = '[kubernetes]\nhost_label = example.com/rack\n'
        status, _, _ = self.k8s('check', self.manifests(
            tm.deployment(required=[tm.term('example.com/rack')])),
            config=config)
        self.assertEqual(0, status)
        status, _, _ = self.k8s('check', self.manifests(
            tm.deployment(required=[tm.term()])), config=config)
        self.assertEqual(1, status)

    def test_documented_example(self):
        status, out, _ = self.k8s('check', EXAMPLE)
        self.assertEqual(1, status)
        self.assertEqual(
            ["StatefulSet/web: podAntiAffinity preferred[0] topologyKey "
             "'kubernetes.io/hostname': not a compute-host label we set "
             "(ours: placement-ext.openstack.org/compute-host, "
             "topology.kubernetes.io/zone): pods may share a compute host"],
            out.splitlines())

    def test_bad_input_exits_2(self):
        path = os.path.join(self.tmp, 'bad.yaml')
        with open(path, 'w') as stream:
            stream.write('kind: [unclosed\n')
        self.assertEqual(2, self.k8s('check', path)[0])
        self.assertEqual(2, self.k8s('check', self.manifests(['x']))[0])
        status, _, err = self.k8s('check', os.path.join(self.tmp, 'none'))
        self.assertEqual(2, status)
        self.assertIn('cannot read', err)


class WithCluster(K8sCliTestCase):
    """The stand-in, reached through a kubeconfig named in [kubernetes]."""

    def setUp(self):
        super().setUp()
        self.server = kas.KubeApiServer().start()
        self.addCleanup(self.server.stop)
        path = os.path.join(self.tmp, 'kubeconfig')
        with open(path, 'w') as stream:
            yaml.safe_dump(tk.kubeconfig(self.server.host), stream)
        self.config = f'[kubernetes]\nkubeconfig = {path}\n'
        self.server.add_node('w1', '10.0.0.1', team='x')
        self.server.add_node('w2', '10.0.0.2')
        self.useFixture(fixtures.MockPatch(
            'placement_ext.conductor.k8s_labels.keystone.load_session'))
        self.nova = self.useFixture(fixtures.MockPatch(
            'placement_ext.conductor.k8s_labels.nova_driver.NovaDriver')).mock
        self.nova.return_value.worker_servers.return_value = [
            tk.server('s1', '10.0.0.1', 'cmp1'),
            tk.server('s2', '10.0.0.2', 'cmp2')]

    def labels(self, name):
        return self.server.cluster.get('Node', '', name)['metadata']['labels']

    def label_nodes(self, *argv):
        status, out, err = self.k8s('label-nodes', *argv, '-f', 'json',
                                    config=self.config)
        return status, (json.loads(out) if status == 0 else out), err


class TestLabelNodes(WithCluster):

    def test_name_prefix_labels_every_worker(self):
        status, rows, _ = self.label_nodes('--name-prefix', 'k8s-worker')
        self.assertEqual(0, status)
        self.nova.return_value.worker_servers.assert_called_once_with(
            ids=[], name_prefix='k8s-worker')
        self.assertEqual([('w1', 's1', 'patched'), ('w2', 's2', 'patched')],
                         [(r['Node'], r['Server'], r['Result'])
                          for r in rows])
        self.assertEqual({'team': 'x', 'kubernetes.io/hostname': 'w1',
                          ZONE: 'cmp1', nl.COMPUTE_HOST_KEY: 'cmp1'},
                         self.labels('w1'))

    def test_dry_run_changes_nothing(self):
        status, rows, _ = self.label_nodes('--servers', 's1', '--dry-run')
        self.assertEqual(['planned', 'planned'],
                         [r['Result'] for r in rows])
        self.assertNotIn(ZONE, self.labels('w1'))

    def test_servers_do_not_prune_unless_asked(self):
        self.label_nodes('--name-prefix', 'k8s')
        self.nova.return_value.worker_servers.return_value = [
            tk.server('s1', '10.0.0.1', 'cmp1')]
        _, rows, _ = self.label_nodes('--servers', 's1')
        self.assertEqual(['unchanged', 'unchanged'],
                         [r['Result'] for r in rows])
        _, rows, _ = self.label_nodes('--servers', 's1', '--prune')
        self.assertEqual([{'Node': 'w2', 'Server': '',
                           'Set': '', 'Remove': f'{nl.COMPUTE_HOST_KEY}, '
                           f'{ZONE}', 'Result': 'patched'}],
                         [r for r in rows if r['Result'] != 'unchanged'])
        self.assertEqual({'kubernetes.io/hostname': 'w2'},
                         self.labels('w2'))

    def test_vnf_reads_the_tacker_v2_stack(self):
        heat = self.useFixture(fixtures.MockPatch(
            'placement_ext.conductor.k8s_labels.heat_driver.HeatDriver')).mock
        heat.return_value.stack_servers.return_value = ['s1', 's2']
        status, _, _ = self.label_nodes('--vnf', 'abc')
        self.assertEqual(0, status)
        heat.return_value.stack_servers.assert_called_once_with('vnf-abc')
        self.nova.return_value.worker_servers.assert_called_once_with(
            ids=['s1', 's2'], name_prefix=None)

    def test_empty_stack_is_an_error(self):
        heat = self.useFixture(fixtures.MockPatch(
            'placement_ext.conductor.k8s_labels.heat_driver.HeatDriver')).mock
        heat.return_value.stack_servers.return_value = []
        status, _, err = self.label_nodes('--stack', 'st')
        self.assertEqual(1, status)
        self.assertIn('st could not be found', err)

    def test_unmatched_server_is_a_row(self):
        self.nova.return_value.worker_servers.return_value = [
            tk.server('s9', '10.9.9.9', 'cmp1')]
        _, rows, err = self.label_nodes('--servers', 's9')
        self.assertIn({'Node': '', 'Server': 's9', 'Set': '', 'Remove': '',
                       'Result': 'no node'}, rows)

    def test_check_with_cluster_reports_unlabelled_nodes(self):
        path = self.manifests(tm.deployment(required=[tm.term()]))
        status, out, _ = self.k8s('check', path, '--cluster',
                                  config=self.config)
        self.assertEqual(1, status)
        self.assertIn('no node carries this label', out)
        self.label_nodes('--name-prefix', 'k8s')
        status, out, _ = self.k8s('check', path, '--cluster',
                                  config=self.config)
        self.assertEqual(0, status, out)

    def test_unreachable_cluster_exits_1(self):
        self.server.stop()
        status, _, err = self.label_nodes('--servers', 's1')
        self.assertEqual(1, status)
        self.assertIn('Kubernetes API is unavailable', err)

    def test_commands_are_registered(self):
        from placement_ext.cli import shell
        manager = shell.PlacementExtApp().command_manager
        self.assertIs(k8s_cli.LabelNodes,
                      manager.find_command(['k8s', 'label-nodes'])[0])
        self.assertIs(k8s_cli.Check,
                      manager.find_command(['k8s', 'check'])[0])


class TestExampleEndToEnd(WithCluster):
    """Label the workers (two VMs on cmp1, one on cmp2), then create the
    documented Deployment's pod three times: two compute hosts, two pods
    placed, the third Pending with the scheduler's reason."""

    def test_replicas_land_on_distinct_compute_hosts(self):
        self.server.add_node('w3', '10.0.0.3')
        self.nova.return_value.worker_servers.return_value = [
            tk.server('s1', '10.0.0.1', 'cmp1'),
            tk.server('s2', '10.0.0.2', 'cmp1'),
            tk.server('s3', '10.0.0.3', 'cmp2')]
        self.assertEqual(0, self.label_nodes('--name-prefix', 'k8s')[0])
        with open(EXAMPLE) as stream:
            template = next(yaml.safe_load_all(stream))['spec']['template']
        pods = [self.server.create_pod(
            'default', dict(template, metadata=dict(
                template['metadata'], name=f'redis-{i}')))
            for i in range(3)]
        hosts = [self.labels(p['spec']['nodeName'])[ZONE]
                 for p in pods[:2]]
        self.assertEqual(['cmp1', 'cmp2'], hosts)
        self.assertNotIn('nodeName', pods[2]['spec'])
        self.assertEqual('Unschedulable',
                         pods[2]['status']['conditions'][0]['reason'])



class TestLabelNodesRpc(WithCluster):
    """The conductor's label_nodes (API 1.3), as the CLI's --vnf calls
    it: one source of workers, checked at the edge."""

    def setUp(self):
        super().setUp()
        conf = pe_conf.new_conf(
            ['--config-file', rpc_base.write_config(self.tmp, self.config)])
        self.endpoint = manager.ConductorManager(conf, 'h')

    def test_version(self):
        self.assertEqual('1.3', rpcapi.ConductorAPI.VERSION)
        self.assertEqual('1.3', manager.ConductorManager.target.version)

    def test_exactly_one_source(self):
        for bad in ({'stack': 'a', 'servers': ['s1']}, {},
                    {'servers': []}, {'stack': 'a', 'extra': 1}):
            # an expected exception of the endpoint, wrapped as the RPC
            # server wraps it
            raised = self.assertRaises(ExpectedException,
                                       self.endpoint.label_nodes, None,
                                       **bad)
            self.assertIs(exception.InvalidInput, raised.exc_info[0])

    def test_servers(self):
        labelled = self.endpoint.label_nodes(None, servers=['s1', 's2'],
                                             prune=False)
        self.nova.return_value.worker_servers.assert_called_once_with(
            ids=['s1', 's2'], name_prefix=None)
        self.assertEqual(
            [('w1', 's1', {ZONE: 'cmp1', nl.COMPUTE_HOST_KEY: 'cmp1'},
              'patched'),
             ('w2', 's2', {ZONE: 'cmp2', nl.COMPUTE_HOST_KEY: 'cmp2'},
              'patched')],
            [(c['node'], c['server'], c['set'], c['result'])
             for c in labelled['changes']])
