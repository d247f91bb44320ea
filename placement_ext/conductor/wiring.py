"""Wiring of lifecycle operations: drivers, runner, operation create.

Shared by the conductor's RPC endpoint
(:mod:`placement_ext.conductor.manager`) and Tacker's conductor driver
(:mod:`placement_ext.adapters.tacker.driver`), so both build the same
drivers and runner and create an operation the same way: the request
checked first (:func:`create_operation`), then the record written.
"""

import dataclasses
from collections.abc import Callable

from placement_ext.conductor import lifecycle
from placement_ext.conductor import stack_request
from placement_ext.conductor import zone_inputs
from placement_ext.db import api as db_api
from placement_ext.drivers import heat as heat_driver
from placement_ext.drivers import keystone
from placement_ext.drivers import nfvo as nfvo_driver
from placement_ext.drivers import nova as nova_driver
from placement_ext.drivers import placement as placement_driver
from placement_ext.drivers.placement import client as placement_client
from placement_ext.objects import operation as op_obj


def create_operation(database: db_api.Database, request: dict,
                     needs_grant_request: bool,
                     check_stack: Callable[[], None] | None = None,
                     request_id: str | None = None) -> op_obj.Operation:
    """Check the request, then write its operation (STARTING).

    :param needs_grant_request: moves are granted again (see
        :func:`placement_ext.conductor.stack_request.validate`).
    :param check_stack: refuses a HEAL or SCALE of a stack Heat does not
        have (:meth:`~placement_ext.conductor.lifecycle.LifecycleRunner.
        check_stack_exists`); None when the caller holds the stack
        already.
    :raises InvalidInput: a bad request (the field is named); no
        operation is written.
    """
    stack_request.validate(request, needs_grant_request)
    if request['operation'] != 'INSTANTIATE' and check_stack is not None:
        check_stack()
    return op_obj.create(
        database, vnf_instance_id=request['vnf_instance_id'],
        operation=request['operation'], params=request,
        placement=request['placement'], request_id=request_id)


@dataclasses.dataclass(frozen=True)
class Drivers:
    """The conductor's service drivers; ``nfvo`` is None unless moves
    are granted again."""

    heat: heat_driver.HeatDriver
    nova: nova_driver.NovaDriver
    placement: placement_driver.PlacementDriver
    nfvo: nfvo_driver.NfvoDriver | None = None

    def zone_source(self) -> zone_inputs.ZoneSource:
        return zone_inputs.ZoneSource(self.nova, self.placement)


def build_drivers(conf: object, session: object = None,
                  region_name: str | None = None,
                  heat_session: object = None) -> Drivers:
    """Drivers built from ``[heat]``, ``[nova]``, ``[placement]`` and,
    when ``[v2_vnfm] placement_regrant_before_move``, ``[nfvo]``.

    :param session: a Keystone session to use instead of the groups'
        credentials (a VIM's, in Tacker's conductor, where Tacker grants
        and no ``[nfvo]`` is used); ``region_name`` then overrides the
        groups' region when set.
    :param heat_session: Heat's, when not ``session`` (Tacker reaches
        Heat with TLS settings of its own).
    """
    def parts(group: str) -> tuple[object, dict]:
        kwargs = keystone.adapter_kwargs(conf, group)
        if session is None:
            return keystone.load_session(conf, group), kwargs
        chosen = heat_session if group == 'heat' and heat_session \
            else session
        return chosen, {**kwargs,
                        'region_name': region_name or kwargs['region_name']}

    def client(group: str, driver: type) -> object:
        found_session, kwargs = parts(group)
        return driver(found_session, adapter_kwargs=kwargs)

    if session is None:
        placement = placement_driver.PlacementDriver.from_conf(conf)
    else:
        _, kwargs = parts('placement')
        kwargs.pop('service_type')
        placement = placement_driver.PlacementDriver(
            placement_client.PlacementClient.from_session(session, **kwargs))
    regrant = conf.v2_vnfm.placement_regrant_before_move and session is None
    return Drivers(
        heat=client('heat', heat_driver.HeatDriver),
        nova=client('nova', nova_driver.NovaDriver),
        placement=placement,
        nfvo=nfvo_driver.NfvoDriver.from_conf(conf) if regrant else None)


def build_runner(conf: object, database: object,
                 drivers: Drivers | None = None
                 ) -> lifecycle.LifecycleRunner:
    """The runner on ``drivers``, by default :func:`build_drivers`'."""
    drivers = drivers or build_drivers(conf)
    return lifecycle.LifecycleRunner(
        database, drivers.heat, drivers.zone_source(),
        lifecycle.Settings.from_conf(conf), nfvo=drivers.nfvo)
