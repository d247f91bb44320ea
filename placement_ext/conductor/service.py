"""Wiring of the conductor: its endpoint on ``[conductor] topic``."""

import oslo_messaging
from oslo_config import cfg

from placement_ext import service
from placement_ext.conductor import manager


def create_service(conf: cfg.ConfigOpts,
                   transport: oslo_messaging.Transport, host: str,
                   database: object = None) -> service.RPCService:
    """Build (not start) the conductor service: a ServiceFactory."""
    endpoint = manager.ConductorManager(conf, host, database)
    svc = service.for_endpoint(conf, transport, host, endpoint)
    group = conf.conductor
    svc.add_periodic_task('operations-heartbeat',
                          group.operation_heartbeat_interval,
                          endpoint.heartbeat)
    # the first run, at once, resumes what this host's last run left
    svc.add_periodic_task('adopt-operations',
                          group.operation_takeover_timeout / 2,
                          endpoint.adopt_operations)
    return svc
