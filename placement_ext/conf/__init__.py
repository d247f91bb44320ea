"""All placement_ext options, registered on the ConfigOpts a caller passes.

Nothing registers on the global ``cfg.CONF`` at import time, so tests and
embedding programs (tacker-conductor, blazar-manager) keep their own
configuration objects independent.
"""

from oslo_config import cfg

from placement_ext.conf import defaults
from placement_ext.conf import homing
from placement_ext.conf import kubernetes
from placement_ext.conf import nfvo_api
from placement_ext.conf import paths
from placement_ext.conf import reservation
from placement_ext.conf import service_clients
from placement_ext.conf import services
from placement_ext.conf import tacker
from placement_ext.conf import upgrade_levels
from placement_ext.conf import v2_vnfm

_MODULES = (paths, v2_vnfm, services, service_clients, kubernetes, homing,
            reservation, tacker, nfvo_api, upgrade_levels)


def register_opts(conf: cfg.ConfigOpts) -> None:
    for module in _MODULES:
        module.register_opts(conf)
    defaults.set_defaults(conf)


def validate(conf: cfg.ConfigOpts) -> None:
    """Read every option with a checked type, so bad values fail now.

    Then each option module's ``check(conf)``, if it has one, applies the
    rules that relate its options to each other (raising InvalidInput).

    oslo.config converts a value when it is first read; reading them at
    start-up turns a bad regular expression or integer in the file into a
    clear start-up error instead of a failure in the middle of an
    operation.
    """
    for module in _MODULES:
        for group, opts in module.list_opts().items():
            name = getattr(group, 'name', group)
            section = conf if name == 'DEFAULT' else conf[name]
            for opt in opts:
                try:
                    getattr(section, opt.dest)
                except cfg.NoSuchOptError:
                    # keystoneauth registers an auth plugin's options only
                    # once the plugin is loaded; it checks them itself.
                    continue
    for module in _MODULES:
        # rules relating options to each other, one module's own
        getattr(module, 'check', lambda conf: None)(conf)


def new_conf(args: list[str] | None = None,
             project: str = 'placement_ext',
             default_config_files: list[str] | None = None) -> cfg.ConfigOpts:
    """Build, parse and validate a fresh ConfigOpts with all our options."""
    conf = cfg.ConfigOpts()
    register_opts(conf)
    conf(args or [], project=project,
         default_config_files=default_config_files)
    validate(conf)
    return conf
