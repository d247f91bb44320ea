"""Blazar's own tempest suite (blazar-tempest-plugin from PyPI, pinned),
run unchanged against the embedded cloud with the Blazar addon.

* **venv**: ``.blazar-tempest-venv`` (uv, as the addons' venvs), the two
  pins with the versions they passed with
  (``tools/minicloud/constraints/blazar-tempest.txt``); installed once,
  again when that file changes.
* **users**: tempest's own (dynamic), made by a kept admin
  (``blazar-tempest-admin``). The plugin's tests ask their credentials
  provider for ``get_credentials('admin')``, which only the dynamic
  provider has, so pre-provisioned users (``accounts.yaml``) cannot run
  them. Tempest deletes its users after each class, and Blazar ends a
  lease through its creator's Keystone trust: a lease a failed test left
  could not be deleted any more (DELETE answers 500). So tempest's
  identity client goes through the test's proxy (catalog type
  ``tempest-identity``, ``proxy.py``), which keeps those users until the
  test has deleted every lease (:func:`delete_tempest_users`).
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

REPO = pathlib.Path(__file__).resolve().parents[4]
VENV = REPO / '.blazar-tempest-venv'
WORKSPACE = REPO / '.blazar-tempest'
PINS = ('tempest==47.0.0', 'blazar-tempest-plugin==0.19.0')
CONSTRAINTS = REPO / 'tools' / 'minicloud' / 'constraints' / \
    'blazar-tempest.txt'
MINICLOUD = REPO / 'tools' / 'minicloud' / 'minicloud'
PASSWORD = 'blazar-tempest'
# the kept admin's user and project
ADMIN = 'blazar-tempest-admin'
IDENTITY_TYPE = 'tempest-identity'
# tempest's resource_name_prefix
TEMPEST_PREFIX = 'tempest-'
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


def ensure_admin(admin) -> None:
    """The kept admin tempest makes its users with (``admin``: an
    openstacksdk connection as the cloud's admin)."""
    identity = admin.identity
    proj = identity.find_project(ADMIN) or identity.create_project(
        name=ADMIN, domain_id='default')
    user = identity.find_user(ADMIN)
    if user:
        identity.update_user(user, password=PASSWORD)
    else:
        user = identity.create_user(name=ADMIN, password=PASSWORD,
                                    default_project_id=proj.id,
                                    domain_id='default')
    identity.assign_project_role_to_user(
        proj, user, identity.find_role('admin', ignore_missing=False))


def ensure_identity_endpoint(admin, region: str, url: str) -> None:
    """Catalog type ``tempest-identity`` at ``url`` (the proxy)."""
    identity = admin.identity
    service = next((s for s in identity.services()
                    if s.type == IDENTITY_TYPE), None) or \
        identity.create_service(type=IDENTITY_TYPE, name=IDENTITY_TYPE)
    if not any(e.service_id == service.id
               for e in identity.endpoints(interface='public')):
        identity.create_endpoint(service_id=service.id, interface='public',
                                 url=url, region_id=region)


def delete_tempest_users(admin) -> None:
    """Tempest's own users and projects (named ``tempest-...``), which
    the proxy kept."""
    identity = admin.identity
    for user in list(identity.users()):
        if user.name.startswith(TEMPEST_PREFIX):
            identity.delete_user(user, ignore_missing=True)
    for project in list(identity.projects()):
        if project.name.startswith(TEMPEST_PREFIX):
            identity.delete_project(project, ignore_missing=True)


@dataclasses.dataclass(frozen=True)
class Cloud:
    """What tempest.conf needs of the cloud."""
    auth_url: str      # Keystone v3
    region: str
    image_id: str
    flavor_id: str


def write_config(cloud: Cloud) -> pathlib.Path:
    conf = configparser.ConfigParser(interpolation=None)
    conf.read_dict({
        'DEFAULT': {'log_file': str(WORKSPACE / 'tempest.log'),
                    'debug': 'true'},
        'oslo_concurrency': {'lock_path': str(WORKSPACE / 'locks')},
        'auth': {'use_dynamic_credentials': 'true',
                 'admin_username': ADMIN, 'admin_password': PASSWORD,
                 'admin_project_name': ADMIN,
                 'admin_domain_name': 'Default',
                 'default_credentials_domain_name': 'Default',
                 'create_isolated_networks': 'false'},
        'identity': {'uri_v3': cloud.auth_url, 'auth_version': 'v3',
                     'region': cloud.region,
                     'catalog_type': IDENTITY_TYPE,
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

