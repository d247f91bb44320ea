"""Run Tacker's own functional tests, unchanged, on this cloud.

    <tacker venv>/bin/python -m placement_ext.tests.functional.tacker.\\
        upstream_tests TACKER_CONF KEYSTONE_URL FAKE_SERVER_PORT SAMPLES \\
        TEST [TEST ...]

Runs in the tacker addon's venv (Tacker's test modules are in its wheel)
with the standard library's runner. The tests are Tacker's, unchanged;
only where they look for their files is pointed at ours: their sample
root (SAMPLES, the ``samples/tests`` tree of Tacker's sdist, or ``-``
for none: then the SOL001 type files of the wheel and a stand-in image;
either way with our Cinder-free ``az_retry_package`` beside this file as
``userdata_standard_az_retry`` and a ``local-vim.yaml`` naming upstream's
``nfv_user`` on our Keystone), the config file they read as
``/etc/tacker/tacker.conf``, and the port of their fake notification
server. As devstack does for upstream's jobs, the default VIM is
registered in Tacker (the tests that instantiate without
``vimConnectionInfo`` use it). TEST: dotted names under
``tacker.tests.functional`` (a module, class or method). Prints each
test's duration; exit status 0 when every test passed.
"""

import functools
import hashlib
import pathlib
import shutil
import sys
import tempfile
import time
import unittest

import yaml

HERE = pathlib.Path(__file__).resolve().parent
PACKAGE = HERE / 'az_retry_package'
SAMPLE = 'functional/sol_v2_common'
UPSTREAM_CONF = '/etc/tacker/tacker.conf'
SOL001_TYPES = 'tests/unit/vnfm/infra_drivers/openstack/data/etsi_nfv'
IMAGE = ('etc/samples/etsi/nfv/common/Files/images/'
         'cirros-0.5.2-x86_64-disk.img')
IMAGE_BYTES = b'\0' * 1024     # a raw image: Nova's fake driver boots it
VIM_NAME = 'VIM0'              # devstack's default VIM
PREFIX = 'tacker.tests.functional.'


def sample_tree(root: pathlib.Path, keystone_url: str,
                samples: pathlib.Path | None) -> None:
    """Tacker's ``samples/tests`` layout: the sdist's, or the few files
    the zone-retry test needs; with our zone-retry package."""
    if samples is not None:
        shutil.copytree(samples, root, dirs_exist_ok=True)
    else:
        _wheel_types(root / SAMPLE / 'common' / 'Definitions')
    image = root / IMAGE
    if not image.exists():
        image.parent.mkdir(parents=True, exist_ok=True)
        image.write_bytes(IMAGE_BYTES)
    ours = root / SAMPLE / 'userdata_standard_az_retry'
    shutil.rmtree(ours, ignore_errors=True)
    shutil.copytree(PACKAGE, ours)
    _set_image_hash(ours, hashlib.sha256(image.read_bytes()).hexdigest())
    (root / 'etc' / 'samples' / 'local-vim.yaml').write_text(yaml.safe_dump({
        'auth_url': keystone_url, 'username': 'nfv_user',
        'password': 'devstack', 'project_name': 'nfv',
        'domain_name': 'Default', 'user_domain_name': 'Default',
        'project_domain_name': 'Default'}))


def _wheel_types(common: pathlib.Path) -> None:
    import tacker

    common.mkdir(parents=True)
    for name in ('etsi_nfv_sol001_common_types.yaml',
                 'etsi_nfv_sol001_vnfd_types.yaml'):
        shutil.copy(pathlib.Path(tacker.__file__).parent / SOL001_TYPES /
                    name, common)


def _set_image_hash(package: pathlib.Path, digest: str) -> None:
    for path in (package / 'contents' / 'Definitions').glob('*df*.yaml'):
        path.write_text(path.read_text().replace('0' * 64, digest))


def point_tacker_at(root: pathlib.Path, conf: str, port: int) -> None:
    from oslo_config import cfg
    from tacker.tests import utils
    from tacker.tests.functional import base_v2

    utils._test_sample_root = lambda: str(root)
    conf_class = type(cfg.CONF)
    original = conf_class.__call__

    def call(self, args=None, **kwargs):
        args = [conf if arg == UPSTREAM_CONF else arg for arg in args or ()]
        return original(self, args=args, **kwargs)

    conf_class.__call__ = call
    server = base_v2.FAKE_SERVER_MANAGER
    server.SERVER_PORT = port
    server.prepare_http_server = functools.partial(
        server.prepare_http_server, port=port)


def register_default_vim(keystone_url: str) -> None:
    """The default VIM, as devstack registers it for upstream's jobs
    (``local-vim.yaml``'s user and project); once."""
    from tacker.sol_refactored.common import http_client

    auth = http_client.KeystonePasswordAuthHandle(
        auth_url=f'{keystone_url}/v3', username='nfv_user',
        password='devstack', project_name='nfv',
        user_domain_name='Default', project_domain_name='Default')
    client = http_client.HttpClient(auth)
    _, body = client.do_request('/v1.0/vims', 'GET', expected_status=[200])
    if any(vim['is_default'] for vim in body['vims']):
        return
    client.do_request('/v1.0/vims', 'POST', expected_status=[201], body={
        'vim': {'name': VIM_NAME, 'type': 'openstack', 'is_default': True,
                'auth_url': f'{keystone_url}/v3',
                'auth_cred': {'username': 'nfv_user', 'password': 'devstack',
                              'user_domain_name': 'Default',
                              'cert_verify': 'False'},
                'vim_project': {'name': 'nfv',
                                'project_domain_name': 'Default'}}})


class _TimedResult(unittest.TextTestResult):
    """Prints each test's duration (Python 3.11 has no --durations)."""

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        self.stream.write(f'duration {test.id()} '
                          f'{time.monotonic() - self._started:.1f}s\n')
        self.stream.flush()


def run(names: list[str]) -> unittest.TestResult:
    suite = unittest.defaultTestLoader.loadTestsFromNames(
        [PREFIX + name for name in names])
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2,
                                     resultclass=_TimedResult)
    return runner.run(suite)


def main(argv: list[str]) -> int:
    conf, keystone_url, port, samples, *names = argv
    with tempfile.TemporaryDirectory(prefix='tacker-samples-') as tmp:
        root = pathlib.Path(tmp)
        sample_tree(root, keystone_url,
                    None if samples == '-' else pathlib.Path(samples))
        point_tacker_at(root, conf, int(port))
        register_default_vim(keystone_url)
        result = run(names)
    return 0 if result.wasSuccessful() and result.testsRun else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
