"""ONAP's own client code (vendored unchanged under ``onap/``, see its
NOTICE) made importable: ``onap/`` on ``sys.path``, and stand-ins for
the few ONAP-internal modules it imports that read OSDF's deployment
configuration or set up OSDF's service around it, none of which the
client calls we test use:

- ``osdf.config.base``: OSDF's configuration, read from its config
  files at import; the tests pass their own to ``conductor.request``;
- ``osdf.logging.osdf_logging``: OSDF's loggers, configured from its
  ``config/log.yml`` at import (here: standard library loggers);
- ``osdf.utils.mdc_utils``: the logging context of OSDF's Flask
  service;
- ``osdf.operation.error_handling`` and the license optimizer
  (``apps.license``): OSDF's error callback to SO and license
  selection, which a placement-only request never reaches.
"""

import contextlib
import importlib
import logging
import os
import sys
import types

ONAP_DIR = os.path.join(os.path.dirname(__file__), 'onap')
# OSDF's config/common_config.yaml: how its policies are grouped
CORE = {'policy_info': {'prioritization_attributes': {
    'policy_type': ['type'],
    'resources': ['properties.resources',
                  'properties.objectiveParameter.parameterAttributes'
                  '.resources'],
    'service_name': ['properties.services']}}}


class _Messages:
    """OSDF's log message formatter: every message is its arguments."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: f'{name} {args!r}'


def _module(name, **names):
    module = types.ModuleType(name)
    module.__dict__.update(names)
    sys.modules[name] = module
    return module


def install():
    """Idempotent: the vendored code importable, its stand-ins set."""
    if ONAP_DIR not in sys.path:
        sys.path.insert(0, ONAP_DIR)
    if 'osdf.config.base' in sys.modules:
        return
    _module('osdf.config')
    _module('osdf.config.base', creds_prefixes={'so': 'so', 'cm': 'cm'},
            osdf_config=types.SimpleNamespace(deployment={}, core=CORE))
    _module('osdf.logging')
    log = logging.getLogger('osdf')
    _module('osdf.logging.osdf_logging', debug_log=log, error_log=log,
            metrics_log=log, audit_log=log, MH=_Messages())
    _module('osdf.utils.mdc_utils', mdc_from_json=lambda *args: None)
    _module('osdf.operation.error_handling',
            build_json_error_body=lambda error: {'error': str(error)})
    for name in ('apps.license', 'apps.license.optimizers'):
        _module(name)
    _module('apps.license.optimizers.simple_license_allocation',
            license_optim=None)


@contextlib.contextmanager
def in_onap_dir():
    """In ``onap/``: OSDF reads its files (``config/has_config.yaml``,
    its request template) relative to the working directory."""
    cwd = os.getcwd()
    os.chdir(ONAP_DIR)
    try:
        yield
    finally:
        os.chdir(cwd)


def load(name):
    """ONAP's module ``name``, its stand-ins installed first."""
    install()
    with in_onap_dir():
        return importlib.import_module(name)
