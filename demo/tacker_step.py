"""Demo step: a real Tacker instantiates the VNF, our reselection in its
conductor (``placement-ext-tacker-conductor``).

The embedded cloud's addon ``tacker`` (tacker-server, our conductor
command, ``placement-ext-nfvo``) is started here (``minicloud addon up
tacker``). Tacker's local NFVO grants every VNFC AZ-1; with AZ-1 full
(the showcase's other tenant), Tacker's first stack create fails and our
reselection places the VNF, which Tacker then reports COMPLETED.

:meth:`TackerStep.clean_up` ends the VNF as an operator would: a
FAILED_TEMP operation is rolled back (failed, if its rollback fails too)
before the VNF is terminated and deleted, then its package goes.
"""

import json
import pathlib
import uuid

import openstack

from demo import cloud
from demo import steps
from placement_ext.testing import tacker_api

NAME = 'demo-tacker-vnf'
MODE_FILE = 'tacker-mode.conf'
# the package's VNFCs: VDU1 x2, VDU2 x2
VNFCS = 4


def clean_up_actions(occ_state: str | None,
                     instantiation_state: str) -> list[str]:
    """What an operator does to be rid of a VNF, in order: an LCM
    operation left FAILED_TEMP is rolled back first (Tacker refuses any
    other operation and the DELETE while one is), an instantiated VNF
    terminated, then the instance deleted."""
    actions = ['rollback'] if occ_state == 'FAILED_TEMP' else []
    if instantiation_state == 'INSTANTIATED':
        actions.append('terminate')
    return actions + ['delete']


class TackerStep:
    """The step and its clean-up, sharing the VNF they work on."""

    def __init__(self, conn: openstack.connection.Connection,
                 quota: cloud.Quota) -> None:
        self.conn, self._quota = conn, quota
        self.api: tacker_api.TackerApi | None = None
        self._vnfds: set[str] = set()      # whose packages this run made

    def run(self) -> None:
        """Onboard the package, instantiate through Tacker's v2 API,
        print where each VNFC went and our attempts."""
        addon = self._addon()
        self.api = tacker_api.TackerApi(addon['urls']['tacker'], self.conn)
        self.clean_up()                 # an earlier run's, if it left one
        self._quota.ensure(2 * VNFCS, f"the VNF's {VNFCS} VNFCs, and as "
                           'many again while Heat replaces those of an '
                           'attempt that failed')
        vnfd_id = str(uuid.uuid4())
        self._vnfds.add(vnfd_id)
        self.api.upload_package(tacker_api.build_package(addon['venv'],
                                                         vnfd_id))
        inst_id = self.api.create_instance(vnfd_id, NAME)
        vim = tacker_api.vim_connection_info(
            self.conn.config.config['auth'],
            self.conn.config.region_name or 'RegionOne')
        occ = self.api.wait(self.api.lcm(
            inst_id, 'instantiate', tacker_api.instantiate_request(vim)))
        print(f'  Tacker LCM operation {occ["id"]}: {occ["operationState"]}')
        if occ['operationState'] == 'COMPLETED':
            zones = tacker_api.vnfc_zones(self.api.instance(inst_id))
            for vnfc, zone in sorted(zones.items()):
                print(f'  {vnfc:<8} in {zone}')
        _print_attempts(addon, inst_id)
        if occ['operationState'] != 'COMPLETED':
            raise steps.StepFailed(
                f"Tacker's instantiate ended {occ['operationState']}: "
                f"{(occ.get('error') or {}).get('detail')}")

    def _addon(self) -> dict:
        cloud.minicloud('addon', 'up', 'tacker')
        addon = json.loads(cloud.minicloud('addon', 'status', 'tacker'))
        print(f"  Tacker {addon['release']} at {addon['urls']['tacker']}")
        # the functional tests switch Tacker's behaviour with this last
        # config file (tools/minicloud/addon_tacker.py); the showcase
        # wants Tacker's local NFVO, which grants AZ-1
        mode = pathlib.Path(addon['etc'], MODE_FILE)
        if mode.exists() and mode.read_text().strip():
            mode.write_text('')
            for service in ('tacker-server', 'tacker-conductor'):
                cloud.minicloud('addon', 'restart', 'tacker', service)
            print(f'  {mode.name} emptied, Tacker restarted: back to its '
                  'local NFVO')
        return addon

    def clean_up(self) -> None:
        """End every VNF of this step as an operator would, and delete
        their packages."""
        if self.api is None:            # Tacker never came up
            return
        for inst in self.api.instances():
            if inst.get('vnfInstanceName') == NAME:
                self._end(inst)
                self._vnfds.add(inst['vnfdId'])
        for vnfd_id in sorted(self._vnfds):
            if self.api.delete_packages(vnfd_id):
                print(f'  VNF package of VNFD {vnfd_id} deleted')
        self._vnfds.clear()

    def _end(self, inst: dict) -> None:
        api, inst_id = self.api, inst['id']
        occs = api.lcmoccs_of(inst_id)
        last = occs[-1] if occs else None
        if last and last['operationState'] not in tacker_api.TERMINAL:
            last = api.wait(last['id'])     # Tacker refuses all until then
        stack = self.conn.orchestration.find_stack(f'vnf-{inst_id}')
        servers = cloud.stack_servers(self.conn, stack) if stack else []
        for action in clean_up_actions(
                last and last['operationState'],
                inst['instantiationState']):
            if action == 'rollback':
                _roll_back(api, last)
            elif action == 'terminate':
                occ = api.wait(api.lcm(inst_id, 'terminate',
                                       {'terminationType': 'FORCEFUL'}))
                print(f'  Tacker terminated the VNF: '
                      f'{occ["operationState"]}')
            else:
                # a failed (not rolled back) instantiate leaves its stack
                cloud.delete_stack(self.conn, f'vnf-{inst_id}', servers)
                api.delete_instance(inst_id)
                print(f'  VNF {inst_id} deleted')


def _roll_back(api: tacker_api.TackerApi, occ: dict) -> None:
    print(f"  LCM operation {occ['id']} ({occ['operation']}) is "
          'FAILED_TEMP: rolling it back')
    done = api.occ_action(occ['id'], 'rollback')
    print(f"  rollback: {done['operationState']}")
    if done['operationState'] != 'ROLLED_BACK':
        done = api.occ_action(occ['id'], 'fail')
        print(f"  rollback failed; the operation marked "
              f"{done['operationState']}")


def _print_attempts(addon: dict, inst_id: str) -> None:
    """Our attempts for the VNF, read from our operation records."""
    ops = tacker_api.operations_for(
        tacker_api.our_database(addon['etc']), inst_id)
    for op in ops:
        for attempt in op.attempts:
            reasons = '; '.join(attempt.decision.get('reasons', [])[:2])
            print(f'  attempt {attempt.seq}: {attempt.vdu_id} in '
                  f'{attempt.zone}: {attempt.outcome} ({reasons})')
