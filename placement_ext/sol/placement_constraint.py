"""PlacementConstraint and ConstraintResourceRef (SOL 003 v3.3.1).

A placement constraint asks that its resources be placed in the same
(``AFFINITY``) or in pairwise different (``ANTI_AFFINITY``) instances of
its ``scope``: zone, zone group, NFVI node, NFVI-PoP or CIS node.
``fallbackBestEffort`` true lets the NFVO relax it when it cannot be
honoured; absent means false.
"""

import dataclasses
from collections.abc import Mapping

from placement_ext.sol import base
from placement_ext.vocabulary import sol_enums


@dataclasses.dataclass(frozen=True)
class ConstraintResourceRef(base.SolType):
    """A resource named by the request (GRANT) or the VIM (RES_MGMT)."""

    id_type: str = base.attr('idType', required=True)
    resource_id: str = base.attr('resourceId', required=True)
    vim_connection_id: str | None = base.attr('vimConnectionId')
    resource_provider_id: str | None = base.attr('resourceProviderId')

    @classmethod
    def grant(cls, resource_id: str) -> 'ConstraintResourceRef':
        """A resource of this GrantRequest (``ResourceDefinition.id``)."""
        return cls(id_type=sol_enums.GRANT, resource_id=resource_id)

    @classmethod
    def res_mgmt(cls, resource_id: str, vim_connection_id: str | None = None,
                 resource_provider_id: str | None = None,
                 ) -> 'ConstraintResourceRef':
        """An allocated resource, by its identifier in the VIM."""
        return cls(id_type=sol_enums.RES_MGMT, resource_id=resource_id,
                   vim_connection_id=vim_connection_id,
                   resource_provider_id=resource_provider_id)


@dataclasses.dataclass(frozen=True)
class PlacementConstraint(base.SolType):

    affinity_or_anti_affinity: str = base.attr(
        'affinityOrAntiAffinity', required=True)
    scope: str = base.attr('scope', required=True)
    resource: tuple[ConstraintResourceRef, ...] = base.attr(
        'resource', kind=ConstraintResourceRef, many=True, required=True)
    fallback_best_effort: bool | None = base.attr('fallbackBestEffort')

    @property
    def is_affinity(self) -> bool:
        return self.affinity_or_anti_affinity == sol_enums.AFFINITY

    @property
    def best_effort(self) -> bool:
        """SOL 003: an absent fallbackBestEffort means false."""
        return bool(self.fallback_best_effort)

    @property
    def resource_ids(self) -> tuple[str, ...]:
        return tuple(ref.resource_id for ref in self.resource)

    def renamed(self, names: Mapping[str, str]) -> 'PlacementConstraint':
        """The same constraint with resourceIds replaced through ``names``.

        Used to speak of VNFC names (``VDU1-0``) instead of Grant or VIM
        identifiers; ids missing from ``names`` are kept.
        """
        refs = tuple(dataclasses.replace(
            ref, resource_id=names.get(ref.resource_id, ref.resource_id))
            for ref in self.resource)
        return dataclasses.replace(self, resource=refs)

    def describe(self) -> str:
        """``ANTI_AFFINITY/ZONE [VDU1-0, VDU2-0]``, for reasons and logs."""
        members = ', '.join(self.resource_ids)
        return f'{self.affinity_or_anti_affinity}/{self.scope} [{members}]'
