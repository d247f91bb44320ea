"""``placement-ext-tacker-conductor``: Tacker's conductor with our zone
reselection.

It takes tacker-conductor's own arguments (``--config-file tacker.conf``)
and runs Tacker's conductor main after making Tacker's v2 conductor build
our infra driver (:mod:`placement_ext.adapters.tacker.driver`); no Tacker
file is edited. Replace ``tacker-conductor`` by this command in the
service unit (or devstack's ``TACKER_CONDUCTOR`` setting). A Tacker
release we have not checked the driver against is refused at start.
"""

import os
import sys
from importlib import metadata

PROG = 'placement-ext-tacker-conductor'
# Tacker releases whose v2 OpenStack driver we subclass (its
# _update_stack_retry signature and the module-level lookup of
# openstack.Openstack by the v2 conductor).
SUPPORTED_MAJOR = (16,)


def tacker_version() -> str | None:
    try:
        return metadata.version('tacker')
    except metadata.PackageNotFoundError:
        return None


def unsupported(version: str | None) -> str | None:
    """Why this Tacker cannot run our driver, or None when it can."""
    if version is None:
        return 'Tacker is not installed in this Python environment'
    try:
        major = int(version.split('.', 1)[0])
    except ValueError:
        major = None
    if major not in SUPPORTED_MAJOR:
        wanted = ', '.join(f'{m}.x' for m in SUPPORTED_MAJOR)
        return (f'Tacker {version} is not supported (supported: {wanted}); '
                f'run tacker-conductor without placement_ext instead')
    return None


def main() -> int:
    why = unsupported(tacker_version())
    if why:
        sys.stderr.write(f'{PROG}: {why}\n')
        return 2
    # tacker.cmd.conductor selects oslo.service's backend on import: it
    # must come before anything else of Tacker's.
    from tacker.cmd import conductor
    sys.stderr.write(f'{PROG}: starting Tacker {tacker_version()} '
                     f'(pid {os.getpid()})\n')

    from placement_ext.adapters.tacker import driver
    driver.install()
    conductor.main()
    return 0


if __name__ == '__main__':
    sys.exit(main())
