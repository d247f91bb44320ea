"""Blazar's ``flavor:instance`` reservations in our instance terms.

Pure translation, no blazar import. Upstream's preview flavor plugin
(``blazar/plugins/flavor/flavor_plugin.py``) reserves ``amount``
instances of an existing Nova flavor (``flavor_id``); ours turns the
request into the ``virtual:instance`` request our reservation code
serves (:func:`instance_values`): the flavor's vCPUs, its RAM, and the
disk Nova claims for it in Placement (root + ephemeral + swap, so a
server of the reserved flavor uses exactly its slot). Like upstream, the
source flavor is kept as JSON in Blazar's ``resource_properties``
(:func:`snapshot`, :func:`parse_snapshot`), and its extra specs are
carried to the reservation's private flavor (:func:`carried_specs`).

Extra specs that make Nova claim other resources or require traits
(``resources*:``, ``trait*:``, dedicated or mixed CPUs, vPMEM, device
profiles) are refused, naming the flavor: our slots count VCPU,
MEMORY_MB and DISK_GB only, so such a flavor could not be honoured.
"""

import json
import math
from collections.abc import Mapping

from placement_ext import exception
from placement_ext.vocabulary import reservation_names as names
from placement_ext.vocabulary import states

RESOURCE_TYPE = states.RESOURCE_TYPE_FLAVOR
FLAVOR_FIELD = 'flavor_id'
# upstream recognises its own snapshot by this key (_get_cached_flavor)
SNAPSHOT_MARK = 'OS-FLV-EXT-DATA:ephemeral'
# extra-spec key prefixes (and values) that change Nova's Placement claim
_CLAIMING_PREFIXES = ('resources', 'trait', 'accel:', 'hw:pmem')
_CLAIMING_VALUES = {'hw:cpu_policy': ('dedicated', 'mixed')}


def required(values: Mapping, field: str) -> object:
    """A field a ``flavor:instance`` reservation must carry.

    :raises InvalidInput: missing or empty, naming the field.
    """
    value = values.get(field)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise exception.InvalidInput(
            field=field, reason=f'required for a {RESOURCE_TYPE} '
                                f'reservation')
    return value.strip() if isinstance(value, str) else value


def claiming_specs(extra_specs: Mapping[str, str]) -> list[str]:
    """The extra specs (``key=value``) that change what Nova claims in
    Placement beyond VCPU, MEMORY_MB and DISK_GB."""
    return sorted(
        f'{key}={value}' for key, value in extra_specs.items()
        if key.startswith(_CLAIMING_PREFIXES)
        or str(value).lower() in _CLAIMING_VALUES.get(key, ()))


def disk_gb(flavor: Mapping) -> int:
    """DISK_GB Nova claims for a server of the flavor: root, ephemeral
    and swap (MB, rounded up to GB), as nova's ``resources_from_flavor``.
    """
    swap = int(flavor.get('swap') or 0)
    return int(flavor.get('disk') or 0) + \
        int(flavor.get(SNAPSHOT_MARK) or 0) + math.ceil(swap / 1024)


def instance_values(values: Mapping, flavor: Mapping) -> dict:
    """Blazar's ``flavor:instance`` values as ``virtual:instance`` ones.

    :param flavor: the source flavor as Nova shows it (``to_dict()``)
        with its ``extra_specs``.
    :raises InvalidInput: no amount, or a flavor we cannot honour.
    """
    required(values, 'amount')
    refused = claiming_specs(flavor.get('extra_specs') or {})
    if refused:
        raise exception.InvalidInput(
            field=FLAVOR_FIELD,
            reason=f'flavor {flavor.get("id")} has extra specs '
                   f'{", ".join(refused)}, which make Nova claim other '
                   f'resources or traits than the VCPU, MEMORY_MB and '
                   f'DISK_GB our reservations count')
    out = {k: v for k, v in values.items() if k != FLAVOR_FIELD}
    out.update(vcpus=int(flavor['vcpus']), memory_mb=int(flavor['ram']),
               disk_gb=disk_gb(flavor),
               resource_properties=snapshot(flavor))
    return out


def snapshot(flavor: Mapping) -> str:
    """The source flavor as upstream keeps it in ``resource_properties``
    (without its links)."""
    return json.dumps({k: v for k, v in flavor.items() if k != 'links'},
                      sort_keys=True)


def parse_snapshot(text: str | None) -> dict | None:
    """The source flavor kept in ``resource_properties``, or None when
    the text is something else (a host filter, nothing)."""
    if not text or SNAPSHOT_MARK not in text:
        return None
    try:
        flavor = json.loads(text)
    except ValueError:
        return None
    return flavor if isinstance(flavor, dict) and SNAPSHOT_MARK in flavor \
        else None


def carried_specs(text: str | None, reservation_id: str) -> dict[str, str]:
    """Extra specs of the reservation's private flavor: the source
    flavor's (none without a snapshot), then ours, which win (they make
    Nova claim the reservation's class)."""
    source = (parse_snapshot(text) or {}).get('extra_specs') or {}
    return {**{str(k): str(v) for k, v in source.items()},
            **names.flavor_extra_specs(reservation_id)}


def same_flavor(values: Mapping, kept: str | None) -> None:
    """An update keeps the reservation's source flavor.

    :raises InvalidInput: ``flavor_id`` names another flavor.
    """
    wanted = values.get(FLAVOR_FIELD)
    source = parse_snapshot(kept)
    if wanted is None or source is None:
        return
    source = source.get('id')
    if str(wanted).strip() != str(source):
        raise exception.InvalidInput(
            field=FLAVOR_FIELD, reason=f'a reservation keeps its flavor '
                                       f'{source}; make another lease for '
                                       f'flavor {wanted}')
