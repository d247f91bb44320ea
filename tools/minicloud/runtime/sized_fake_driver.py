"""Nova's fake virt driver with the host size taken from configuration.

nova.virt.fake's drivers have sizes fixed per class. This one reads them
from its compute's config file, so each fake host can have its own::

    [DEFAULT]
    compute_driver = sized_fake_driver.SizedFakeDriver
    [sized_fake_driver]
    vcpus = 2
    memory_mb = 8192
    local_gb = 1028

Defaults are SmallFakeDriver's, or the SIZED_FAKE_DRIVER_VCPUS /
_MEMORY_MB / _LOCAL_GB environment variables when set. Nova loads
drivers only from ``nova.virt``: start nova-compute with
``python -m nova_compute`` (this folder on PYTHONPATH), which registers
this module as ``nova.virt.sized_fake_driver``.
"""

import os

from nova import conf as nova_conf
from nova.virt import fake
from oslo_config import cfg

GROUP = 'sized_fake_driver'
CONF = nova_conf.CONF


def _default(name: str, small: int) -> int:
    return int(os.environ.get(f'SIZED_FAKE_DRIVER_{name.upper()}', small))


_opts = [
    cfg.IntOpt('vcpus', min=1, default=_default('vcpus', 2),
               help='VCPU inventory of this fake host.'),
    cfg.IntOpt('memory_mb', min=1, default=_default('memory_mb', 8192),
               help='MEMORY_MB inventory of this fake host.'),
    cfg.IntOpt('local_gb', min=1, default=_default('local_gb', 1028),
               help='DISK_GB inventory of this fake host.'),
]
CONF.register_opts(_opts, group=GROUP)


class SizedFakeDriver(fake.FakeDriver):
    """FakeDriver sized by the [sized_fake_driver] options."""

    def __init__(self, virtapi, read_only=False):
        # instance attributes shadow FakeDriver's class-level sizes, which
        # its __init__ and update_provider_tree read
        size = CONF[GROUP]
        self.vcpus = size.vcpus
        self.memory_mb = size.memory_mb
        self.local_gb = size.local_gb
        super().__init__(virtapi, read_only=read_only)
