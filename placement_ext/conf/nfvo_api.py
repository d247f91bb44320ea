"""[nfvo_api]: placement-ext-nfvo, our grant evaluator as a SOL 003 NFVO.

The VNFM (Tacker with ``[v2_nfvo] use_external_nfvo``) gets an OAuth 2.0
token from ``POST /token`` with these client credentials, then sends its
GrantRequests to ``POST /grant/v1/grants``. Tokens and Grants are kept
in ``[database] connection``: every placement-ext-nfvo process on one
database serves every Grant and token.
"""

from oslo_config import cfg

from placement_ext.conf import api_server

GROUP = cfg.OptGroup(
    'nfvo_api',
    title='placement-ext-nfvo (SOL 003 Grant endpoint)',
    help='Where placement-ext-nfvo listens and which OAuth 2.0 client '
         'may ask it for Grants.')

_opts = [
    cfg.HostAddressOpt('api_host', default='127.0.0.1',
                       help='Address placement-ext-nfvo listens on.'),
    cfg.PortOpt('api_port', default=9891,
                help='Port placement-ext-nfvo listens on.'),
    cfg.StrOpt('client_id',
               help="""
OAuth 2.0 client id the VNFM presents at ``POST /token`` (HTTP Basic or
form fields, grant type ``client_credentials``); Tacker's ``[v2_nfvo]
client_id``. Required.
"""),
    cfg.StrOpt('client_secret', secret=True,
               help="The client's secret; Tacker's ``[v2_nfvo] "
                    "client_password``. Required."),
    cfg.IntOpt('token_lifetime', default=3600, min=60,
               help='Seconds an access token is valid.'),
    *api_server.server_opts('placement-ext-nfvo', 16 * 1024 * 1024),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(_opts, group=GROUP)


def list_opts() -> dict:
    return {GROUP: _opts}
