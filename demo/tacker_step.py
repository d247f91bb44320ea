"""Demo step: a real Tacker 16 instantiates the VNF, our reselection in
its conductor (``placement-ext-tacker-conductor``).

The embedded cloud's addon ``tacker`` (tacker-server, our conductor
command, ``placement-ext-nfvo``) is started by the caller
(``minicloud addon up tacker``; its ``minicloud addon status tacker``
JSON is ``addon``). Tacker's local NFVO grants every VNFC AZ-1; with AZ-1
full (the showcase's other tenant), Tacker's first stack create fails and
our reselection places the VNF, which Tacker then reports COMPLETED.
"""

import time
import uuid

import openstack

from placement_ext.testing import tacker_api

DELETE_TIMEOUT = 120


def run(conn: openstack.connection.Connection, addon: dict) -> dict:
    """Onboard the package, instantiate through Tacker's v2 API, print
    where each VNFC went and our attempts; returns the summary."""
    print('\n=== A real Tacker 16 instantiates the VNF; our zone '
          'reselection runs inside tacker-conductor', flush=True)
    api = tacker_api.TackerApi(addon['urls']['tacker'], conn)
    vnfd_id = str(uuid.uuid4())
    api.upload_package(tacker_api.build_package(addon['venv'], vnfd_id))
    inst_id = api.create_instance(vnfd_id, 'demo-tacker-vnf')
    vim = tacker_api.vim_connection_info(conn.config.config['auth'],
                                         conn.config.region_name or
                                         'RegionOne')
    occ = api.wait(api.lcm(inst_id, 'instantiate',
                           tacker_api.instantiate_request(vim)))
    print(f'  Tacker LCM operation {occ["id"]}: {occ["operationState"]}')
    zones = {}
    if occ['operationState'] == 'COMPLETED':
        zones = tacker_api.vnfc_zones(api.instance(inst_id))
        for vnfc, zone in sorted(zones.items()):
            print(f'  {vnfc:<8} in {zone}')
    else:
        print(f'  {occ.get("error", {}).get("detail")}')
    ops = tacker_api.operations_for(
        tacker_api.our_database(addon['etc']), inst_id)
    for op in ops:
        for attempt in op.attempts:
            reasons = '; '.join(attempt.decision.get('reasons', [])[:2])
            print(f'  attempt {attempt.seq}: {attempt.vdu_id} in '
                  f'{attempt.zone}: {attempt.outcome} ({reasons})')
    return {'vnf_instance': inst_id, 'state': occ['operationState'],
            'zones': zones,
            'heat_attempts': sum(len(op.attempts) for op in ops) or 1}


def clean_up(conn: openstack.connection.Connection, addon: dict,
             state: dict) -> None:
    """Terminate and delete the VNF through Tacker (its stack goes)."""
    api = tacker_api.TackerApi(addon['urls']['tacker'], conn)
    inst_id = state['vnf_instance']
    if api.instance(inst_id).get('instantiationState') == 'INSTANTIATED':
        occ = api.wait(api.lcm(inst_id, 'terminate',
                               {'terminationType': 'FORCEFUL'}))
        print(f'  Tacker terminated the VNF: {occ["operationState"]}')
    # Tacker releases the instance's LCM lock a moment after the
    # terminate occurrence reads COMPLETED (409 until then)
    deadline = time.monotonic() + DELETE_TIMEOUT
    while True:
        try:
            api.call('DELETE', f'/vnflcm/v2/vnf_instances/{inst_id}')
            return
        except tacker_api.TackerError as exc:
            if exc.status != 409 or time.monotonic() > deadline:
                raise
        time.sleep(2)
