"""[conductor] and [manager]: the RPC services of placement_ext."""

import socket

from oslo_config import cfg

from placement_ext import exception

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
    cfg.IntOpt('broker_wait_timeout', default=60, min=0,
               help="""
Seconds a service waits at start-up for the message broker of
``transport_url`` to accept a connection before it gives up with one line
naming the broker (oslo.messaging itself would retry for ever). Clients
such as ``placement-ext`` wait at most their ``--timeout``, else
``rpc_response_timeout``. 0 checks once.
"""),
    cfg.IntOpt('report_interval', default=10, min=1,
               help="""
Seconds between two heartbeats of a ``placement-ext-manager`` or
``placement-ext-conductor`` in the ``services`` table, which records the
version of the code each runs (``placement-ext-manage db status`` lists
them; ``db contract`` refuses while an older one is live).
"""),
    cfg.IntOpt('service_down_time', default=60, min=1,
               help="""
Seconds without a heartbeat after which a service counts as stopped (it
was killed or its host went down): ``placement-ext-manage db contract``
and ``[upgrade_levels] ... = auto`` ignore it. More than
``report_interval``; give every process of one database the same value.
"""),
]

_conductor_opts = [
    cfg.StrOpt('topic', default='placement_ext_conductor',
               help='RPC topic the conductor listens on.'),
    cfg.IntOpt('operation_heartbeat_interval', default=10, min=1,
               help="Seconds between two renewals of this conductor's "
                    'claim on the operations it drives.'),
    cfg.IntOpt('operation_takeover_timeout', default=90, min=2,
               help="""
Seconds without a heartbeat after which another conductor adopts a running
operation (its owner is taken for stopped), and after which an operation
nobody claimed (its run request was lost) is started. Conductors sharing
a database look for such operations every half of this time. Must be at
least twice ``operation_heartbeat_interval``; give every conductor of one
database the same value.
"""),
    cfg.IntOpt('operation_workers', default=8, min=1,
               help="""
Threads of this conductor that run lifecycle operations, apart from the
threads that answer RPC calls (a run lasts minutes). With all of them busy
a new operation waits in its state (STARTING, or PROCESSING for a retry)
and ``placement-ext operation show`` says it waits for a worker; an
operation waiting longer than ``operation_takeover_timeout`` may be
started by another conductor of the same database.
"""),
    cfg.IntOpt('service_call_workers', default=8, min=1,
               help="""
Threads of this conductor that run the RPC calls reading other services
for their answer (``select_cloud``, ``realize_intent``, ``label_nodes``):
at most this many reach the clouds at once, the others wait for a free
thread within their caller's RPC timeout. Apart from
``operation_workers``, so a long operation never delays them.
"""),
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


def check(conf: cfg.ConfigOpts) -> None:
    """A claim must outlive a few missed heartbeats; so must a
    service's row."""
    if conf.service_down_time <= conf.report_interval:
        raise exception.InvalidInput(
            field='service_down_time',
            reason=f'{conf.service_down_time} s is not more than '
                   f'report_interval ({conf.report_interval} s): live '
                   f'services would count as stopped')
    group = conf.conductor
    if group.operation_takeover_timeout < 2 * \
            group.operation_heartbeat_interval:
        raise exception.InvalidInput(
            field='[conductor] operation_takeover_timeout',
            reason=f'{group.operation_takeover_timeout} s is less than twice '
                   f'[conductor] operation_heartbeat_interval '
                   f'({group.operation_heartbeat_interval} s): a live '
                   f'conductor would lose its operations')


def list_opts() -> dict:
    return {'DEFAULT': _default_opts, CONDUCTOR: _conductor_opts,
            MANAGER: _manager_opts}
