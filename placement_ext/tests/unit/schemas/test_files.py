"""YAML files with aliases: bounded, not expanded without end.

Before, ``k8s check`` on 2 KB of nested aliases (9^9 pods) burnt minutes
of CPU, and a self-referencing alias gave "maximum recursion depth
exceeded". Every YAML reader (``schemas/files.py``, the VNF package
reader) uses the bounded loader.
"""

import io
import os
import zipfile

import fixtures
import testtools

from placement_ext import exception
from placement_ext.schemas import files
from placement_ext.sol import vnf_package

LEVELS = 'abcdefghi'


def laughs(levels: int = 9) -> str:
    """Nested aliases: 9 ** levels items from a few hundred bytes."""
    pods = ', '.join(['pod'] * 9)
    lines = ['kind: List', f'a: &a [{pods}]']
    for prev, name in zip(LEVELS, LEVELS[1:levels], strict=False):
        lines.append(f'{name}: &{name} [{", ".join([f"*{prev}"] * 9)}]')
    return '\n'.join(lines) + '\n'


class TestAliases(testtools.TestCase):

    def _file(self, text: str) -> str:
        path = os.path.join(self.useFixture(fixtures.TempDir()).path, 'f.y')
        with open(path, 'w') as f:
            f.write(text)
        return path

    def test_billion_laughs_is_refused(self):
        path = self._file(laughs())
        for load in (files.load_yaml, files.load_yaml_documents):
            exc = self.assertRaises(exception.InvalidInput, load, path,
                                    'FILE')
            self.assertEqual('FILE', exc.field)
            self.assertIn('is refused: its aliases repeat more than 10000 '
                          'nodes', exc.reason)

    def test_self_reference_is_refused(self):
        for text in ('items: &x\n  - *x\n', 'a: &m\n  b: *m\n',
                     '--- {}\n--- &y [1, [*y]]\n'):
            exc = self.assertRaises(exception.InvalidInput,
                                    files.load_yaml_documents,
                                    self._file(text), 'FILE')
            self.assertIn('refers to the node it is in', exc.reason)

    def test_ordinary_aliases_still_work(self):
        text = ('base: &d {replicas: 2, labels: {app: x}}\n'
                'one: {<<: *d, name: one}\ntwo: *d\n'
                + laughs(3).replace('kind: List\n', ''))
        doc = files.load_yaml(self._file(text), 'FILE')
        self.assertEqual({'replicas': 2, 'labels': {'app': 'x'},
                          'name': 'one'}, doc['one'])
        self.assertEqual(doc['base'], doc['two'])
        self.assertEqual(9 ** 3, sum(len(a) for b in doc['c'] for a in b))

    def test_vnf_package_reader_is_bounded(self):
        csar = io.BytesIO()
        with zipfile.ZipFile(csar, 'w') as archive:
            archive.writestr('Definitions/vnfd.yaml', laughs())
        exc = self.assertRaises(exception.InvalidInput,
                                vnf_package.vdu_flavours, csar.getvalue())
        self.assertEqual('package_content', exc.field)
        self.assertIn('Definitions/vnfd.yaml: its aliases repeat', exc.reason)
