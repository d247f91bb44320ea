import testtools

from placement_ext import exception
from placement_ext.vocabulary import host_names

NODES = [('node-a', 'svc-1'), ('node-b', 'svc-2'), ('node-c', 'svc-2')]


def resolve(name):
    return host_names.resolve(name, NODES, lambda n: n[0], lambda n: n[1],
                              kind='host')


class TestResolve(testtools.TestCase):

    def test_hypervisor_name_wins(self):
        self.assertEqual(('node-b', 'svc-2'), resolve('node-b'))

    def test_service_host_with_one_node(self):
        self.assertEqual(('node-a', 'svc-1'), resolve('svc-1'))

    def test_service_host_with_several_nodes_is_ambiguous(self):
        err = self.assertRaises(exception.Conflict, resolve, 'svc-2')
        self.assertIn('node-b, node-c', err.detail)

    def test_unknown_name(self):
        err = self.assertRaises(exception.NotFound, resolve, 'nope')
        self.assertEqual('host nope could not be found.', err.detail)
