"""A real Tacker 16 on the embedded cloud (minicloud addon ``tacker``),
its conductor started by ``placement-ext-tacker-conductor``."""

import configparser
import json
import pathlib
import uuid

import testtools

from placement_ext.objects import operation as op_obj
from placement_ext.testing import tacker_api
from placement_ext.tests.functional.cloud import fixture

MODE_FILE = 'tacker-mode.conf'
_STATE: dict = {}


def write_mode(etc: str, sections: dict[str, dict]) -> bool:
    """Write the last config file of the Tacker services; True when it
    changed (they must then be restarted)."""
    path = pathlib.Path(etc, MODE_FILE)
    text = ''.join(f'[{name}]\n' + ''.join(
        f'{key} = {value}\n' for key, value in sorted(opts.items()))
        for name, opts in sorted(sections.items()))
    if path.exists() and path.read_text() == text:
        return False
    path.write_text(text)
    return True


def external_nfvo(addon: dict) -> dict[str, dict]:
    """The tacker.conf lines that put placement-ext-nfvo in front of
    Tacker, with the client it knows (its nfvo.conf)."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(pathlib.Path(addon['etc'], 'nfvo.conf'))
    url = addon['urls']['nfvo']
    return {'v2_nfvo': {
        'use_external_nfvo': 'true', 'use_client_secret_basic': 'true',
        'endpoint': url,
        'token_endpoint': f'{url}/token',
        'client_id': parser['nfvo_api']['client_id'],
        'client_password': parser['nfvo_api']['client_secret']}}


def restart_tacker() -> None:
    for service in ('tacker-server', 'tacker-conductor'):
        result = fixture.run_minicloud('addon', 'restart', 'tacker',
                                       service, timeout=600)
        if result.returncode != 0:
            raise RuntimeError(f'restart {service}: {result.stdout}'
                               f'{result.stderr}')


# the addon's variable naming the conductor ``addon restart`` starts
# (tools/minicloud/addon_tacker.py)
CONDUCTOR_VARIABLE = 'PLACEMENT_EXT_MINICLOUD_TACKER_CONDUCTOR'


def restart_conductor(tackers: bool = False) -> None:
    """Restart the addon's tacker-conductor as Tacker's own
    ``tacker-conductor`` (``tackers``) or as ours, on the same
    configuration, as an operator swaps them (doc/source/tacker.rst)."""
    result = fixture.run_minicloud(
        'addon', 'restart', 'tacker', 'tacker-conductor', timeout=600,
        env={CONDUCTOR_VARIABLE: 'tacker' if tackers else 'ours'})
    if result.returncode != 0:
        raise RuntimeError(f'restart tacker-conductor: {result.stdout}'
                           f'{result.stderr}')


class TackerTestCase(testtools.TestCase):
    """``self.tacker`` (API as the cloud's admin), ``self.cloud``, and
    the test VNF package onboarded once per test process."""

    def mode(self) -> dict[str, dict]:
        """tacker.conf sections this test's Tacker runs with."""
        return {}

    def setUp(self):
        super().setUp()
        self.addon = self.use_tacker()
        self.cloud = self.addon['cloud']
        if write_mode(self.addon['etc'], self.mode()):
            restart_tacker()
        # Tacker's VNFs and the zone fillers are the admin's: no quota
        # may stop them before the zones are full
        quotas = self.cloud.admin.get_compute_quotas('admin')
        self.addCleanup(self.cloud.admin.set_compute_quotas, 'admin',
                        instances=quotas.instances, cores=quotas.cores,
                        ram=quotas.ram)
        self.cloud.admin.set_compute_quotas(
            'admin', instances=-1, cores=-1, ram=-1)
        self.tacker = tacker_api.TackerApi(self.addon['urls']['tacker'],
                                           self.cloud.admin)
        self.vnfd_id = self._package()
        # per Tacker (the addon's, the HA topology's)
        state = _STATE.setdefault(str(self.addon['etc']), {})
        if 'db' not in state:
            state['db'] = tacker_api.our_database(self.addon['etc'])
        self.db = state['db']

    def use_tacker(self) -> dict:
        """The addon's status (``etc``, ``venv``, ``urls``; ``cloud``: a
        MiniCloud)."""
        return fixture.use_addon(self, 'tacker')

    def _package(self) -> str:
        state = _STATE.setdefault(str(self.addon['etc']), {})
        if 'vnfd_id' not in state:
            vnfd_id = str(uuid.uuid4())
            self.tacker.upload_package(tacker_api.build_package(
                self.addon['venv'], vnfd_id))
            state['vnfd_id'] = vnfd_id
        return state['vnfd_id']

    def vim(self) -> dict:
        auth = self.cloud.admin.config.config['auth']
        return tacker_api.vim_connection_info(auth, 'RegionOne')

    def start(self) -> tuple[str, str]:
        """(VNF instance, its instantiate occurrence), not waited for."""
        inst_id = self.tacker.create_instance(self.vnfd_id,
                                              fixture.unique_name('vnf'))
        return inst_id, self.tacker.lcm(
            inst_id, 'instantiate', tacker_api.instantiate_request(
                self.vim()))

    def instantiate(self) -> tuple[str, dict]:
        """A new VNF instantiated through Tacker's v2 API: (its id, the
        LCM operation occurrence when it ended)."""
        inst_id, lcm_id = self.start()
        return inst_id, self.tacker.wait(lcm_id)

    def zones(self, inst_id: str) -> dict[str, str]:
        return tacker_api.vnfc_zones(self.tacker.instance(inst_id))

    def operations(self, inst_id: str) -> list[op_obj.Operation]:
        """Our operations (with attempts) for a VNF, oldest first."""
        return tacker_api.operations_for(self.db, inst_id)

    def quota_left(self, instances: int) -> None:
        """The admin may start ``instances`` more servers (then Heat
        fails with Nova's quota error, which no zone move can fix)."""
        used = len(list(self.cloud.admin.compute.servers()))
        self.cloud.admin.set_compute_quotas('admin',
                                            instances=used + instances)

    def assertCompleted(self, occ: dict) -> None:
        self.assertEqual('COMPLETED', occ['operationState'],
                         json.dumps(occ.get('error'), indent=1))
