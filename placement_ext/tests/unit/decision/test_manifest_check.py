"""manifest_check: every podAntiAffinity term our labels cannot make
effective, by object and term."""

import testtools

from placement_ext import exception
from placement_ext.decision import manifest_check as mc

ZONE = 'topology.kubernetes.io/zone'
OURS = (ZONE, 'placement-ext.openstack.org/compute-host')


def term(key=ZONE):
    return {'labelSelector': {'matchLabels': {'app': 'store'}},
            'topologyKey': key}


def pod_spec(required=(), preferred=()):
    anti = {}
    if required:
        anti[mc.REQUIRED] = list(required)
    if preferred:
        anti[mc.PREFERRED] = [{'weight': 100, 'podAffinityTerm': t}
                              for t in preferred]
    return {'affinity': {'podAntiAffinity': anti}, 'containers': []}


def deployment(name='redis-cache', kind='Deployment', **terms):
    return {'apiVersion': 'apps/v1', 'kind': kind, 'metadata': {'name': name},
            'spec': {'template': {'spec': pod_spec(**terms)}}}


class TestCheck(testtools.TestCase):

    def test_seed_example_is_effective_on_our_key(self):
        report = mc.check([deployment(required=[term()])], OURS)
        self.assertEqual((1, ()), (report.terms, report.findings))

    def test_hostname_key_is_not_a_compute_host(self):
        report = mc.check([deployment(required=[
            term('kubernetes.io/hostname')])], OURS)
        finding = report.findings[0]
        self.assertEqual(('Deployment/redis-cache', 'required[0]'),
                         (finding.object, finding.term))
        self.assertIn('may share a compute host', finding.reason)

    def test_legacy_spec_key_no_node_carries(self):
        nodes = {'w1': {ZONE: 'c1'}}
        report = mc.check([deployment(preferred=[term('kubernetes.io/zone')])],
                          OURS, node_labels=nodes)
        self.assertEqual('preferred[0]', report.findings[0].term)
        self.assertIn('no node carries', report.findings[0].reason)

    def test_unlabelled_nodes_are_reported(self):
        nodes = {'w1': {ZONE: 'c1'}, 'w2': {}}
        report = mc.check([deployment(required=[term()])], OURS,
                          node_labels=nodes)
        self.assertIn('nodes w2 lack the label', report.findings[0].reason)

    def test_all_kinds_with_pod_templates(self):
        docs = [deployment(kind=k, required=[term('x')])
                for k in ('StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job')]
        docs.append({'kind': 'Pod', 'metadata': {'name': 'p'},
                     'spec': pod_spec(required=[term('x')])})
        docs.append({'kind': 'CronJob', 'metadata': {'name': 'c'},
                     'spec': {'jobTemplate': {'spec': {'template': {
                         'spec': pod_spec(required=[term('x')])}}}}})
        docs.append({'kind': 'List', 'items': [deployment(
            'in-list', required=[term('x')])]})
        objects = [f.object for f in mc.check(docs, OURS).findings]
        self.assertEqual(['StatefulSet/redis-cache', 'DaemonSet/redis-cache',
                          'ReplicaSet/redis-cache', 'Job/redis-cache',
                          'Pod/p', 'CronJob/c', 'Deployment/in-list'],
                         objects)

    def test_several_terms_are_numbered(self):
        report = mc.check([deployment(required=[term(), term('x')],
                                      preferred=[term('y'), term()])], OURS)
        self.assertEqual(4, report.terms)
        self.assertEqual(['required[1]', 'preferred[0]'],
                         [f.term for f in report.findings])

    def test_missing_topology_key(self):
        report = mc.check([deployment(required=[{'labelSelector': {}}])],
                          OURS)
        self.assertIn('no topologyKey', report.findings[0].reason)
        self.assertIn("topologyKey None", str(report.findings[0]))

    def test_other_kinds_and_empty_documents_are_ignored(self):
        docs = [None, {'kind': 'Service', 'metadata': {'name': 's'}},
                deployment()]
        self.assertEqual(0, mc.check(docs, OURS).terms)

    def test_unnamed_object(self):
        doc = deployment(required=[term('x')])
        del doc['metadata']
        self.assertEqual('Deployment/<document 0>',
                         mc.check([doc], OURS).findings[0].object)

    def test_not_an_object_is_invalid(self):
        for bad in (['a list'], [{'no': 'kind'}], ['text']):
            self.assertRaises(exception.InvalidInput, mc.check, bad, OURS)

    def test_malformed_affinity_is_invalid(self):
        bad = deployment()
        bad['spec']['template']['spec']['affinity'] = {
            'podAntiAffinity': {mc.REQUIRED: {'not': 'a list'}}}
        error = self.assertRaises(exception.InvalidInput, mc.check, [bad],
                                  OURS)
        self.assertIn('Deployment/redis-cache', str(error))
        bad['spec']['template']['spec']['affinity'] = {
            'podAntiAffinity': {mc.REQUIRED: ['x']}}
        self.assertRaises(exception.InvalidInput, mc.check, [bad], OURS)
        bad['spec']['template']['spec']['affinity'] = {'podAntiAffinity': 1}
        self.assertRaises(exception.InvalidInput, mc.check, [bad], OURS)

    def test_our_key_on_no_node_yet(self):
        report = mc.check([deployment(required=[term()])], OURS,
                          node_labels={'w1': {}})
        self.assertIn('label the workers first', report.findings[0].reason)
