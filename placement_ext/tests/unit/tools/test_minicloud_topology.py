"""tools/minicloud/topology.py: the embedded cloud's zones and host sizes
from a spec such as ``AZ-1=2x2/8192/1028``."""

import importlib.util
import pathlib

import testtools

# tools/ is not a package of the project: load the module by path
_PATH = (pathlib.Path(__file__).resolve().parents[4] / 'tools' / 'minicloud'
         / 'topology.py')
_SPEC = importlib.util.spec_from_file_location('mc_topology', _PATH)
topology = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(topology)


class TestTopology(testtools.TestCase):
    def test_default_spec(self):
        spec = topology.build_spec(3, 2, topology.DEFAULT_SIZE)
        hosts = topology.parse(spec)
        self.assertEqual(
            {'AZ-1': ['az1-h1', 'az1-h2'], 'AZ-2': ['az2-h1', 'az2-h2'],
             'AZ-3': ['az3-h1', 'az3-h2']}, topology.zones(hosts))
        self.assertEqual({(2, 8192, 1028)},
                         {(h.vcpus, h.memory_mb, h.disk_gb) for h in hosts})

    def test_sizes_per_zone(self):
        hosts = topology.parse('AZ-1=1x4/16384/100 edge=3x1/2048/10')
        self.assertEqual(
            [('az1-h1', 'AZ-1', 4, 16384, 100), ('edge-h1', 'edge', 1, 2048,
                                                 10),
             ('edge-h2', 'edge', 1, 2048, 10),
             ('edge-h3', 'edge', 1, 2048, 10)],
            [(h.name, h.zone, h.vcpus, h.memory_mb, h.disk_gb)
             for h in hosts])

    def test_bad_specs_say_why(self):
        for spec, why in [('AZ-1=2x2/8192', 'NAME=COUNTxVCPU'),
                          ('AZ-1=0x2/8192/10', '>= 1'),
                          ('AZ-1=1x1/1/1 az1=1x1/1/1', 'same host names'),
                          ('', 'no zone')]:
            exc = self.assertRaises(topology.TopologyError,
                                    topology.parse, spec)
            self.assertIn(why, str(exc))
