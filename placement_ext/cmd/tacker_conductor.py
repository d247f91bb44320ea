"""``placement-ext-tacker-conductor``: Tacker's conductor with our zone
reselection.

It takes tacker-conductor's own arguments (``--config-file tacker.conf``)
and runs Tacker's conductor main after making Tacker's v2 conductor build
our infra driver (:mod:`placement_ext.adapters.tacker.driver`); no Tacker
file is edited. Replace ``tacker-conductor`` by this command in the
service unit (or devstack's ``TACKER_CONDUCTOR`` setting). A Tacker
release we have not checked the driver against is refused at start
(supported: :data:`placement_ext.adapters.tacker.compat.SUPPORTED`).

Our options are read, and our database brought to the current schema,
before Tacker's conductor starts: what is wrong stops the start, with
the option named. With ``[placement_ext] zone_reselection = false``
nothing else of ours is read and Tacker's conductor runs unchanged.
"""

import importlib
import os
import sys

from placement_ext.adapters import releases
from placement_ext.adapters.tacker import compat

PROG = 'placement-ext-tacker-conductor'


def tacker_version() -> str | None:
    return releases.installed_version(compat.SUPPORTED.service)


def unsupported(version: str | None) -> str | None:
    """Why this Tacker cannot run our driver, or None when it can
    (:mod:`placement_ext.adapters.tacker.compat` names the releases)."""
    why = compat.refusal(version)
    return why and f'{why}; run tacker-conductor without placement_ext ' \
        'instead'


def main() -> int:
    why = unsupported(tacker_version())
    if why:
        sys.stderr.write(f'{PROG}: {why}\n')
        return 2
    # Tacker's conductor module selects oslo.service's backend (or
    # eventlet's monkey patching) on import: it must come before anything
    # else of Tacker's. Where it is depends on the release (compat).
    conductor = importlib.import_module(
        compat.conductor_main(tacker_version()))
    sys.stderr.write(f'{PROG}: starting Tacker {tacker_version()} '
                     f'(pid {os.getpid()})\n')

    from placement_ext import exception
    from placement_ext.adapters.tacker import driver
    try:
        runtimes = driver.start(sys.argv[1:])
    except exception.InvalidInput as exc:
        sys.stderr.write(f'{PROG}: {exc}\n')
        return 2
    if runtimes is None:
        sys.stderr.write(f'{PROG}: [placement_ext] zone_reselection is '
                         f'false: Tacker\'s conductor runs unchanged\n')
    else:
        driver.install(runtimes)
    conductor.main()
    return 0


if __name__ == '__main__':
    sys.exit(main())
