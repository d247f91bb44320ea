"""[heat], [nova], [placement], [nfvo], [vnfpkgm]: how to reach each service.

Each group takes keystoneauth1's standard session, auth and adapter options
(``auth_type = password``, ``auth_url``, ``username``, ``password``,
``valid_interfaces``, ``region_name``, ``endpoint_override``, ...), so they
read exactly like the same groups in nova.conf or tacker.conf. Passwords
are secret options and never logged. The NFVO is not in the Keystone
catalog: ``[nfvo] endpoint_override`` names it, and its auth plugin is
whatever it accepts (``none``, ``http_basic``, ``password``, or our
``oauth2_client_credentials``: ``placement_ext.drivers.oauth2``).
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

# service type in the Keystone catalog, keyed by group name
SERVICE_TYPES = {
    'heat': 'orchestration',
    'nova': 'compute',
    'placement': 'placement',
    'nfvo': 'nfvo',
    'vnfpkgm': 'nfv-orchestration',
}
_TITLES = {'nfvo': 'NFVO client options',
           'vnfpkgm': 'VNF package API client options'}
_HELPS = {'nfvo': 'The NFVO whose SOL 003 Grant interface is asked again '
                  'before a zone reselection moves VNFCs ([v2_vnfm] '
                  'placement_regrant_before_move): endpoint_override is its '
                  'apiRoot, with keystoneauth1 auth options; auth_type = '
                  'oauth2_client_credentials (token_endpoint, client_id, '
                  'client_secret) for an OAuth 2.0 NFVO.',
          'vnfpkgm': "Tacker's VNF package API, which placement-ext-nfvo "
                    'fronts for the VNFM (its /vnfpkgm/v2 reads), with '
                    'keystoneauth1 options.'}
_NFVO_OPTS = [
    cfg.StrOpt('grant_api_version', default='1.4.0',
               help='Value of the Version header of Grant requests (the '
                    'SOL 003 v3.3.1 Grant interface is 1.4.x).'),
    cfg.IntOpt('grant_timeout', default=60, min=1,
               help='Seconds to wait for an asynchronous Grant (202 '
                    'Accepted) before the move fails.'),
]



# Seconds one HTTP request to a service may take. keystoneauth's default
# is none: a service that accepts the connection and never answers (hung,
# SIGSTOPped, a black-holed route) would hold an operation for ever.
HTTP_TIMEOUT = 60


def _group(name: str) -> cfg.OptGroup:
    return cfg.OptGroup(
        name,
        title=_TITLES.get(name, f'{name.capitalize()} client options'),
        help=_HELPS.get(
            name, f'Credentials and endpoint selection for the {name} '
                  f'({SERVICE_TYPES[name]}) API, with keystoneauth1 options.'))


GROUPS = {name: _group(name) for name in SERVICE_TYPES}


def register_opts(conf: cfg.ConfigOpts) -> None:
    for name in SERVICE_TYPES:
        # NOTE: a fresh OptGroup per ConfigOpts. An OptGroup keeps the
        # options registered in it, and keystoneauth registers the auth
        # plugin's options (auth_url, required) when a session is loaded:
        # a shared group object would carry them into every other
        # ConfigOpts of the process.
        conf.register_group(_group(name))
        ks_loading.register_session_conf_options(conf, name)
        ks_loading.register_auth_conf_options(conf, name)
        ks_loading.register_adapter_conf_options(conf, name)
        conf.set_default('service_type', SERVICE_TYPES[name], group=name)
        conf.set_default('timeout', HTTP_TIMEOUT, group=name)
    conf.register_opts(_NFVO_OPTS, group='nfvo')


def _ks_opts(service_type: str) -> list:
    adapter_opts = ks_loading.get_adapter_conf_options(
        include_deprecated=False)
    for opt in adapter_opts:
        if opt.dest == 'service_type':
            opt.default = service_type
    session_opts = ks_loading.get_session_conf_options()
    for opt in session_opts:
        if opt.dest == 'timeout':
            opt.default = HTTP_TIMEOUT
    return (session_opts
            + ks_loading.get_auth_common_conf_options()
            + ks_loading.get_auth_plugin_conf_options('password')
            + adapter_opts)


def list_opts() -> dict:
    listed = {group: _ks_opts(SERVICE_TYPES[name])
              for name, group in GROUPS.items()}
    listed[GROUPS['nfvo']] = listed[GROUPS['nfvo']] + _NFVO_OPTS
    return listed
