"""Upstream's BlazarFilter for the embedded cloud's nova-scheduler.

blazar-nova is installed in the blazar addon's venv, not in Nova's. This
module, on nova-scheduler's path with the rest of the repository, loads
that venv's ``blazarnova`` package alone (none of the venv's other
packages) from the directory that ``[placement_ext_test]
blazarnova_dir`` names in nova.conf, and gives its filter a path
nova.conf can name:
``placement_ext.tests.functional.blazar.blazarnova_loader.BlazarFilter``.
"""

import importlib.util
import pathlib
import sys

from oslo_config import cfg

cfg.CONF.register_opt(cfg.StrOpt('blazarnova_dir'),
                      group='placement_ext_test')


def _load() -> type:
    path = pathlib.Path(cfg.CONF.placement_ext_test.blazarnova_dir)
    spec = importlib.util.spec_from_file_location(
        'blazarnova', path / '__init__.py',
        submodule_search_locations=[str(path)])
    package = importlib.util.module_from_spec(spec)
    sys.modules['blazarnova'] = package
    spec.loader.exec_module(package)
    module = importlib.import_module(
        'blazarnova.scheduler.filters.blazar_filter')
    return module.BlazarFilter


BlazarFilter = _load()
