"""Blazar 18 (or an older supported release: 15 to 17) with our plugins
loaded (blazar-api, blazar-manager).

blazar.conf names ``placement_ext.host.plugin,placement_ext.instance.plugin,
placement_ext.flavor.plugin`` in ``[manager] plugins`` and nothing else of
ours: the plugins take their
credentials, free pool and database (``blazar_placement_ext``) from it.
Notifications are off. The venv also holds blazar-nova (BlazarFilter,
for the tests of that Nova set-up). Files ``*.conf`` in
``etc/blazar/blazar.conf.d`` override blazar.conf (the functional tests
put upstream's plugins there for a moment to compare).

blazar-api 18.0.0's console script returns at once (its server runs in a
daemon thread), so it is started through a two-line runner that waits
for that thread.
"""

import urllib.error
import urllib.request

from minicloud import addons
from minicloud import configs
from minicloud import health
from minicloud import services

PLUGINS = ('placement_ext.host.plugin,placement_ext.instance.plugin,'
           'placement_ext.flavor.plugin')
CLIENTS = ('python-blazarclient==4.6.0', 'python-openstackclient==10.5.0')
# PLACEMENT_EXT_MINICLOUD_BLAZAR_RELEASE picks one (addons.py); the
# oldest is pinned to the libraries it was checked with
OLDER_RELEASES = {
    '15.0.0': ('blazar==15.0.0', *CLIENTS, '-c',
               str(addons.constraints('blazar-15.0.0.txt'))),
    '16.0.0': ('blazar==16.0.0',),
    '17.0.0': ('blazar==17.0.0',),
}
OUR_DATABASE = 'blazar_placement_ext'
EVENT_STALE_AFTER = 60
_API_RUNNER = ('import sys, threading; from blazar.cmd import api; '
               'api.main(); [t.join() for t in threading.enumerate() '
               'if t is not threading.main_thread()]')


def _conf_files(ctx: addons.Context) -> list[str]:
    return ['--config-file', str(ctx.etc / 'blazar.conf'),
            '--config-dir', str(ctx.etc / 'blazar.conf.d')]


def write_configs(ctx: addons.Context) -> None:
    s = ctx.settings
    keystone_port = s.ports['keystone']
    ctx.write_ini(ctx.etc / 'blazar.conf', {
        'DEFAULT': {
            'host': '127.0.0.1', 'port': ctx.ports['blazar'],
            'transport_url': ctx.transport_url(),
            'os_auth_protocol': 'http', 'os_auth_host': '127.0.0.1',
            'os_auth_port': keystone_port, 'os_auth_prefix': '',
            'os_auth_version': 'v3', 'os_admin_username': 'blazar',
            'os_admin_password': 'blazar',
            'os_admin_project_name': 'service',
            'os_admin_user_domain_name': 'Default',
            'os_admin_project_domain_name': 'Default',
            'os_region_name': configs.REGION, 'debug': 'false',
        },
        'manager': {'plugins': PLUGINS, 'minutes_before_end_lease': 0},
        # our options beyond what the plugin derives from blazar.conf
        'virtual:instance': {
            'placement_ext_config_file': ctx.etc / 'plugin.conf'},
        'flavor:instance': {
            'placement_ext_config_file': ctx.etc / 'plugin.conf'},
        'database': {'connection': ctx.db_url('blazar')},
        'keystone_authtoken': ctx.authtoken('blazar'),
        'oslo_messaging_notifications': {'driver': 'noop'},
        'nova': {'endpoint_type': 'public'},
        'placement': {'endpoint_type': 'public'},
    })
    ctx.write_ini(ctx.etc / 'plugin.conf', {
        # the connection comes from blazar.conf; the HA topology adds its
        # options here (ha_addons.py)
        'database': {},
        # a killed blazar-manager's start or end runs again a minute
        # after its last progress (the other manager, or this one
        # restarted, takes it over)
        'reservation': {'event_stale_after': EVENT_STALE_AFTER}})
    (ctx.etc / 'blazar.conf.d').mkdir(exist_ok=True)
    # only for the one-off schema migration of our database
    ctx.write_ini(ctx.etc / 'placement_ext.conf', {
        'database': {'connection': ctx.db_url(OUR_DATABASE)}})


def setup(ctx: addons.Context) -> None:
    ctx.run('blazar-db-manage', [ctx.bin('blazar-db-manage'),
                                 '--config-file',
                                 str(ctx.etc / 'blazar.conf'),
                                 'upgrade', 'head'])
    ctx.run('placement-ext-manage', [
        ctx.bin('placement-ext-manage'), '--config-file',
        str(ctx.etc / 'placement_ext.conf'), 'db', 'sync'])


def service_list(ctx: addons.Context) -> list[services.Service]:
    env = ctx.env()
    return [
        services.Service('blazar-manager', [
            ctx.bin('blazar-manager'), *_conf_files(ctx)], env),
        services.Service('blazar-api', [
            ctx.bin('python'), '-c', _API_RUNNER, *_conf_files(ctx)], env,
            probe_url=ctx.url('blazar') + '/'),
    ]


def ready(ctx: addons.Context) -> bool:
    """blazar-manager answers blazar-api (a lease list goes over RPC)."""
    token, _ = health.admin_token(ctx.settings)
    request = urllib.request.Request(ctx.url('blazar') + '/v1/leases',
                                     headers={'X-Auth-Token': token,
                                              'Accept': 'application/json',
                                              'Content-Type':
                                              'application/json'})
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False


ADDON = addons.Addon(
    name='blazar',
    # blazar-nova: upstream's BlazarFilter, which a functional test loads
    # into nova-scheduler (the other supported Nova set-up)
    pip_requirements=('blazar==18.0.0', *CLIENTS, 'blazar-nova==10.0.0'),
    release='18.0.0',
    older_releases=OLDER_RELEASES,
    base_ports={'blazar': 11778},
    databases=('blazar', OUR_DATABASE),
    service_user='blazar',
    catalog=(addons.CatalogEntry('reservation', 'blazar', 'blazar',
                                 '/v1'),),
    write_configs=write_configs,
    setup=setup,
    services=service_list,
    ready=ready,
)
