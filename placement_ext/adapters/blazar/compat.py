"""The Blazar releases our plugins run in, and what they rely on there.

Supported: Blazar 15.0.0 (2025.1 Epoxy) to 18.0.0 (2026.2 Hibiscus). In
all of them ``blazar.plugins.base.BasePlugin`` declares the same abstract
methods (:data:`ABSTRACT_METHODS`), blazar-manager loads resource plugins
by entry point, and the upstream classes and helpers our plugins reuse
(:data:`UPSTREAM`) exist with the same parameters. Nothing else differs
between these releases for us; a difference found in a later release
goes here, not into the plugins.

:func:`require` is the start-up check: our plugin modules call it on
import, so blazar-manager refuses to load them in another release (its
log names the supported range, and blazar-manager stops on the plugin
name it could not load). :func:`contract_problems` checks the contract
itself, in a venv with Blazar installed (CI runs it on every supported
release).
"""

import importlib
import inspect

from placement_ext.adapters import releases

SUPPORTED = releases.Supported('blazar', 'Blazar', {
    15: '2025.1', 16: '2025.2', 17: '2026.1', 18: '2026.2'})
ABSTRACT_METHODS = frozenset({
    'get', 'reserve_resource', 'list_allocations', 'query_allocations',
    'allocation_candidates', 'update_reservation', 'on_end', 'on_start'})
# module, attribute, its parameters (None: only that it exists)
UPSTREAM = (
    ('blazar.plugins.oshosts.host_plugin', 'PhysicalHostPlugin', None),
    ('blazar.plugins.oshosts.host_plugin', 'PhysicalHostMonitorPlugin',
     None),
    ('blazar.db.utils', 'get_reservation_allocations_by_host_ids',
     ('host_ids', 'start_date', 'end_date', 'lease_id', 'reservation_id')),
    ('blazar.manager.exceptions', 'NotEnoughHostsAvailable', None),
    ('blazar.manager.exceptions', 'CantUpdateParameter', None),
)
# our entry points in blazar.resource.plugins
PLUGINS = ('placement_ext.host.plugin', 'placement_ext.instance.plugin',
           'placement_ext.flavor.plugin')


class UnsupportedRelease(ImportError):
    """This Blazar is not one our plugins were checked against."""


def refusal(version: str | None) -> str | None:
    """Why this Blazar release cannot load our plugins, or None."""
    return SUPPORTED.refusal(version)


def require() -> None:
    """Refuse to load in an unsupported Blazar release.

    Without an installed distribution (Blazar's modules put on the path
    by hand, or stand-ins in unit tests) there is no release to check.
    """
    version = releases.installed_version(SUPPORTED.service)
    why = version and refusal(version)
    if why:
        raise UnsupportedRelease(f'placement_ext: {why}')


def contract_problems() -> list[str]:
    """What of our plugins' contract this Blazar breaks (empty: none).

    Imports Blazar and our plugins: run it where Blazar is installed.
    """
    from blazar.plugins import base
    from stevedore import extension

    problems = releases.installed_problems(SUPPORTED)
    found = frozenset(base.BasePlugin.__abstractmethods__)
    if found != ABSTRACT_METHODS:
        problems.append(f'BasePlugin abstract methods {sorted(found)}, '
                        f'expected {sorted(ABSTRACT_METHODS)}')
    for module, name, parameters in UPSTREAM:
        value = getattr(importlib.import_module(module), name, None)
        if value is None:
            problems.append(f'{module}.{name} is missing')
        elif parameters is not None and \
                tuple(inspect.signature(value).parameters) != parameters:
            problems.append(f'{module}.{name} takes '
                            f'{tuple(inspect.signature(value).parameters)}'
                            f', expected {parameters}')
    manager = extension.ExtensionManager('blazar.resource.plugins')
    loaded = {ext.name: ext.plugin for ext in manager}
    for name in PLUGINS:
        plugin = loaded.get(name)
        if plugin is None:
            problems.append(f'entry point {name} does not load')
        elif inspect.isabstract(plugin):
            problems.append(f'{name} leaves abstract methods '
                            f'{sorted(plugin.__abstractmethods__)}')
    return problems
