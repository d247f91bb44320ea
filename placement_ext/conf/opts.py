"""list_opts() for oslo-config-generator (entry point oslo.config.opts).

Every module of this package that defines options must export
``list_opts()``; the walk below refuses to generate a sample that would
silently leave a module out.
"""

import collections
import importlib
import pkgutil

from placement_ext import conf as conf_pkg

# modules of the conf package that hold helpers, not options
_NOT_OPTION_MODULES = frozenset({'opts', 'types', 'defaults', 'api_server'})


def _option_modules() -> list:
    modules = []
    for info in pkgutil.iter_modules(conf_pkg.__path__):
        if info.name in _NOT_OPTION_MODULES:
            continue
        module = importlib.import_module(f'{conf_pkg.__name__}.{info.name}')
        if not hasattr(module, 'list_opts'):
            raise RuntimeError(
                f'{module.__name__} defines no list_opts(); every option '
                f'module must, so the sample configuration is complete')
        modules.append(module)
    return modules


def list_opts() -> list:
    """Return [(group, [opts])], groups sorted by name for a stable sample."""
    grouped = collections.OrderedDict()
    for module in _option_modules():
        for group, opts in module.list_opts().items():
            grouped.setdefault(group, []).extend(opts)
    return sorted(grouped.items(),
                  key=lambda item: getattr(item[0], 'name', item[0]))
