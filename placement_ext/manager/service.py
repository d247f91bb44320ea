"""Wiring of the reservation manager: its endpoint on ``[manager] topic``.

The lease periodic task (start and end the leases whose time has come,
every ``[manager] event_interval`` seconds) registers here, with
``svc.add_periodic_task('lease-events', conf.manager.event_interval,
endpoint._process_events)`` (a private method taking a context).
"""

import oslo_messaging
from oslo_config import cfg

from placement_ext import service
from placement_ext.manager import manager


def create_service(conf: cfg.ConfigOpts,
                   transport: oslo_messaging.Transport, host: str,
                   database: object = None) -> service.RPCService:
    """Build (not start) the manager service: a ServiceFactory."""
    endpoint = manager.ReservationManager(conf, host, database)
    return service.for_endpoint(conf, transport, host, endpoint)
