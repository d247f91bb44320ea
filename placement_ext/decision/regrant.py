"""Asking the NFVO again before moving VNFCs to other zones.

Tacker's reselection picks a zone the NFVO never granted and does not
tell it (research, tacker.md 1.4): the NFVO's view of the placement goes
stale. With ``[v2_vnfm] placement_regrant_before_move`` the conductor
sends the operation's GrantRequest again before each move, saying which
zones failed and where it proposes to go, and places the VNFCs where the
new Grant says: the NFVO keeps the authority over placement.

Pure: the GrantRequest goes out as a document, the Grant comes back as a
:class:`placement_ext.sol.grant.Grant`; sending is the driver's job.
"""

import copy
from collections.abc import Iterable
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.sol import grant as grant_mod

# Key of our extension in GrantRequest.additionalParams (SOL 003 leaves
# additionalParams to the VNFM and NFVO).
EXTENSION = 'zoneReselection'


def resource_ids(vnfcs: Iterable[str],
                 resource_names: Mapping[str, str]) -> dict[str, str]:
    """VNFC name -> its resource definition id in the GrantRequest.

    ``resource_names`` maps resource id -> VNFC name where they differ
    (the operation request's ``resource_names``); otherwise the id is the
    VNFC name.
    """
    by_vnfc = {vnfc: rid for rid, vnfc in resource_names.items()}
    return {vnfc: by_vnfc.get(vnfc, vnfc) for vnfc in vnfcs}


def move_request(grant_request: Mapping, *, attempt: int,
                 proposed: Mapping[str, str],
                 failed: Mapping[str, list[str]],
                 resource_names: Mapping[str, str]) -> dict:
    """The operation's GrantRequest, asking again before a move.

    Unchanged but for ``additionalParams.zoneReselection``: the attempt
    about to be made, the zones proposed for the operation's VNFCs and
    the zones each has failed in, keyed by resource definition id. The
    attempt number is the count of recorded attempts, so a request sent
    again after a conductor stopped carries the same one: with the
    ``vnfLcmOpOccId`` it identifies the request for the NFVO.
    """
    ids = resource_ids(set(proposed) | set(failed), resource_names)
    request = copy.deepcopy(dict(grant_request))
    params = dict(request.get('additionalParams') or {})
    params[EXTENSION] = {
        'attempt': attempt,
        'proposedZones': {ids[vnfc]: zone
                          for vnfc, zone in sorted(proposed.items())},
        'failedZones': {ids[vnfc]: list(zones)
                        for vnfc, zones in sorted(failed.items())},
    }
    request['additionalParams'] = params
    return request


def granted_placement(grant: grant_mod.Grant, targets: Iterable[str],
                      failed: Mapping[str, list[str]],
                      resource_names: Mapping[str, str]) -> dict[str, str]:
    """Target VNFC -> the zone the Grant gives it.

    :raises GrantRefused: the Grant gives a target no zone, or a zone the
        target already failed in for lack of capacity (sending it there
        again would fail the same way).
    """
    placement = {}
    for vnfc, rid in resource_ids(targets, resource_names).items():
        zone = grant.zone_name(rid)
        if zone is None:
            raise exception.GrantRefused(
                reason=f'Grant {grant.id} gives no zone to {vnfc} (no '
                       f'addResources entry {rid!r} with a known zoneId)')
        if zone in failed.get(vnfc, ()):
            raise exception.GrantRefused(
                reason=f'Grant {grant.id} places {vnfc} in {zone}, where it '
                       f'already failed for lack of capacity')
        placement[vnfc] = zone
    return placement
