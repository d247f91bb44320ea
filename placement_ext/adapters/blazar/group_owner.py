"""Server groups of Blazar reservations made in the lease's project.

No blazar import: the owner's token comes from the plugin
(:func:`placement_ext.adapters.blazar.plugin.owner_token`).
"""

from collections.abc import Callable

from placement_ext.drivers import nova as nova_driver
from placement_ext.manager import lease_provision
from placement_ext.objects import lease as lease_obj


def owner_nova(token: Callable[[lease_obj.Lease], str | None]
               ) -> Callable[[nova_driver.NovaDriver],
                             lease_provision.GroupNova]:
    """Server groups made with a token of the lease's project (Blazar's
    current context, or the lease's trust), so that they belong to that
    project as upstream's do: Nova only accepts a group of the booting
    project in the ``group`` hint.

    :param token: the lease owner's token, or None.
    """
    def bind(nova: nova_driver.NovaDriver) -> lease_provision.GroupNova:
        def for_lease(lease: lease_obj.Lease
                      ) -> nova_driver.NovaDriver | None:
            owner = token(lease)
            return nova.with_token(owner) if owner else None
        return for_lease
    return bind
