"""Run Tacker's own ``AzRetryTest.test_update_stack_retry`` on this cloud.

    <tacker venv>/bin/python -m placement_ext.tests.functional.tacker.\\
        upstream_az_retry TACKER_CONF KEYSTONE_URL FAKE_SERVER_PORT

Runs in the tacker addon's venv (Tacker's test modules are in its wheel)
with the standard library's runner. The test is Tacker's, unchanged; only
where it looks for its files is pointed at ours: its sample root (the
VNF package ``az_retry_package`` beside this file, the SOL001 type files
of the wheel, a stand-in image file, ``local-vim.yaml`` naming upstream's
``nfv_user``), the config file it reads as ``/etc/tacker/tacker.conf``,
and the port of its fake notification server. Exit status 0 when the
test passed.
"""

import functools
import hashlib
import pathlib
import shutil
import sys
import tempfile
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
TEST = 'AzRetryTest.test_update_stack_retry'


def sample_tree(root: pathlib.Path, keystone_url: str) -> None:
    """Tacker's ``samples/tests`` layout, with our files."""
    import tacker

    shutil.copytree(PACKAGE, root / SAMPLE / 'userdata_standard_az_retry')
    common = root / SAMPLE / 'common' / 'Definitions'
    common.mkdir(parents=True)
    for name in ('etsi_nfv_sol001_common_types.yaml',
                 'etsi_nfv_sol001_vnfd_types.yaml'):
        shutil.copy(pathlib.Path(tacker.__file__).parent / SOL001_TYPES /
                    name, common)
    image = root / IMAGE
    image.parent.mkdir(parents=True)
    image.write_bytes(IMAGE_BYTES)
    _set_image_hash(root / SAMPLE / 'userdata_standard_az_retry',
                    hashlib.sha256(IMAGE_BYTES).hexdigest())
    (root / 'etc' / 'samples' / 'local-vim.yaml').write_text(yaml.safe_dump({
        'auth_url': keystone_url, 'username': 'nfv_user',
        'password': 'devstack', 'project_name': 'nfv',
        'domain_name': 'Default', 'user_domain_name': 'Default',
        'project_domain_name': 'Default'}))


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


def main(argv: list[str]) -> int:
    conf, keystone_url, port = argv
    with tempfile.TemporaryDirectory(prefix='tacker-samples-') as tmp:
        root = pathlib.Path(tmp)
        sample_tree(root, keystone_url)
        point_tacker_at(root, conf, int(port))
        from tacker.tests.functional.sol_v2_az_retry import test_az_retry

        suite = unittest.defaultTestLoader.loadTestsFromName(
            TEST, test_az_retry)
        result = unittest.TextTestRunner(stream=sys.stdout,
                                         verbosity=2).run(suite)
    return 0 if result.wasSuccessful() and result.testsRun == 1 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
