"""nova-compute with our SizedFakeDriver available to it.

    python -m nova_compute --config-file ... (nova-compute's arguments)

Nova imports a compute driver only as ``nova.virt.<compute_driver>``, so
the driver module is registered under that name before nova-compute's
own main() runs. nova.cmd.compute is imported first: it applies Nova's
monkey patching, which must happen before the rest of Nova is imported.
"""

import importlib
import sys

from nova.cmd import compute

sys.modules['nova.virt.sized_fake_driver'] = importlib.import_module(
    'sized_fake_driver')

if __name__ == '__main__':
    sys.exit(compute.main())
