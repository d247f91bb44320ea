"""Tacker's own APIs, over HTTP with a Keystone token, for the tests,
the benchmark and the demo: VNF package upload (``/vnfpkgm/v1``) and the
v2 VNF LCM API (``/vnflcm/v2``).

The demo and test VNF package (``tacker_vnf_package/``) is zipped at run
time with the ETSI SOL 001 type definitions and the StandardUserData
script taken from the installed Tacker, so nothing of Tacker's is copied
into our tree.
"""

import io
import json
import pathlib
import time
import uuid
import zipfile

import requests

PACKAGE_DIR = pathlib.Path(__file__).parent / 'tacker_vnf_package'
# where Tacker's wheel has them
_SOL001_TYPES = 'tacker/tests/unit/vnfm/infra_drivers/openstack/data/etsi_nfv'
_USERDATA = 'tacker/sol_refactored/infra_drivers/openstack/' \
            'userdata_standard.py'
TERMINAL = ('COMPLETED', 'FAILED_TEMP', 'FAILED', 'ROLLED_BACK')
LCM_TIMEOUT = 600        # seconds; generous: the machine is shared


class TackerError(Exception):
    def __init__(self, status: int, body: str) -> None:
        super().__init__(f'HTTP {status}: {body[:2000]}')
        self.status = status
        self.body = body


def site_packages(venv: str) -> pathlib.Path:
    found = sorted(pathlib.Path(venv).glob('lib/python3*/site-packages'))
    if not found:
        raise FileNotFoundError(f'no site-packages in {venv}')
    return found[0]


def build_package(venv: str, vnfd_id: str) -> bytes:
    """The test VNF package as CSAR (zip) bytes, for VNFD ``vnfd_id``."""
    site = site_packages(venv)
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w') as csar:
        for path in sorted(PACKAGE_DIR.rglob('*')):
            if path.is_file():
                text = path.read_text().replace('VNFD_ID', vnfd_id)
                csar.writestr(str(path.relative_to(PACKAGE_DIR)), text)
        for name in ('etsi_nfv_sol001_common_types.yaml',
                     'etsi_nfv_sol001_vnfd_types.yaml'):
            csar.write(site / _SOL001_TYPES / name, f'Definitions/{name}')
        csar.write(site / _USERDATA, 'UserData/userdata_standard.py')
    return out.getvalue()


def vim_connection_info(clouds_auth: dict, region: str) -> dict:
    """The embedded cloud as the VNF's VIM (its admin account)."""
    return {'vim1': {
        'vimId': str(uuid.uuid5(uuid.NAMESPACE_URL,
                                clouds_auth['auth_url'])),
        'vimType': 'ETSINFV.OPENSTACK_KEYSTONE.V_3',
        'interfaceInfo': {'endpoint': clouds_auth['auth_url']},
        'accessInfo': {
            'username': clouds_auth['username'],
            'password': clouds_auth['password'],
            'project': clouds_auth['project_name'],
            'projectDomain': clouds_auth['project_domain_name'],
            'userDomain': clouds_auth['user_domain_name'],
            'region': region}}}


class TackerApi:
    """A few calls of Tacker's API as the cloud's admin."""

    def __init__(self, url: str, conn: object) -> None:
        self.url = url.rstrip('/')
        self._conn = conn          # openstacksdk connection (token)

    def call(self, method: str, path: str, body: object = None,
             content_type: str = 'application/json',
             version: str | None = '2.0.0') -> tuple[int, dict, dict]:
        data = body
        if body is not None and content_type == 'application/json':
            data = json.dumps(body).encode()
        headers = {'X-Auth-Token': self._conn.auth_token,
                   'Accept': 'application/json'}
        if data is not None:
            headers['Content-Type'] = content_type
        if version:
            headers['Version'] = version
        resp = requests.request(method, self.url + path, data=data,
                                headers=headers, timeout=120)
        if resp.status_code >= 400:
            raise TackerError(resp.status_code, resp.text)
        return (resp.status_code, dict(resp.headers),
                resp.json() if resp.content else {})

    # -- packages (v1 API: Tacker has no v2 package management) -----------

    def upload_package(self, csar: bytes, timeout: float = 300) -> str:
        """Onboard ``csar``; return the package id."""
        _, _, pkg = self.call('POST', '/vnfpkgm/v1/vnf_packages', {},
                              version=None)
        self.call('PUT', f'/vnfpkgm/v1/vnf_packages/{pkg["id"]}/'
                  'package_content', csar, content_type='application/zip',
                  version=None)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _, _, pkg = self.call('GET', f'/vnfpkgm/v1/vnf_packages/'
                                  f'{pkg["id"]}', version=None)
            if pkg['onboardingState'] == 'ONBOARDED':
                return pkg['id']
            if pkg['onboardingState'] == 'CREATED':
                # Tacker puts a package it could not process back to
                # CREATED (the reason is in tacker-conductor's log)
                raise TackerError(0, f'package not onboarded: {pkg}')
            time.sleep(1)
        raise TimeoutError(f'package {pkg["id"]} not onboarded: {pkg}')

    # -- VNF LCM v2 ---------------------------------------------------------

    def create_instance(self, vnfd_id: str, name: str) -> str:
        _, _, inst = self.call('POST', '/vnflcm/v2/vnf_instances', {
            'vnfdId': vnfd_id, 'vnfInstanceName': name})
        return inst['id']

    def lcm(self, inst_id: str, action: str, body: dict) -> str:
        """Start ``action`` (instantiate, scale, heal, ...); the op occ id."""
        _, headers, _ = self.call(
            'POST', f'/vnflcm/v2/vnf_instances/{inst_id}/{action}', body)
        return headers['Location'].rstrip('/').rsplit('/', 1)[-1]

    def wait(self, lcmocc_id: str, timeout: float = LCM_TIMEOUT) -> dict:
        """The op occ once it is in a terminal (or FAILED_TEMP) state."""
        deadline = time.monotonic() + timeout
        while True:
            occ = self.lcmocc(lcmocc_id)
            if occ['operationState'] in TERMINAL:
                return occ
            if time.monotonic() > deadline:
                raise TimeoutError(f'{lcmocc_id} still '
                                   f'{occ["operationState"]}')
            time.sleep(2)

    def lcmocc(self, lcmocc_id: str) -> dict:
        return self.call('GET', f'/vnflcm/v2/vnf_lcm_op_occs/{lcmocc_id}')[2]

    def instance(self, inst_id: str) -> dict:
        return self.call('GET', f'/vnflcm/v2/vnf_instances/{inst_id}')[2]


# Tacker runs the user data script named in each LCM request
USER_DATA = {
    'lcm-operation-user-data': './UserData/userdata_standard.py',
    'lcm-operation-user-data-class': 'StandardUserData'}


def instantiate_request(vim: dict) -> dict:
    return {'flavourId': 'simple', 'vimConnectionInfo': vim,
            'additionalParams': dict(USER_DATA)}


def scale_out_request(aspect: str = 'VDU1_scale') -> dict:
    return {'type': 'SCALE_OUT', 'aspectId': aspect, 'numberOfSteps': 1,
            'additionalParams': dict(USER_DATA)}


def heal_request(vnfc_info_ids: list[str]) -> dict:
    return {'vnfcInstanceId': vnfc_info_ids,
            'additionalParams': dict(USER_DATA)}


def vnfc_zones(inst: dict) -> dict[str, str]:
    """``VDU1-0`` -> zone of every VNFC of an instantiated VNF."""
    vnfcs = inst['instantiatedVnfInfo']['vnfcResourceInfo']
    return {f'{v["vduId"]}-{v["metadata"]["vdu_idx"]}':
            v['metadata'].get('zone') for v in vnfcs}


def heat_attempts(conn: object, inst_id: str) -> int:
    """Stack creates and updates Heat started for a VNF's stack (its
    ``Stack CREATE/UPDATE started`` events); ``conn``: openstacksdk."""
    name = f'vnf-{inst_id}'
    stack = conn.orchestration.find_stack(name)
    if stack is None:
        return 0
    events = conn.orchestration.get(
        f'/stacks/{name}/{stack.id}/events?resource_name={name}'
        f'&limit=1000').json()['events']
    return sum(1 for e in events if e.get('resource_status_reason') in (
        'Stack CREATE started', 'Stack UPDATE started'))
