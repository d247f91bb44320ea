"""Blazar's values and settings in placement_ext's terms.

Pure translation, no blazar import, so it is unit-tested without Blazar:

* a Blazar reservation (the ``values`` blazar-manager hands a resource
  plugin) becomes a one-reservation lease body of our schema
  (:mod:`placement_ext.schemas.reservation`), named after the Blazar
  reservation, whose id it keeps;
* blazar.conf's service credentials (``os_admin_*``, ``os_auth_*``) and
  names (``[nova] aggregate_freepool_name``) become our ``[nova]``,
  ``[placement]``, ``[reservation]`` and ``[database]`` defaults, so an
  operator writes nothing new in blazar.conf.
"""

import datetime
from collections.abc import Iterable
from collections.abc import Mapping

import sqlalchemy as sa
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from placement_ext import conf as pe_conf
from placement_ext import exception
from placement_ext.adapters.blazar import flavor
from placement_ext.decision import host_properties
from placement_ext.schemas import reservation as schema
from placement_ext.vocabulary import states

# Blazar's instance reservation fields that our request carries.
RESOURCE_FIELDS = ('amount', 'vcpus', 'memory_mb', 'disk_gb')
# Suffix of our database's name beside Blazar's (``blazar`` ->
# ``blazar_placement_ext``): our tables share names with Blazar's.
DATABASE_SUFFIX = '_placement_ext'
SERVICE_GROUPS = ('nova', 'placement')


def reservation_request(values: Mapping) -> dict:
    """One reservation of our lease body from Blazar's values.

    The CLI sends numbers as strings and affinity as ``True``/``False``/
    ``None`` strings; our schema says what is wrong with anything else.
    Blazar's ``resource_properties`` are not part of it: they choose
    among Blazar's hosts (:meth:`~placement_ext.adapters.blazar.
    workflows.BlazarReservations.unmatched_hosts`).
    """
    request = {'resource_type': states.RESOURCE_TYPE_INSTANCE}
    for field in RESOURCE_FIELDS:
        value = values.get(field)
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        request[field] = value
    affinity = values.get('affinity')
    request['affinity'] = affinity.strip() if isinstance(affinity, str) \
        else affinity
    return request


def update_values(values: Mapping) -> dict:
    """The changes of a Blazar ``update_reservation`` in our terms.

    :raises InvalidInput: an affinity that is not a boolean or None.
    """
    changes = {key: values[key] for key in ('start_date', 'end_date')
               if isinstance(values.get(key), datetime.datetime)}
    request = reservation_request(values)
    changes.update({field: request[field] for field in RESOURCE_FIELDS
                    if values.get(field) is not None})
    if 'affinity' in values:
        affinity = request['affinity']
        if affinity not in schema.AFFINITY:
            raise exception.InvalidInput(
                field='affinity', reason=f'{affinity!r} is not True, '
                                         f'False or None')
        changes['affinity'] = schema.AFFINITY[affinity]
    return changes


def lease_body(reservation_id: str, values: Mapping) -> dict:
    """Our lease create body for Blazar reservation ``reservation_id``
    (``values`` carries the lease's ``start_date`` and ``end_date``)."""
    return {'name': reservation_id,
            'start_date': _date(values['start_date']),
            'end_date': _date(values['end_date']),
            'reservations': [reservation_request(values)]}


def _date(value: datetime.datetime | str) -> str:
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None).isoformat()
    return value


def slots_per_blazar_host(slots_by_host: Mapping[str, int],
                          blazar_ids: Mapping[str, int | str]) -> list:
    """Blazar's ``computehost_allocations``: one host id per slot.

    :param slots_by_host: our slots by hypervisor hostname.
    :param blazar_ids: Blazar's computehost id by hypervisor hostname.
    """
    return [blazar_ids[name] for name in sorted(slots_by_host)
            for _ in range(slots_by_host[name])]


def database_url(blazar_url: str) -> str:
    """Our database beside Blazar's, on the same server and account."""
    url = sa.make_url(blazar_url)
    if url.get_backend_name() == 'sqlite':
        return url.set(database=f'{url.database or "blazar"}'
                                f'{DATABASE_SUFFIX}.sqlite').render_as_string(
            hide_password=False)
    return url.set(database=f'{url.database}{DATABASE_SUFFIX}'
                   ).render_as_string(hide_password=False)


def auth_url(blazar_conf: object) -> str:
    """Keystone's URL as Blazar builds it (``blazar.utils.openstack.base``),
    without the empty path parts."""
    host = blazar_conf.os_auth_host
    if ':' in host and not host.startswith('['):
        host = f'[{host}]'
    parts = [p.strip('/') for p in (blazar_conf.os_auth_prefix,
                                    blazar_conf.os_auth_version) if p]
    return '/'.join([f'{blazar_conf.os_auth_protocol}://{host}:'
                     f'{blazar_conf.os_auth_port}', *filter(None, parts)])


def conf_defaults(blazar_conf: object) -> dict[str, dict]:
    """Our option defaults, by group, from blazar.conf."""
    service = {
        'auth_type': 'password', 'auth_url': auth_url(blazar_conf),
        'username': blazar_conf.os_admin_username,
        'password': blazar_conf.os_admin_password,
        'project_name': blazar_conf.os_admin_project_name,
        'user_domain_name': blazar_conf.os_admin_user_domain_name,
        'project_domain_name': blazar_conf.os_admin_project_domain_name,
        'region_name': blazar_conf.os_region_name,
        'cafile': blazar_conf.cafile}
    defaults = {group: {**service, 'valid_interfaces': [
        blazar_conf[group].endpoint_type]} for group in SERVICE_GROUPS}
    defaults['reservation'] = {
        'freepool_aggregate': blazar_conf.nova.aggregate_freepool_name,
        'cleaning_time': blazar_conf.cleaning_time}
    defaults['database'] = {
        'connection': database_url(blazar_conf.database.connection)}
    return defaults


def build_conf(blazar_conf: object,
               config_files: Iterable[str] = ()) -> cfg.ConfigOpts:
    """Our ConfigOpts: blazar.conf's values as defaults, which the
    optional placement_ext ``config_files`` override."""
    conf = cfg.ConfigOpts()
    pe_conf.register_opts(conf)
    for group in SERVICE_GROUPS:
        # keystoneauth registers a plugin's options only when it loads
        # it; register the password plugin's now to give them defaults
        conf.register_opts(ks_loading.get_auth_plugin_conf_options(
            'password'), group=group)
    for group, values in conf_defaults(blazar_conf).items():
        for name, value in values.items():
            conf.set_default(name, value, group=group)
    conf([], project='placement_ext',
         default_config_files=list(config_files))
    pe_conf.validate(conf)
    return conf


def conditions(properties: str | None
               ) -> tuple[host_properties.Condition, ...]:
    """Blazar's ``resource_properties`` as conditions on hosts.

    :raises InvalidInput: not Blazar's filter language.
    """
    if flavor.parse_snapshot(properties) is not None:
        # a flavor:instance reservation keeps its source flavor there,
        # as upstream's flavor plugin does: no host filter
        return ()
    try:
        return host_properties.parse(properties)
    except host_properties.Malformed as exc:
        raise exception.InvalidInput(field=host_properties.FIELD,
                                     reason=str(exc)) from None
