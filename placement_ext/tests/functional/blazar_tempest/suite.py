"""Blazar's own tempest suite (blazar-tempest-plugin from PyPI, pinned),
run unchanged against the embedded cloud with the Blazar addon.

* **venv**: ``.blazar-tempest-venv`` (uv, as the addons' venvs), the two
  pins with the versions they passed with
  (``tools/minicloud/constraints/blazar-tempest.txt``); installed once,
  again when that file changes.
* **users**: pre-provisioned (``accounts.yaml``), an admin and a member,
  each in a project of its own, made once and kept. Tempest's dynamic
  users are deleted after each test class, and Blazar ends a lease
  through its creator's Keystone trust: a lease a failed test left
  behind could not be deleted any more (DELETE answers 500) once its
  creator is gone. Kept users keep every lease deletable. The API
  tests' fixture asks for dynamic credentials (it calls
  ``get_credentials``, which only that provider has): they run with
  dynamic users made by the kept admin, which that fixture never
  deletes.
* **tempest.conf**: the cloud's Keystone, image and flavor; no Neutron
  (the tests boot servers without networks), no validation over SSH.
* **run**: ``stestr`` in the workspace ``.blazar-tempest/``, one regex at a
  time; :func:`results` reads each upstream test's status back from the
  run's subunit stream.
"""

import configparser
import dataclasses
import hashlib
import io
import os
import pathlib
import subprocess

import subunit
import testtools
import yaml

REPO = pathlib.Path(__file__).resolve().parents[4]
VENV = REPO / '.blazar-tempest-venv'
WORKSPACE = REPO / '.blazar-tempest'
PINS = ('tempest==47.0.0', 'blazar-tempest-plugin==0.19.0')
CONSTRAINTS = REPO / 'tools' / 'minicloud' / 'constraints' / \
    'blazar-tempest.txt'
MINICLOUD = REPO / 'tools' / 'minicloud' / 'minicloud'
PASSWORD = 'blazar-tempest'
# name -> (project, roles, tempest's account types)
ACCOUNTS = {
    'blazar-tempest-admin': ('blazar-tempest-admin', ['admin'], ['admin']),
    'blazar-tempest-member': ('blazar-tempest-member', ['member'], []),
}
RUN_TIMEOUT = 1800


class SuiteError(Exception):
    """The suite could not be installed or started; the message says
    why."""


def ensure_venv() -> pathlib.Path:
    """The suite's venv, installed when missing or when the pins
    changed."""
    want = hashlib.sha256(
        (' '.join(PINS) + CONSTRAINTS.read_text()).encode()).hexdigest()
    stamp = VENV / '.pins'
    if stamp.exists() and stamp.read_text() == want:
        return VENV
    log = WORKSPACE / 'pip-install.log'
    WORKSPACE.mkdir(exist_ok=True)
    with open(log, 'wb') as out:
        for args in (['venv', '--quiet', '--seed', '--python', 'python3',
                      str(VENV)],
                     ['pip', 'install', '--python', str(VENV / 'bin/python'),
                      '-c', str(CONSTRAINTS), *PINS]):
            if subprocess.run([str(MINICLOUD), 'uv', *args], stdout=out,
                              stderr=subprocess.STDOUT).returncode:
                raise SuiteError(f'installing {PINS} failed: see {log}')
    stamp.write_text(want)
    return VENV


def ensure_accounts(admin) -> pathlib.Path:
    """The kept users (``admin``: an openstacksdk connection as the
    cloud's admin) and tempest's ``accounts.yaml`` naming them."""
    identity = admin.identity
    entries = []
    for user, (project, roles, types) in ACCOUNTS.items():
        proj = identity.find_project(project) or identity.create_project(
            name=project, domain_id='default')
        found = identity.find_user(user)
        if found:
            identity.update_user(found, password=PASSWORD)
        else:
            found = identity.create_user(name=user, password=PASSWORD,
                                         default_project_id=proj.id,
                                         domain_id='default')
        for role in roles:
            identity.assign_project_role_to_user(
                proj, found, identity.find_role(role, ignore_missing=False))
        entries.append({'username': user, 'project_name': project,
                        'password': PASSWORD, 'domain_name': 'Default',
                        'roles': roles, 'types': types})
    path = WORKSPACE / 'accounts.yaml'
    path.write_text(yaml.safe_dump(entries))
    return path


@dataclasses.dataclass(frozen=True)
class Cloud:
    """What tempest.conf needs of the cloud."""
    auth_url: str      # Keystone v3
    region: str
    image_id: str
    flavor_id: str


def _auth(accounts: pathlib.Path, dynamic: bool) -> dict[str, str]:
    if not dynamic:
        return {'use_dynamic_credentials': 'false',
                'test_accounts_file': str(accounts)}
    user, (project, _, _) = next(
        (u, a) for u, a in ACCOUNTS.items() if 'admin' in a[2])
    return {'use_dynamic_credentials': 'true', 'admin_username': user,
            'admin_password': PASSWORD, 'admin_project_name': project,
            'admin_domain_name': 'Default'}


def write_config(cloud: Cloud, accounts: pathlib.Path,
                 dynamic: bool = False) -> pathlib.Path:
    """tempest.conf: the kept users of ``accounts``, or (``dynamic``)
    users tempest makes with the kept admin."""
    conf = configparser.ConfigParser(interpolation=None)
    conf.read_dict({
        'DEFAULT': {'log_file': str(WORKSPACE / 'tempest.log'),
                    'debug': 'true'},
        'oslo_concurrency': {'lock_path': str(WORKSPACE / 'locks')},
        'auth': {**_auth(accounts, dynamic),
                 'default_credentials_domain_name': 'Default',
                 'create_isolated_networks': 'false'},
        'identity': {'uri_v3': cloud.auth_url, 'auth_version': 'v3',
                     'region': cloud.region,
                     'v3_endpoint_type': 'public'},
        'identity-feature-enabled': {'api_v2': 'false'},
        'compute': {'image_ref': cloud.image_id,
                    'flavor_ref': cloud.flavor_id,
                    'endpoint_type': 'publicURL',
                    'build_timeout': '300'},
        'compute-feature-enabled': {'console_output': 'false'},
        'validation': {'run_validation': 'false'},
        'service_available': {'blazar': 'true', 'nova': 'true',
                              'glance': 'true', 'neutron': 'false',
                              'cinder': 'false', 'swift': 'false',
                              'horizon': 'false'},
        'resource_reservation': {'endpoint_type': 'publicURL',
                                 'lease_interval': '10',
                                 'lease_end_timeout': '300'},
    })
    (WORKSPACE / 'etc').mkdir(parents=True, exist_ok=True)
    path = WORKSPACE / 'etc' / 'tempest.conf'
    with open(path, 'w') as f:
        conf.write(f)
    return path


def _stestr_conf(venv: pathlib.Path) -> None:
    # what "tempest init" writes (it takes most of a minute to start)
    site = next(venv.glob('lib/python3*/site-packages'))
    (WORKSPACE / '.stestr.conf').write_text(
        '[DEFAULT]\n'
        f'test_path={site}/tempest/test_discover\n'
        f'top_dir={site}/tempest\n'
        'group_regex=([^\\.]*\\.)*\n')


def run(venv: pathlib.Path, regex: str) -> tuple[dict[str, str], str]:
    """Run the upstream tests matching ``regex`` (serially); returns
    {test id: status} and the run's output."""
    _stestr_conf(venv)
    env = {**os.environ, 'TEMPEST_CONFIG_DIR': str(WORKSPACE / 'etc'),
           'TEMPEST_CONFIG': 'tempest.conf'}
    stestr = str(venv / 'bin' / 'stestr')
    if not (WORKSPACE / '.stestr').exists():
        subprocess.run([stestr, 'init'], cwd=WORKSPACE, env=env, check=True,
                       capture_output=True)
    out = subprocess.run([stestr, 'run', '--concurrency', '1', regex],
                         cwd=WORKSPACE, env=env, capture_output=True,
                         text=True, timeout=RUN_TIMEOUT)
    stream = subprocess.run([stestr, 'last', '--subunit'], cwd=WORKSPACE,
                            env=env, capture_output=True, timeout=120)
    return results(stream.stdout), out.stdout + out.stderr


def results(stream: bytes) -> dict[str, str]:
    """{test id (without tempest's attributes): status} of a subunit v2
    stream; status is testtools' (success, fail, skip, ...)."""
    found: dict[str, str] = {}

    def on_test(test: dict) -> None:
        if test['id'] and test['status'] not in ('exists', 'inprogress'):
            found[test['id'].split('[')[0]] = test['status']

    case = subunit.ByteStreamToStreamResult(
        io.BytesIO(stream), non_subunit_name='stdout')
    result = testtools.StreamToDict(on_test)
    result.startTestRun()
    try:
        case.run(result)
    finally:
        result.stopTestRun()
    return found

