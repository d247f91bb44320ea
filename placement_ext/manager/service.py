"""Wiring of the reservation manager: its endpoint on ``[manager] topic``
and the lease event task (start and end the leases whose time has come,
every ``[manager] event_interval`` seconds)."""

import oslo_messaging
from oslo_config import cfg

from placement_ext import service
from placement_ext.manager import manager

EVENT_TASK = 'lease-events'


def create_service(conf: cfg.ConfigOpts,
                   transport: oslo_messaging.Transport, host: str,
                   database: object = None) -> service.RPCService:
    """Build (not start) the manager service: a ServiceFactory."""
    endpoint = manager.ReservationManager(conf, host, database)
    svc = service.for_endpoint(conf, transport, host, endpoint)
    svc.add_periodic_task(EVENT_TASK, conf.manager.event_interval,
                          endpoint.process_events)
    return svc
