"""Names that tie an instance reservation to Placement and Nova objects.

Blazar's scheme (spec ``placement-api``), kept so that existing clouds and
tools recognise our objects:

* resource class ``CUSTOM_RESERVATION_<UUID upper, '-' -> '_'>``;
* reservation provider ``blazar_<hypervisor_hostname>``, a child of the
  compute node provider (which Nova names after the hypervisor hostname);
* private flavor ``reservation:<uuid>`` whose id is the reservation id and
  whose extra spec asks for one unit of the resource class (and carries
  Blazar's ``aggregate_instance_extra_specs:reservation=<uuid>``, which
  upstream's BlazarFilter reads);
* server group ``reservation:<uuid>`` for a reservation with an affinity
  policy.
"""

import re

from placement_ext import exception

RESOURCE_CLASS_PREFIX = 'CUSTOM_RESERVATION_'
# Blazar's flavor extra spec naming the instance reservation.
BLAZAR_FLAVOR_SPEC = 'aggregate_instance_extra_specs:reservation'
PROVIDER_PREFIX = 'blazar_'
FLAVOR_PREFIX = 'reservation:'
# Placement limits a resource provider name to 200 characters.
MAX_PROVIDER_NAME = 200

# A hyphenated UUID, either case.
UUID_PATTERN = ('^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$')
_UUID = re.compile(UUID_PATTERN)
_RESOURCE_CLASS = re.compile(
    '^%s([0-9A-F]{8}(?:_[0-9A-F]{4}){3}_[0-9A-F]{12})$'
    % RESOURCE_CLASS_PREFIX)


def reservation_id(value: object, field: str = 'reservation_id') -> str:
    """The canonical (lower case, hyphenated) form of a reservation UUID.

    :raises InvalidInput: if ``value`` is not a hyphenated UUID string.
    """
    if not isinstance(value, str) or not _UUID.fullmatch(value):
        raise exception.InvalidInput(
            field=field, reason='%r is not a UUID like '
                                '4d17d41a-830d-47b2-91c7-4f9fc0ae611e'
                                % (value,))
    return value.lower()


def resource_class_for(reservation: str) -> str:
    """``CUSTOM_RESERVATION_4D17D41A_830D_47B2_91C7_4F9FC0AE611E``."""
    canonical = reservation_id(reservation)
    return RESOURCE_CLASS_PREFIX + canonical.upper().replace('-', '_')


def reservation_for_resource_class(resource_class: str) -> str | None:
    """The reservation id a resource class stands for, or None when the
    class is not one of ours (e.g. VCPU or another CUSTOM_ class)."""
    match = _RESOURCE_CLASS.fullmatch(resource_class or '')
    if not match:
        return None
    return match.group(1).replace('_', '-').lower()


def reservation_provider_name(hypervisor_hostname: str) -> str:
    """``blazar_<hypervisor_hostname>``.

    :raises InvalidInput: on an empty name or one too long for Placement.
    """
    if not isinstance(hypervisor_hostname, str) \
            or not hypervisor_hostname.strip():
        raise exception.InvalidInput(field='hypervisor_hostname',
                                     reason='must be a non-empty string')
    name = PROVIDER_PREFIX + hypervisor_hostname
    if len(name) > MAX_PROVIDER_NAME:
        raise exception.InvalidInput(
            field='hypervisor_hostname',
            reason='%s is longer than the %d characters Placement allows '
                   'for a provider name' % (name, MAX_PROVIDER_NAME))
    return name


def hostname_for_provider(provider_name: str) -> str | None:
    """The hypervisor hostname of a reservation provider name, or None."""
    if not provider_name or not provider_name.startswith(PROVIDER_PREFIX) \
            or provider_name == PROVIDER_PREFIX:
        return None
    return provider_name[len(PROVIDER_PREFIX):]


def flavor_name_for(reservation: str) -> str:
    """``reservation:<uuid>``; the flavor id is the reservation id."""
    return FLAVOR_PREFIX + reservation_id(reservation)


def flavor_extra_specs(reservation: str) -> dict[str, str]:
    """Extra specs making Nova claim one unit of the reservation's class
    (so Placement only offers hosts holding its slots), and Blazar's mark
    of an instance reservation (BlazarFilter lets it off the free pool).
    """
    return {'resources:%s' % resource_class_for(reservation): '1',
            BLAZAR_FLAVOR_SPEC: reservation_id(reservation)}


def server_group_name_for(reservation: str) -> str:
    """``reservation:<uuid>``, as Blazar names the reservation's group."""
    return FLAVOR_PREFIX + reservation_id(reservation)


def server_group_policy(affinity: bool | None) -> str | None:
    """Nova's policy for a reservation's affinity; None: no group.

    ``False`` puts one slot on each host (our pick never puts two of an
    anti-affinity reservation on one host), so the strict policy holds
    for every slot, as with Blazar.
    """
    if affinity is None:
        return None
    return 'affinity' if affinity else 'anti-affinity'
