"""Tacker's management driver script: the request in, labels out.

``main`` runs in-process against the Kubernetes API stand-in (Nova is
the only double); the sample package is checked too, and its script is
run once as Tacker runs it (a subprocess with the request on stdin).
"""

import contextlib
import io
import os
import pickle
from unittest import mock

import fixtures
import testtools
import yaml

from placement_ext import exception
from placement_ext.adapters.tacker import k8s_labels_mgmt as mgmt
from placement_ext.decision import node_labels as nl
from placement_ext.testing import kube_apiserver as kas
from placement_ext.testing import tacker_mgmt as tm
from placement_ext.tests.unit.drivers import test_kubernetes as tk

ZONE = tk.ZONE
AUTH = {'auth_url': 'http://keystone.example/v3', 'username': 'vnfm',
        'password': 'secret', 'project_name': 'nfv'}
WORKERS = [('masterNode', 's0'), ('workerNode', 's1'), ('workerNode', 's2')]


class MgmtTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.server = kas.KubeApiServer().start()
        self.addCleanup(self.server.stop)
        self.server.add_node('m0', '10.0.0.9')
        self.server.add_node('w1', '10.0.0.1')
        self.server.add_node('w2', '10.0.0.2')
        self.nova = self.useFixture(fixtures.MockPatch(
            'placement_ext.adapters.tacker.k8s_labels_mgmt.nova_driver.'
            'NovaDriver')).mock
        self.nova.return_value.worker_servers.side_effect = self._servers
        self.hosts = {'s0': 'cmp0', 's1': 'cmp1', 's2': 'cmp2'}
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.environ = {mgmt.CONFIG_ENV: self._config('')}

    def _servers(self, ids=(), name_prefix=None):
        ips = {'s0': '10.0.0.9', 's1': '10.0.0.1', 's2': '10.0.0.2',
               's3': '10.0.0.3'}
        return [tk.server(i, ips[i], self.hosts[i]) for i in ids]

    def _config(self, text):
        path = os.path.join(self.tmp, 'tacker.conf')
        with open(path, 'w') as stream:
            stream.write(text)
        return path

    def instance(self, vnfcs=WORKERS, metadata=None, **vims):
        vims = vims or {'os': tm.openstack_vim(AUTH),
                        'k8s': tm.kubernetes_vim(self.server.host)}
        return tm.vnf_instance('inst-1', vnfcs, vims, metadata=metadata)

    def main(self, data):
        err = io.StringIO()
        status = mgmt.main(stdin=io.BytesIO(pickle.dumps(data)), stderr=err,
                           environ=self.environ)
        return status, err.getvalue()

    def labels(self, name):
        return self.server.cluster.get('Node', '', name)['metadata']['labels']


class TestOperations(MgmtTestCase):

    def test_instantiate_end_labels_every_worker(self):
        status, err = self.main(tm.payload('instantiate_end', self.instance()))
        self.assertEqual(0, status, err)
        self.assertEqual('cmp1', self.labels('w1')[ZONE])
        self.assertEqual('cmp2', self.labels('w2')[nl.COMPUTE_HOST_KEY])
        self.assertEqual('cmp0', self.labels('m0')[ZONE])
        self.nova.return_value.worker_servers.assert_called_once_with(
            ids=['s0', 's1', 's2'])
        self.assertIn('; w1: ', err)

    def test_nova_is_the_workers_vim(self):
        self.main(tm.payload('instantiate_end', self.instance()))
        session = self.nova.call_args.args[0]
        auth = session.auth
        self.assertEqual(('http://keystone.example/v3', 'vnfm', 'nfv'),
                         (auth.auth_url, auth.auth_methods[0].username,
                          auth.project_name))
        self.assertEqual({'adapter_kwargs': {'region_name': 'RegionOne'}},
                         self.nova.call_args.kwargs)

    def test_heal_end_moves_the_label_scale_in_prunes(self):
        self.main(tm.payload('instantiate_end', self.instance()))
        self.hosts['s2'] = 'cmp3'
        status, _ = self.main(tm.payload('heal_end', self.instance()))
        self.assertEqual(0, status)
        self.assertEqual('cmp3', self.labels('w2')[ZONE])
        status, _ = self.main(tm.payload(
            'scale_end', self.instance(vnfcs=WORKERS[:2])))
        self.assertEqual(0, status)
        self.assertNotIn(ZONE, self.labels('w2'))
        self.assertNotIn(nl.COMPUTE_HOST_KEY, self.labels('w2'))

    def test_other_operations_do_nothing(self):
        status, _ = self.main(tm.payload('instantiate_start',
                                         self.instance()))
        self.assertEqual(0, status)
        self.assertNotIn(ZONE, self.labels('w1'))
        self.nova.assert_not_called()


class TestSettings(MgmtTestCase):

    def test_worker_vdus_from_the_instance_prune_from_the_request(self):
        inst = self.instance(metadata={mgmt.SETTINGS_KEY: {
            'worker_vdus': ['workerNode']}})
        self.main(tm.payload('instantiate_end', inst))
        self.assertNotIn(ZONE, self.labels('m0'))
        self.assertEqual('cmp1', self.labels('w1')[ZONE])
        self.main(tm.payload('scale_end', self.instance(
            vnfcs=WORKERS[:2], metadata=inst['metadata']),
            {mgmt.SETTINGS_KEY: {'prune': False}}))
        self.assertEqual('cmp2', self.labels('w2')[ZONE])

    def test_node_wait_waits_for_a_late_kubelet(self):
        # s3's kubelet registers while the driver waits (Tacker runs
        # instantiate_end as soon as Heat's stack is complete)
        self.hosts['s3'] = 'cmp3'
        sleeps = []

        def sleep(seconds):
            sleeps.append(seconds)
            if len(sleeps) == 2:
                self.server.add_node('w3', '10.0.0.3')

        self.useFixture(fixtures.MockPatch(
            'placement_ext.conductor.k8s_labels._sleep', sleep))
        status, err = self.main(tm.payload(
            'instantiate_end', self.instance(vnfcs=[*WORKERS,
                                                    ('workerNode', 's3')]),
            {mgmt.SETTINGS_KEY: {'node_wait': 60}}))
        self.assertEqual(0, status, err)
        self.assertEqual([2.0, 2.0], sleeps)
        self.assertEqual('cmp3', self.labels('w3')[ZONE])
        self.assertEqual('cmp1', self.labels('w1')[ZONE])
        self.assertNotIn('no node for server', err)

    def test_node_wait_gives_up_and_labels_the_others(self):
        self.hosts['s3'] = 'cmp3'
        clock = iter(range(0, 1000, 4))
        self.useFixture(fixtures.MockPatch(
            'placement_ext.conductor.k8s_labels._clock',
            lambda: next(clock)))
        sleep = self.useFixture(fixtures.MockPatch(
            'placement_ext.conductor.k8s_labels._sleep')).mock
        status, err = self.main(tm.payload(
            'heal_end', self.instance(vnfcs=[*WORKERS,
                                             ('workerNode', 's3')]),
            {mgmt.SETTINGS_KEY: {'node_wait': 10}}))
        self.assertEqual(0, status, err)
        # the clock reads 0 (deadline 10), then 4, 8 (a sleep each) and 12
        self.assertEqual([mock.call(2.0)] * 2, sleep.call_args_list)
        self.assertIn('No Node after 10s for server(s) s3', err)
        self.assertIn('no node for server(s) s3', err)
        self.assertEqual('cmp1', self.labels('w1')[ZONE])

    def test_bad_settings_fail_the_operation(self):
        status, err = self.main(tm.payload(
            'instantiate_end', self.instance(),
            {mgmt.SETTINGS_KEY: {'worker_vdus': 'workerNode'}}))
        self.assertEqual(1, status)
        self.assertIn('placement-ext: placement_ext.input.invalid: Invalid '
                      'request.additionalParams.placement_ext_k8s.'
                      'worker_vdus', err)

    def test_no_worker_fails_rather_than_pruning_everything(self):
        status, err = self.main(tm.payload(
            'instantiate_end', self.instance(metadata={mgmt.SETTINGS_KEY: {
                'worker_vdus': ['VDU9']}})))
        self.assertEqual(1, status)
        self.assertIn('no Nova server of VDU VDU9', err)
        self.assertNotIn(ZONE, self.labels('w1'))

    def test_not_a_tacker_request(self):
        err = io.StringIO()
        self.assertEqual(1, mgmt.main(stdin=io.BytesIO(b'junk'), stderr=err,
                                      environ=self.environ))
        self.assertIn('Invalid standard input: not a Tacker request',
                      err.getvalue())


class TestWhereTheApisAre(MgmtTestCase):

    def test_kubernetes_vim(self):
        vim = tm.kubernetes_vim('https://k8s.example:6443', token='tok')
        vim['interfaceInfo']['ssl_ca_cert'] = 'PEM'
        with contextlib.ExitStack() as files:
            api = mgmt.kubernetes_api(mgmt.load_config(self.environ),
                                      {'vimConnectionInfo': {'k': vim}}, {},
                                      files)
            conf = api.configuration
            self.assertEqual('https://k8s.example:6443', conf.host)
            self.assertEqual('Bearer tok', conf.get_api_key_with_prefix(
                'authorization'))
            with open(conf.ssl_ca_cert) as stream:
                self.assertEqual('PEM', stream.read())
        self.assertFalse(os.path.exists(conf.ssl_ca_cert))

    def test_a_requests_kubeconfig_leaves_the_configuration_as_read(self):
        kubeconfig = os.path.join(self.tmp, 'kubeconfig')
        with open(kubeconfig, 'w') as stream:
            yaml.safe_dump(tk.kubeconfig(self.server.host), stream)
        conf = mgmt.load_config(self.environ)
        before = (conf.kubernetes.kubeconfig, conf.kubernetes.context)
        with contextlib.ExitStack() as files:
            api = mgmt.kubernetes_api(conf, {}, {'kubeconfig': kubeconfig},
                                      files)
        self.assertEqual(self.server.host.rstrip('/'),
                         api.configuration.host.rstrip('/'))
        self.assertEqual(before, (conf.kubernetes.kubeconfig,
                                  conf.kubernetes.context))

    def test_configuration_when_the_instance_names_no_apis(self):
        kubeconfig = os.path.join(self.tmp, 'kubeconfig')
        with open(kubeconfig, 'w') as stream:
            yaml.safe_dump(tk.kubeconfig(self.server.host), stream)
        self.environ = {mgmt.CONFIG_ENV: self._config(
            f'[kubernetes]\nkubeconfig = {kubeconfig}\n'
            'host_label = example.com/host\n')}
        load_session = self.useFixture(fixtures.MockPatch(
            'placement_ext.conductor.k8s_labels.keystone.load_session')).mock
        status, err = self.main(tm.payload('instantiate_end',
                                           self.instance(other={})))
        self.assertEqual(0, status, err)
        load_session.assert_called_once_with(mock.ANY, 'nova')
        self.assertEqual('cmp1', self.labels('w1')['example.com/host'])

    def test_several_kubernetes_vims_must_be_named(self):
        vims = {'os': tm.openstack_vim(AUTH),
                'a': tm.kubernetes_vim(self.server.host),
                'b': tm.kubernetes_vim('http://127.0.0.1:1')}
        status, err = self.main(tm.payload(
            'instantiate_end', self.instance(**vims)))
        self.assertEqual(1, status)
        self.assertIn('several kubernetes or ETSINFV.KUBERNETES.V_1 VIMs '
                      '(a, b)', err)
        status, err = self.main(tm.payload(
            'instantiate_end', self.instance(**vims),
            {mgmt.SETTINGS_KEY: {'kubernetes_vim': 'a'}}))
        self.assertEqual(0, status, err)


class TestSamplePackage(MgmtTestCase):
    """samples/vnf_packages/k8s_workers: what Tacker reads of it."""

    def df(self):
        with open(tm.PACKAGE / 'Definitions' / 'k8s_workers_df.yaml') as f:
            return yaml.safe_load(f)

    def test_interfaces_name_the_script(self):
        vnf = self.df()['topology_template']['node_templates']['VNF']
        artifact = vnf['artifacts']['k8s-worker-labels']
        self.assertEqual(tm.SCRIPT, artifact['file'])
        self.assertTrue(os.path.isfile(
            tm.PACKAGE / 'Definitions' / artifact['file']))
        self.assertEqual(
            {op: 'k8s-worker-labels' for op in mgmt.OPERATIONS},
            {op: v['implementation']
             for op, v in vnf['interfaces']['Vnflcm'].items()})

    def test_every_vdu_has_its_instances_per_level(self):
        # Tacker v2 counts a VDU's VNFCs for a level only from
        # VduInstantiationLevels (vnfd_utils.get_vdu_num); without them
        # it grants nothing and instantiate fails
        policies = {}
        for entry in self.df()['topology_template']['policies']:
            policies.update(entry)
        per_level = {target: policy['properties']['levels']
                     for policy in policies.values()
                     if policy['type'] ==
                     'tosca.policies.nfv.VduInstantiationLevels'
                     for target in policy['targets']}
        initial = {target: policy['properties']['initial_delta'][
            'number_of_instances'] for policy in policies.values()
            if policy['type'] == 'tosca.policies.nfv.VduInitialDelta'
            for target in policy['targets']}
        default = policies['instantiation_levels']['properties'][
            'default_level']
        self.assertEqual(initial, {vdu: levels[default][
            'number_of_instances'] for vdu, levels in per_level.items()})
        self.assertEqual({'masterNode': 1, 'workerNode': 2}, initial)

    def test_basehot_is_the_translated_vnfd(self):
        result = tm.package_translation(hosts=2)
        self.assertFalse(result.changed)
        group = result.templates[tm.TOP]['resources'][
            'worker_anti_affinity_group']
        self.assertEqual(['anti-affinity'], group['properties']['policies'])
        self.assertRaises(exception.InvalidInput, tm.package_translation,
                          hosts=1)

    def test_script_runs_as_tacker_runs_it(self):
        # no OpenStack VIM and no [nova]: the script fails, as Tacker
        # would show it, after reading the request from stdin
        result = tm.run_script(
            tm.payload('instantiate_end', tm.vnf_instance(
                'inst-1', WORKERS, {'k8s': tm.kubernetes_vim(
                    self.server.host)})),
            env={mgmt.CONFIG_ENV: self._config(
                '[nova]\nauth_type = password\n'
                'auth_url = http://127.0.0.1:9/v3\nusername = u\n'
                'password = p\nproject_name = p\n')})
        self.assertEqual(1, result.returncode)
        self.assertEqual(b'', result.stdout)
        self.assertIn(b'placement-ext: placement_ext.', result.stderr)
        self.assertIn(b'Nova', result.stderr)
