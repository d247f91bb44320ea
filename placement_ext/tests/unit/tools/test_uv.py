"""tools/minicloud/uv.py: one pinned uv for every venv, pbr's version in
its builds."""

import configparser
import importlib.util
import os
import pathlib
import tempfile
from unittest import mock

import testtools

_REPO = pathlib.Path(__file__).resolve().parents[4]
_SPEC = importlib.util.spec_from_file_location(
    'minicloud_uv', _REPO / 'tools' / 'minicloud' / 'uv.py')
uv = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(uv)


def _pins(lines: list[str]) -> set[str]:
    return {line.split('#', 1)[0].strip() for line in lines} - {''}


class TestUv(testtools.TestCase):

    def test_tox_pins_the_same_uv(self):
        tox = configparser.ConfigParser()
        tox.read(_REPO / 'tox.ini')
        ours = _pins(uv.PIN_FILE.read_text().splitlines())
        self.assertEqual({p for p in ours if p.startswith('uv==')}, ours)
        self.assertLessEqual(
            ours, _pins(tox['tox']['requires'].splitlines()))

    def test_env_gives_pbr_a_version(self):
        with mock.patch.dict(os.environ, clear=True):
            self.assertEqual('0.1.0', uv.env()['PBR_VERSION'])
        with mock.patch.dict(os.environ, {'PBR_VERSION': '2.0.0'}):
            self.assertEqual('2.0.0', uv.env()['PBR_VERSION'])
            self.assertEqual('never', uv.env()['UV_PYTHON_DOWNLOADS'])

    def test_pip_install_into_the_venv(self):
        venv = pathlib.Path('/nowhere/venv')
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(uv, 'binary',
                                  return_value=pathlib.Path('/bin/uv')), \
                mock.patch.object(uv.subprocess, 'run') as run:
            run.return_value.returncode = 1
            ok = uv.pip_install(venv, ['-e', '.'],
                                pathlib.Path(tmp, 'install.log'))
        self.assertFalse(ok)
        self.assertEqual(
            ['/bin/uv', 'pip', 'install', '--python',
             '/nowhere/venv/bin/python', '-e', '.'], run.call_args.args[0])
        self.assertIn('PBR_VERSION', run.call_args.kwargs['env'])
