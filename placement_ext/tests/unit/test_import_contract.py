"""The import contract of setup.cfg fails on the inversions of issue 29.

Each case copies the repository's code and contract to a temporary
directory, adds one import that turns a layer upside down and runs
``lint-imports`` there: the contract must be broken, and for the reason
given. The unchanged copy must keep it, so a failure is the added line's.
"""

import pathlib
import shutil
import subprocess
import sys

import fixtures
import testtools

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _lint_imports(cwd: pathlib.Path) -> subprocess.CompletedProcess:
    # lint-imports reads ./setup.cfg and finds the packages under cwd
    return subprocess.run(
        [sys.executable, '-c',
         'from importlinter import cli; cli.lint_imports_command()',
         '--no-logo', '--no-cache'],
        cwd=cwd, capture_output=True, text=True, timeout=120)


class TestImportContract(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.tree = pathlib.Path(self.useFixture(fixtures.TempDir()).path)
        # the tests are in no layer: the copy leaves them out
        ignore = shutil.ignore_patterns('__pycache__', '*.pyc', 'tests')
        for package in ('placement_ext', 'demo'):
            shutil.copytree(ROOT / package, self.tree / package,
                            ignore=ignore)
        shutil.copy(ROOT / 'setup.cfg', self.tree / 'setup.cfg')

    def assertBroken(self, module, line, expected):
        path = self.tree / module
        path.write_text(path.read_text() + f'\n{line}\n')
        result = _lint_imports(self.tree)
        self.assertEqual(1, result.returncode, result.stdout)
        self.assertIn(expected, result.stdout)

    def test_the_repository_keeps_the_contract(self):
        result = _lint_imports(self.tree)
        self.assertEqual(0, result.returncode,
                         result.stdout + result.stderr)

    def test_db_below_objects(self):
        # db/models.py read objects/states.py
        self.assertBroken(
            'placement_ext/db/models.py',
            'from placement_ext.objects import lease  # noqa',
            'placement_ext.db is not allowed to import placement_ext.objects')

    def test_db_below_entry_points(self):
        # db/alembic/env.py imported cmd/ for its warning filter
        self.assertBroken(
            'placement_ext/db/alembic/env.py',
            'from placement_ext import cmd  # noqa',
            'placement_ext.db is not allowed to import placement_ext.cmd')

    def test_objects_below_decision(self):
        # objects/host.py and objects/lease.py imported decision/ names
        self.assertBroken(
            'placement_ext/objects/host.py',
            'from placement_ext.decision import host_lcm  # noqa',
            'placement_ext.objects is not allowed to import '
            'placement_ext.decision')

    def test_schemas_below_sol(self):
        # schemas/sol003.py imported sol/enums while sol/ imports schemas/
        self.assertBroken(
            'placement_ext/schemas/sol003.py',
            'from placement_ext.sol import base  # noqa',
            'placement_ext.schemas is not allowed to import '
            'placement_ext.sol')

    def test_vocabulary_is_the_ground_floor(self):
        self.assertBroken(
            'placement_ext/vocabulary/states.py',
            'from placement_ext.db import models  # noqa',
            'placement_ext.vocabulary is not allowed to import '
            'placement_ext.db')

    def test_the_core_does_not_import_an_adapter(self):
        self.assertBroken(
            'placement_ext/manager/reservations.py',
            'from placement_ext.adapters.blazar import workflows  # noqa',
            'placement_ext.manager is not allowed to import '
            'placement_ext.adapters')

    def test_services_do_not_import_each_other(self):
        self.assertBroken(
            'placement_ext/conductor/homing.py',
            'from placement_ext.manager import leases  # noqa',
            'placement_ext.conductor is not allowed to import '
            'placement_ext.manager')

    def test_decision_imports_no_io_library(self):
        self.assertBroken(
            'placement_ext/decision/host_pickup.py',
            'import requests  # noqa',
            'placement_ext.decision is not allowed to import requests')

    def test_decision_reads_no_configuration(self):
        self.assertBroken(
            'placement_ext/decision/host_pickup.py',
            'from placement_ext import conf  # noqa',
            'placement_ext.decision is not allowed to import '
            'placement_ext.conf')
