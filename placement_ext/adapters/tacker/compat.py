"""The Tacker releases ``placement-ext-tacker-conductor`` runs in, and
what our driver relies on in them.

Supported: Tacker 13.0.0 (2025.1 Epoxy) to 16.0.0 (2026.2 Hibiscus). The
point we hook into is the same in all of them: the v2 conductor builds
``openstack.Openstack()`` by a module attribute lookup in
``vnflcm_driver_v2`` (so :func:`placement_ext.adapters.tacker.driver.
install` can put our subclass there), and the driver's
``_update_stack_retry`` and LCM entry points have the parameters below.
Where tacker-conductor's ``main()`` lives differs (:data:`CONDUCTOR_MAIN`);
nothing else in Tacker differs between these releases for us; a
difference found in a later release goes here, not into the driver.

:func:`refusal` is the start-up check (no Tacker import: the conductor
must import Tacker's ``cmd.conductor`` first); :func:`contract_problems`
checks the hook points themselves, in a venv with Tacker installed (CI
runs it on every supported release).
"""

import inspect
from importlib import metadata

from placement_ext.adapters import releases

SUPPORTED = releases.Supported('tacker', 'Tacker', {
    13: '2025.1', 14: '2025.2', 15: '2026.1', 16: '2026.2'})
# Openstack._update_stack_retry, which our driver overrides
UPDATE_STACK_RETRY = ('self', 'heat_client', 'fields', 'inst', 'stack_id',
                      'error_ex', 'vim_info', 'vdu_ids', 'anti_rules')
# the LCM entry points our driver wraps to remember the operation
LCM_METHODS = ('instantiate', 'scale', 'heal')
LCM_PARAMETERS = ('self', 'req', 'inst', 'grant_req', 'grant', 'vnfd')
# Openstack._make_hot, which puts a resumed operation's zones into the
# stack fields on Tacker's retry
MAKE_HOT = LCM_PARAMETERS + ('is_rollback',)
# the LCM operation occurrence of a Grant (a retry's key to our operation)
# and how its state is read (our operation ends when Tacker's does)
GRANT_REQUEST_FIELDS = ('vnfLcmOpOccId',)
# what _remember reads of Tacker's VNFD object
VNFD_METHODS = ('get_affinity_targets', 'get_anti_affinity_targets')
# [v2_vnfm] options our driver reads from Tacker's configuration
V2_VNFM_OPTIONS = ('placement_fallback_best_effort',)
# the module of tacker-conductor's main(), which our command runs: the
# eventlet one up to 15.0.0; 16.0.0 moved it (threading backend)
CONDUCTOR_MAIN = {13: 'tacker.cmd.eventlet.conductor',
                  14: 'tacker.cmd.eventlet.conductor',
                  15: 'tacker.cmd.eventlet.conductor',
                  16: 'tacker.cmd.conductor'}


def refusal(version: str | None) -> str | None:
    """Why this Tacker release (None: none installed) cannot run our
    driver, or None when it can."""
    return SUPPORTED.refusal(version)


def conductor_main(version: str) -> str:
    """The module whose ``main()`` is this release's tacker-conductor."""
    return CONDUCTOR_MAIN[SUPPORTED.major(version)]


def _parameters(function: object) -> tuple[str, ...]:
    return tuple(inspect.signature(function).parameters)


def contract_problems() -> list[str]:
    """What of our driver's hook points this Tacker lacks (empty: none).

    Imports Tacker and our driver: run it where Tacker is installed.
    """
    from tacker.sol_refactored.common import vnfd_utils
    from tacker.sol_refactored.conductor import vnflcm_driver_v2
    from tacker.sol_refactored.infra_drivers.openstack import openstack

    from placement_ext.adapters.tacker import driver

    problems = releases.installed_problems(SUPPORTED)
    upstream = openstack.Openstack
    if driver.Openstack.__mro__[1] is not upstream:
        problems.append('our driver does not subclass Tacker\'s Openstack')
    found = _parameters(upstream._update_stack_retry)
    if found != UPDATE_STACK_RETRY:
        problems.append(f'Openstack._update_stack_retry{found}, expected '
                        f'{UPDATE_STACK_RETRY}')
    for name in LCM_METHODS:
        found = _parameters(getattr(upstream, name))
        if found != LCM_PARAMETERS:
            problems.append(f'Openstack.{name}{found}, expected '
                            f'{LCM_PARAMETERS}')
    found = _parameters(upstream._make_hot)
    if found != MAKE_HOT:
        problems.append(f'Openstack._make_hot{found}, expected {MAKE_HOT}')
    if getattr(vnflcm_driver_v2, 'openstack', None) is not openstack:
        problems.append('vnflcm_driver_v2 does not look Openstack up in '
                        'the openstack module')
    elif 'openstack.Openstack()' not in inspect.getsource(
            vnflcm_driver_v2):
        problems.append('vnflcm_driver_v2 does not build '
                        'openstack.Openstack()')
    problems += [f'Vnfd.{name} is missing' for name in VNFD_METHODS
                 if not callable(getattr(vnfd_utils.Vnfd, name, None))]
    return (problems + _option_problems() + _start_problems()
            + _conductor_problems() + _lcm_op_occ_problems())


def _lcm_op_occ_problems() -> list[str]:
    """Our ConductorV2 is the one Tacker's conductor builds; a Grant
    names its occurrence, whose state we read by id."""
    from tacker.sol_refactored import objects
    from tacker.sol_refactored.conductor import conductor_v2
    from tacker.sol_refactored.conductor import v2_hook

    problems = []
    if 'conductor_v2.ConductorV2()' not in inspect.getsource(v2_hook):
        problems.append('v2_hook does not build conductor_v2.ConductorV2()')
    if not isinstance(getattr(conductor_v2, 'ConductorV2', None), type):
        problems.append('conductor_v2.ConductorV2 is missing')
    objects.register_all()
    fields = objects.GrantRequestV1.fields
    problems += [f'GrantRequestV1.{name} is missing'
                 for name in GRANT_REQUEST_FIELDS if name not in fields]
    if not callable(getattr(objects.VnfLcmOpOccV2, 'get_by_id', None)) or \
            'operationState' not in objects.VnfLcmOpOccV2.fields:
        problems.append('VnfLcmOpOccV2.get_by_id or operationState is '
                        'missing')
    return problems


def _conductor_problems() -> list[str]:
    """tacker-conductor's console script runs the main we run."""
    version = releases.installed_version(SUPPORTED.service)
    script = next((ep for ep in metadata.entry_points(
        group='console_scripts', name='tacker-conductor')), None)
    wanted = conductor_main(version)
    if script is None or script.module != wanted:
        return [f'tacker-conductor runs {script and script.value}, not '
                f'{wanted}.main']
    return []


def _start_problems() -> list[str]:
    """What tacker-server and tacker-conductor do first with the
    libraries installed beside Tacker: register its versioned objects."""
    from tacker.sol_refactored import objects

    try:
        objects.register_all()
    except Exception as exc:  # any failure is the finding
        return [f'Tacker\'s objects do not register: {exc}']
    return []


def _option_problems() -> list[str]:
    from tacker.sol_refactored.common import config

    options = {opt.name for opt in config.VNFM_OPTS}
    return [f'[v2_vnfm] {name} is not an option of this Tacker'
            for name in V2_VNFM_OPTIONS if name not in options]
