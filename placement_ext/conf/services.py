"""[conductor] and [manager]: the RPC services of placement_ext."""

import socket

from oslo_config import cfg

CONDUCTOR = cfg.OptGroup(
    'conductor', title='Conductor service',
    help='The placement-ext-conductor service, which runs lifecycle '
         'operations (instantiate, heal, scale) with zone reselection.')
MANAGER = cfg.OptGroup(
    'manager', title='Reservation manager service',
    help='The placement-ext-manager service, which manages reservation '
         'hosts and leases through Placement.')

_default_opts = [
    cfg.StrOpt('host', default=socket.gethostname(),
               sample_default='<the machine\'s host name>',
               help='Name of this service host: the RPC server name and '
                    'what operation records and logs show.'),
]

_conductor_opts = [
    cfg.StrOpt('topic', default='placement_ext_conductor',
               help='RPC topic the conductor listens on.'),
]

_manager_opts = [
    cfg.StrOpt('topic', default='placement_ext_manager',
               help='RPC topic the manager listens on.'),
    cfg.IntOpt('event_interval', default=10, min=1,
               help='Seconds between two runs of the periodic task that '
                    'starts and ends leases whose time has come.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(_default_opts)
    conf.register_group(CONDUCTOR)
    conf.register_opts(_conductor_opts, group=CONDUCTOR)
    conf.register_group(MANAGER)
    conf.register_opts(_manager_opts, group=MANAGER)


def list_opts() -> dict:
    return {'DEFAULT': _default_opts, CONDUCTOR: _conductor_opts,
            MANAGER: _manager_opts}
