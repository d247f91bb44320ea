"""[reservation]: instance reservations (hosts, leases, their events)."""

from oslo_config import cfg

GROUP = cfg.OptGroup(
    'reservation', title='Instance reservation options',
    help='How the reservation manager enrols hosts, starts and ends '
         'leases through Placement and Nova, and recovers from '
         'interrupted lease events.')

_opts = [
    cfg.StrOpt('freepool_aggregate', default='placement_ext_freepool',
               help='Nova host aggregate holding every reservable host '
                    '(the free pool). Hosts are added by "host create" and '
                    'removed by "host delete"; the aggregate carries the '
                    'metadata placement_ext:freepool=true, which the Nova '
                    'scheduler filter placement_ext.nova_filters.'
                    'reservation.ReservationFilter reads to keep '
                    'non-reserved instances off these hosts.'),
    cfg.IntOpt('cleaning_time', default=0, min=0,
               help='Minutes kept between two reservations\' slots on a '
                    'host: a lease counts the slots held from this long '
                    'before its start to this long after its end (Blazar\'s '
                    '[DEFAULT] cleaning_time, whose value the Blazar '
                    'plugin takes as the default).'),
    cfg.IntOpt('server_delete_timeout', default=600, min=1,
               help='Seconds to wait, when a lease ends, for its servers '
                    'to be deleted before the lease is left for the next '
                    'run of the event task. Placement refuses to remove '
                    'a reservation inventory while servers use it.'),
    cfg.FloatOpt('server_poll_interval', default=2.0, min=0.1,
                 help='Seconds between two checks of servers being '
                      'deleted.'),
    cfg.IntOpt('event_stale_after', default=600, min=1,
               help='Seconds after which a lease event left in progress '
                    'without progress (its manager was killed or lost '
                    'the database) is taken over by another run of the '
                    'event task. A running event reports progress after '
                    'every step and while it waits, so this only needs '
                    'to exceed the longest single Nova or Placement call.'),
    cfg.IntOpt('inventory_conflict_retries', default=10, min=1,
               help='Tries of one reservation inventory change when '
                    'Placement reports a generation conflict (another '
                    'writer changed the same reservation provider).'),
    cfg.FloatOpt('inventory_conflict_max_wait', default=1.0, min=0.0,
                 help='Longest pause, in seconds, between two tries of an '
                      'inventory change after a generation conflict '
                      '(random exponential backoff).'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(_opts, group=GROUP)


def list_opts() -> dict:
    return {GROUP: _opts}
