"""``placement-ext vnfd translate``'s generated BaseHOT on the real Heat.

A VDU with ``min_number_of_instances: 2`` and ``max_number_of_instances:
4`` and one initial instance: Heat refuses an AutoScalingGroup whose
``desired_capacity`` is outside ``min_size``..``max_size``, so the
translation takes it from the ``nfv`` parameter (as Tacker's BaseHOTs do)
with the initial capacity, 2, as its default.
"""

import os
import subprocess
import sys

import fixtures
import yaml

from placement_ext.tests.functional.cloud import base
from placement_ext.tests.functional.cloud import fixture

VNFD = {
    'tosca_definitions_version': 'tosca_simple_yaml_1_2',
    'topology_template': {
        'node_templates': {'VDU1': {
            'type': 'tosca.nodes.nfv.Vdu.Compute',
            'properties': {'name': 'VDU1', 'vdu_profile': {
                'min_number_of_instances': 2,
                'max_number_of_instances': 4}}}},
        'policies': [{'VDU1_anti_affinity': {
            'type': 'tosca.policies.nfv.AntiAffinityRule',
            'targets': ['VDU1'],
            'properties': {'scope': 'nfvi_node',
                           'fallback_best_effort': True}}}]}}


def translate(vnfd_path: str) -> dict[str, dict]:
    """The command's templates, by name (``# <name>`` heads each)."""
    command = os.path.join(os.path.dirname(sys.executable), 'placement-ext')
    out = subprocess.run([command, 'vnfd', 'translate', vnfd_path],
                         capture_output=True, text=True, check=True).stdout
    templates = {}
    for document in out.split('\n---\n'):
        head, _, body = document.partition('\n')
        templates[head.removeprefix('# ').strip()] = yaml.safe_load(body)
    return templates


class TestTranslatedStack(base.CloudTestCase):

    def test_min_2_max_4_created_with_the_default_capacity(self):
        path = self.useFixture(fixtures.TempDir()).join('vnfd.yaml')
        with open(path, 'w') as out:
            yaml.safe_dump(VNFD, out)
        templates = translate(path)
        top = templates.pop('top.yaml')
        # networks are the package author's; this cloud has no network
        # agent, so its servers have none
        templates['VDU1.yaml']['resources']['VDU1']['properties'][
            'networks'] = [{'allocate_network': 'none'}]
        nfv = top['parameters']['nfv']['default']
        self.assertEqual({'VDU': {'VDU1': {'desired_capacity': 2}}}, nfv)
        # what Tacker adds to nfv; desired_capacity as the default says
        nfv['VDU']['VDU1'].update(computeFlavourId=fixture.FLAVOR,
                                  vcImageId=fixture.IMAGE)
        conn = self.cloud.demo
        stack = conn.orchestration.create_stack(
            name=fixture.unique_name('translated'),
            template=yaml.safe_dump(top),
            files={name: yaml.safe_dump(t) for name, t in templates.items()},
            parameters={'nfv': nfv})
        self.addCleanup(conn.orchestration.delete_stack, stack.id)
        stack = self.cloud.wait_stack(conn, stack.id, action='CREATE')
        self.assertEqual('CREATE_COMPLETE', stack.status,
                         stack.status_reason)
        servers = [r for r in conn.orchestration.get(
            f'/stacks/{stack.name}/{stack.id}/resources',
            params={'nested_depth': 2}).json()['resources']
            if r['resource_type'] == 'OS::Nova::Server']
        self.assertEqual(2, len(servers))
