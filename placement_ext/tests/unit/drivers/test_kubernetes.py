"""KubernetesDriver through the official client against the stand-in:
reconcile, 409 retry, stale labels, other labels untouched, errors; and
the scheduling the labels are for."""

import os
import tempfile
from unittest import mock

import testtools
import urllib3
import yaml
from kubernetes.client import exceptions as k8s_exc

from placement_ext import exception
from placement_ext.decision import node_labels as nl
from placement_ext.drivers import kubernetes as k8s_driver
from placement_ext.tests.unit.testing import test_kube_apiserver as base

ZONE = base.HOST_KEY
OURS = nl.COMPUTE_HOST_KEY


def server(sid, ip, host):
    return nl.Server(sid, f'vm-{sid}', frozenset([ip]), host)


class DriverTestCase(base.StandInTestCase):

    def setUp(self):
        super().setUp()
        self.driver = k8s_driver.KubernetesDriver(self.api_client)

    def labels(self, name):
        return self.core.read_node(name).metadata.labels


class TestReconcile(DriverTestCase):

    def setUp(self):
        super().setUp()
        self.server.add_node('w1', '10.0.0.1', app='keep')
        self.server.add_node('w2', '10.0.0.2',
                             provider_id='openstack:///s2')

    def test_labels_new_workers_and_keeps_other_labels(self):
        plan, patched = self.driver.reconcile(
            [server('s1', '10.0.0.1', 'cmp1'),
             server('s2', '192.168.0.9', 'cmp2')], ZONE)
        self.assertEqual(['w1', 'w2'], patched)
        self.assertEqual({'app': 'keep', 'kubernetes.io/hostname': 'w1',
                          ZONE: 'cmp1', OURS: 'cmp1'}, self.labels('w1'))
        self.assertEqual('cmp2', self.labels('w2')[ZONE])
        self.assertEqual((), plan.unmatched_servers)

    def test_second_run_changes_nothing(self):
        servers = [server('s1', '10.0.0.1', 'cmp1')]
        self.driver.reconcile(servers, ZONE)
        plan, patched = self.driver.reconcile(servers, ZONE)
        self.assertEqual(((), []), (plan.changes, patched))

    def test_migration_overwrites_and_gone_server_loses_ours(self):
        self.driver.reconcile([server('s1', '10.0.0.1', 'cmp1'),
                               server('s2', '10.0.0.2', 'cmp2')], ZONE)
        self.core.patch_node('w2', {'metadata': {'labels': {'team': 'x'}}})
        self.driver.reconcile([server('s1', '10.0.0.1', 'cmp3')], ZONE)
        self.assertEqual('cmp3', self.labels('w1')[ZONE])
        self.assertEqual({'kubernetes.io/hostname': 'w2', 'team': 'x'},
                         self.labels('w2'))

    def test_dry_run_writes_nothing(self):
        plan, patched = self.driver.reconcile(
            [server('s1', '10.0.0.1', 'cmp1')], ZONE, dry_run=True)
        self.assertEqual((1, []), (len(plan.changes), patched))
        self.assertNotIn(ZONE, self.labels('w1'))

    def test_patch_is_a_merge_patch_with_the_read_version(self):
        with mock.patch.object(self.driver._core, 'patch_node',
                               wraps=self.driver._core.patch_node) as patch:
            self.driver.reconcile([server('s1', '10.0.0.1', 'cmp1')], ZONE)
        name, body = patch.call_args.args
        self.assertEqual('application/merge-patch+json',
                         patch.call_args.kwargs['_content_type'])
        self.assertEqual({ZONE: 'cmp1', OURS: 'cmp1'},
                         body['metadata']['labels'])
        self.assertTrue(body['metadata']['resourceVersion'])

    def test_nodes_with_selector(self):
        self.driver.reconcile([server('s1', '10.0.0.1', 'cmp1')], ZONE)
        self.assertEqual(['w1'], [n.name for n in self.driver.nodes(OURS)])


class TestConcurrency(DriverTestCase):

    def setUp(self):
        super().setUp()
        self.server.add_node('w1', '10.0.0.1')
        self.change = nl.NodeChange('w1', {ZONE: 'cmp1', OURS: 'cmp1'}, {})

    def race(self, times, labels):
        """Another writer patches the Node right after each of the first
        ``times`` reads of the driver."""
        real_read = self.driver._core.read_node
        calls = []

        def read(name):
            node = real_read(name)
            calls.append(name)
            if len(calls) <= times:
                self.core.patch_node(name, {'metadata': {'labels': labels}})
            return node
        self.driver._core.read_node = read
        return calls

    def test_409_is_retried_on_a_fresh_read(self):
        calls = self.race(2, {'other': 'writer'})
        self.assertTrue(self.driver.apply(self.change))
        self.assertEqual(3, len(calls))
        self.assertEqual({'kubernetes.io/hostname': 'w1', 'other': 'writer',
                          ZONE: 'cmp1', OURS: 'cmp1'}, self.labels('w1'))

    def test_retry_recomputes_the_patch(self):
        self.race(1, {ZONE: 'cmp1', OURS: 'cmp1'})
        self.assertFalse(self.driver.apply(self.change))

    def test_bounded(self):
        calls = self.race(99, {'other': 'writer'})
        error = self.assertRaises(exception.ConcurrentUpdate,
                                  self.driver.apply, self.change)
        self.assertIn('node w1', str(error))
        self.assertEqual(5, len(calls))


class TestErrors(DriverTestCase):

    def test_missing_node_is_not_found(self):
        self.assertRaises(exception.NotFound, self.driver.apply,
                          nl.NodeChange('nope', {ZONE: 'c'}, {}))

    def test_statuses_map_to_ours(self):
        cases = {403: exception.Forbidden, 401: exception.Forbidden,
                 500: exception.ServiceUnavailable,
                 503: exception.ServiceUnavailable,
                 422: exception.ServiceError, 409: exception.Conflict}
        for status, expected in cases.items():
            with mock.patch.object(
                    self.driver._core, 'list_node',
                    side_effect=k8s_exc.ApiException(status=status)):
                self.assertRaises(expected, self.driver.nodes)

    def test_transport_failure_is_unavailable(self):
        with mock.patch.object(
                self.driver._core, 'list_node',
                side_effect=urllib3.exceptions.MaxRetryError(None, '/')):
            error = self.assertRaises(exception.ServiceUnavailable,
                                      self.driver.nodes)
        self.assertIn('list nodes', str(error))


class TestLabelsMakeAntiAffinityHardwareAware(DriverTestCase):
    """The example's end: replicas with required anti-affinity on the label
    land on different compute hosts, never on two VMs of one host."""

    def test_replicas_spread_over_hosts_then_pending(self):
        for i in range(1, 4):
            self.server.add_node(f'w{i}', f'10.0.0.{i}')
        # w1 and w2 share compute host cmp1
        self.driver.reconcile([server('s1', '10.0.0.1', 'cmp1'),
                               server('s2', '10.0.0.2', 'cmp1'),
                               server('s3', '10.0.0.3', 'cmp2')], ZONE)
        pods = [self.core.create_namespaced_pod('default',
                                                base.anti_pod(f'p{i}'))
                for i in range(3)]
        self.assertEqual(['w1', 'w3', None],
                         [p.spec.node_name for p in pods])
        condition = pods[2].status.conditions[0]
        self.assertEqual(('False', 'Unschedulable'),
                         (condition.status, condition.reason))
        self.assertIn("didn't match pod anti-affinity rules",
                      condition.message)


class TestApiClient(testtools.TestCase):

    def test_bad_kubeconfig_is_invalid_input(self):
        conf = mock.Mock()
        conf.kubernetes.kubeconfig = '/nonexistent/kubeconfig'
        conf.kubernetes.context = None
        error = self.assertRaises(exception.InvalidInput,
                                  k8s_driver.api_client, conf)
        self.assertIn('[kubernetes] kubeconfig', str(error))

    def test_kubeconfig_is_read(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'kubeconfig')
            with open(path, 'w') as stream:
                yaml.safe_dump(kubeconfig('http://127.0.0.1:1'), stream)
            conf = mock.Mock()
            conf.kubernetes.kubeconfig = path
            conf.kubernetes.context = 'ctx'
            api = k8s_driver.api_client(conf)
        self.assertEqual('http://127.0.0.1:1', api.configuration.host)


def kubeconfig(host):
    return {'apiVersion': 'v1', 'kind': 'Config', 'current-context': 'ctx',
            'clusters': [{'name': 'c', 'cluster': {'server': host}}],
            'users': [{'name': 'u', 'user': {'token': 't'}}],
            'contexts': [{'name': 'ctx',
                          'context': {'cluster': 'c', 'user': 'u'}}]}
