"""The tacker addon's upstream environment: Tacker's functional jobs.

``PLACEMENT_EXT_MINICLOUD_TACKER_AZ_RETRY=1`` at ``minicloud addon up
tacker`` builds what Tacker's own functional tests need: the zone-retry
job's ``test_update_stack_retry``
(``placement_ext/tests/functional/tacker/test_upstream_az_retry.py``),
and ``sol_v2``'s tests (``test_upstream_sol_v2.py``, which switch the
tacker.conf options below back to Tacker's defaults where they want them):

* tacker.conf ``[v2_nfvo] test_grant_zone_list = az-1`` and ``[v2_vnfm]
  enable_rollback_stack = true`` (:func:`conf_sections`), Tacker's local
  NFVO (an empty ``tacker-mode.conf``);
* zones ``az-1`` (the first zone's hosts) and ``nova`` (all others),
  project ``nfv`` with user ``nfv_user``, flavors ``sample4G`` and
  ``m1.tiny``, image ``cirros-0.5.2-x86_64-disk``, shared networks
  ``net_mgmt``, ``net0``, ``net1`` with subnets
  (``runtime/az_retry_env.py``);
* heat-engine's ``action_retry_limit`` 5 (with 0, Heat's stack delete
  fails on a port still using a subnet);
* a Neutron mechanism driver binding every port
  (``runtime/bind_all_driver.py``) and VLAN project networks, so servers
  with ports boot on the fake hosts; it stays for the cloud's life.

Without the variable, ``addon up`` gives the zones and Heat's retry limit
back when the environment was on.
"""

import os
import pathlib

from minicloud import configs
from minicloud import lifecycle
from minicloud import restart
from minicloud import services

VARIABLE = 'PLACEMENT_EXT_MINICLOUD_TACKER_AZ_RETRY'
MARKER = 'az-retry'        # in the addon's etc: the environment is on
HEAT_RETRIES = 5
ML2 = {
    'ml2': {'type_drivers': 'flat,vlan', 'project_network_types': 'vlan',
            'mechanism_drivers': 'minicloud_bind_all',
            'extension_drivers': 'port_security'},
    'ml2_type_flat': {'flat_networks': '*'},
    'ml2_type_vlan': {'network_vlan_ranges': 'physnet1:100:3999'},
}


def wanted() -> bool:
    return os.environ.get(VARIABLE, '').strip().lower() in ('1', 'true',
                                                            'yes')


def is_on(etc: pathlib.Path) -> bool:
    return (etc / MARKER).exists()


def conf_sections() -> dict[str, dict]:
    """tacker.conf options of upstream's job (merged over ours)."""
    return {'v2_nfvo': {'test_grant_zone_list': 'az-1'},
            'v2_vnfm': {'enable_rollback_stack': 'true'}}


def apply(s: object, etc: pathlib.Path) -> None:
    """Turn the environment on or off, as the variable says (the
    caller, ``addon up``, holds the cloud's lock)."""
    if wanted():
        _bind_every_port(s)
        _heat_retries(s, HEAT_RETRIES)
        _run_env(s, 'on')
        (etc / MARKER).write_text('on\n')
    elif is_on(etc):
        _run_env(s, 'off')
        _heat_retries(s, s.heat_action_retry_limit)
        (etc / MARKER).unlink()


def _bind_every_port(s: object) -> None:
    # the marker is written once neutron-server runs with the driver
    done = s.path('etc', 'neutron', 'bind-all')
    if done.exists():
        return
    configs._write(s.path('etc', 'neutron', 'plugins', 'ml2',
                          'ml2_conf.ini'), ML2)
    if restart.restart(s, 'neutron', held=True) != 0:
        raise lifecycle.BringUpError('neutron did not restart')
    done.write_text('on\n')


def _heat_retries(s: object, limit: int) -> None:
    if restart.current_heat_retries(s) != limit and \
            restart.heat_retries(s, limit, held=True) != 0:
        raise lifecycle.BringUpError('heat-engine did not restart')


def _run_env(s: object, state: str) -> None:
    lifecycle._run(s, 'az-retry-env', [
        lifecycle._venv_bin(s, 'python'), '-m', 'az_retry_env',
        str(s.path('zones.json')), state], services.base_env(s))
