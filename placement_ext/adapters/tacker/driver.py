"""Tacker's v2 OpenStack infra driver with our zone reselection.

Everything but reselection is Tacker's own (this class subclasses
``tacker.sol_refactored.infra_drivers.openstack.openstack.Openstack``).
When Tacker's stack create or update fails, Tacker calls
``_update_stack_retry``; here that becomes one of our lifecycle
operations (:class:`placement_ext.conductor.lifecycle.LifecycleRunner`):
Tacker's failed try is its first attempt, then our classification,
failed-VNFC detection, candidate zones (with the non-admin fallback), the
``[v2_vnfm]`` strategy, retry limit and deadline run as in
``placement-ext-conductor``, every attempt persisted in our database.
On success the stack has the new zones and Tacker reads them back from
its parameters, as after its own reselection; otherwise Tacker fails the
LCM operation with our reason, which names our operation.

Our operation names Tacker's LCM operation occurrence (its Grant's
``vnfLcmOpOccId``). Tacker's retry of the occurrence calls the same
entry point again: :mod:`placement_ext.conductor.host_lcm` first resumes
our operation (its failed zones kept), and Tacker's own stack update then
carries the zones ours ended with. Tacker's rollback or fail of the
occurrence ends ours the same way, seen by a thread of the v2 conductor
(:class:`ConductorV2`) every ``[placement_ext] lcm_sync_interval``.

One module of about 500 lines, on purpose for now: Tacker's conductor
looks these classes up by name in the module ``install()`` patches, and
the runtime they share is built once per process; the start-up checks
(:mod:`placement_ext.adapters.tacker.startup`), the request translation
(``request.py``) and the VIM sessions (``vim.py``) are already apart.
Splitting the LCM sync of :class:`ConductorV2` into a module of its own
is the next cut.
"""

import dataclasses
import functools
import os
import socket
import threading
from collections.abc import Callable

from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg
from oslo_log import log as logging
from tacker import context as tacker_context
from tacker.sol_refactored import objects as tacker_objects
from tacker.sol_refactored.common import exceptions as sol_ex
from tacker.sol_refactored.common import vnf_instance_utils as inst_utils
from tacker.sol_refactored.conductor import conductor_v2
from tacker.sol_refactored.infra_drivers.openstack import heat_utils
from tacker.sol_refactored.infra_drivers.openstack import openstack

from placement_ext import background
from placement_ext import exception
from placement_ext.adapters.tacker import hints
from placement_ext.adapters.tacker import request as tacker_request
from placement_ext.adapters.tacker import startup
from placement_ext.adapters.tacker import vim as tacker_vim
from placement_ext.conductor import host_lcm
from placement_ext.conductor import ownership
from placement_ext.conductor import wiring
from placement_ext.db import api as db_api
from placement_ext.db import migration
from placement_ext.drivers import heat as heat_driver
from placement_ext.objects import operation as op_obj
from placement_ext.vocabulary import states

LOG = logging.getLogger(__name__)
TACKER_CONF = cfg.CONF
TLS_OPTIONS = ('placement-ext reaches the VIM as Tacker does: Heat with '
               '[v2_vnfm] heat_verify_cert and heat_ca_cert_file, Nova and '
               'Placement with nova_verify_cert and nova_ca_cert_file')


@dataclasses.dataclass(frozen=True)
class _Call:
    """What Tacker's entry point knew and ``_update_stack_retry`` is not
    told: the operation, its Grant, the VNFD rules, and Tacker's LCM
    operation occurrence."""

    operation: str
    grant: object
    rules: dict
    lcm_op_occ_id: str | None = None


class Runtime:
    """Our configuration and database in this tacker-conductor process."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self.database = db_api.Database(conf)
        # the VIMs' sessions, with their tokens, reaching the VIM as
        # Tacker's Heat and Nova clients do
        self.sessions = tacker_vim.Sessions(tacker_vim.Tls.from_conf(conf))
        migration.upgrade(conf, database=self.database)

    @classmethod
    def from_args(cls, args: list[str]) -> 'Runtime':
        """Our options from tacker-conductor's ``--config-file`` and
        ``--config-dir`` (:func:`~placement_ext.adapters.tacker.startup.
        load_conf`), our database brought to the current schema.

        :raises InvalidInput: a bad option, or a database that cannot
            be used (named ``[placement_ext] database_connection``).
        """
        conf = startup.load_conf(args)
        try:
            return cls(conf)
        except Exception as exc:
            # the URL is a secret: the driver's text says enough
            raise exception.InvalidInput(
                field='[placement_ext] database_connection',
                reason=f'{type(exc).__name__}: {exc}') from exc


def _running_args() -> list[str]:
    """The files and directories Tacker's conductor read."""
    return [*(arg for name in TACKER_CONF.config_file
              for arg in ('--config-file', name)),
            *(arg for name in TACKER_CONF.config_dir or ()
              for arg in ('--config-dir', name))]


class Runtimes:
    """The process's :class:`Runtime`, built on first use (by
    :func:`start` when tacker-conductor starts); :func:`install` hands it
    to the classes Tacker builds.

    :param build: makes the Runtime (default: from the files and
        directories Tacker's conductor read).
    """

    def __init__(self, build: Callable[[], Runtime] | None = None) -> None:
        self._build = build or (lambda: Runtime.from_args(_running_args()))
        self._lock = threading.Lock()
        self._runtime: Runtime | None = None

    def get(self) -> Runtime:
        with self._lock:
            if self._runtime is None:
                self._runtime = self._build()
            return self._runtime


def runner_for(rt: Runtime, vim_info: object) -> tuple:
    """(runner, Heat driver, Nova driver) on the VIM's services: the
    conductor's :func:`~placement_ext.conductor.wiring.build_runner`
    with the VIM's session and region."""
    session, heat_session = (
        rt.sessions.get(vim_info.interfaceInfo, vim_info.accessInfo,
                        rt.conf.heat.timeout, service)
        for service in (tacker_vim.NOVA, tacker_vim.HEAT))
    drivers = wiring.build_drivers(
        rt.conf, session=session, heat_session=heat_session,
        region_name=vim_info.accessInfo.get('region'))
    runner = wiring.build_runner(rt.conf, rt.database, drivers)
    return runner, drivers.heat, drivers.nova


def _warm_up(inst: object, runtimes: Runtimes) -> None:
    """Build the Runtime (its database checked at head) and the VIM's
    session with its token while Heat works on Tacker's create or
    update: they cost seconds on a busy host, which a failed stack
    would otherwise wait before its retry is sent."""
    def warm() -> None:
        try:
            rt = runtimes.get()
            vims = inst.vimConnectionInfo \
                if inst.obj_attr_is_set('vimConnectionInfo') else {}
            for vim_info in list((vims or {}).values())[:1]:
                for session in _password_sessions(rt, vim_info):
                    session.get_token()
        except Exception:
            # best effort: the failure path builds them again and says
            # what is wrong
            LOG.debug('placement-ext warm-up failed', exc_info=True)

    threading.Thread(target=warm, name='placement-ext-warm-up',
                     daemon=True).start()


def _password_sessions(rt: Runtime, vim_info: object) -> list:
    """The VIM's sessions that keep a Keystone token (one when Heat and
    Nova are reached alike; an OAuth 2.0 mTLS one gets a token per
    request, as Tacker's)."""
    services = [tacker_vim.NOVA] if rt.sessions.tls.heat_mtls else \
        [tacker_vim.NOVA, tacker_vim.HEAT]
    found = {}
    for service in services:
        session = rt.sessions.get(vim_info.interfaceInfo, vim_info.accessInfo,
                                  rt.conf.heat.timeout, service)
        found[id(session)] = session
    return list(found.values())


def _ownership(rt: Runtime) -> ownership.Ownership:
    """This process as an owner of operations, so a conductor of ours
    sharing the database never adopts one it runs."""
    return ownership.Ownership(
        rt.database, f'tacker-conductor@{socket.gethostname()}:{os.getpid()}',
        rt.conf.conductor)


def _host_lcm(rt: Runtime) -> host_lcm.HostLcm:
    return host_lcm.HostLcm(rt.database, _ownership(rt),
                            host_lcm.wait_limit(rt.conf))


def _lcm_op_occ_id(grant_req: object) -> str | None:
    if grant_req is None or not grant_req.obj_attr_is_set('vnfLcmOpOccId'):
        return None
    return grant_req.vnfLcmOpOccId


def _place(fields: dict, placement: dict) -> None:
    """Our zones into Tacker's stack fields, for the VNFCs they name:
    Tacker sends them and reads them back."""
    vdus = fields['parameters'].get('nfv', {}).get('VDU', {})
    for vnfc, zone in placement.items():
        if isinstance(vdus.get(vnfc), dict):
            vdus[vnfc]['locationConstraints'] = zone


def _failed(op: op_obj.Operation, detail: str) -> sol_ex.SolException:
    """Tacker's error for our operation that did not complete."""
    detail = (op.error or {}).get('detail') or detail
    return sol_ex.StackOperationFailed(
        sol_detail=f'{detail} (placement-ext operation {op.id})',
        sol_title='Stack operation failed')


def _not_found(stack_name: str, vim_info: object,
               error_ex: Exception) -> sol_ex.SolException:
    """Tacker's failure, saying why there was no reselection: our Heat
    client honours the VIM's ``accessInfo.region``, Tacker's takes the
    catalog's first Heat endpoint, so a stack Tacker made can be out of
    our sight when the two differ."""
    region = vim_info.accessInfo.get('region')
    why = (f'placement-ext did not reselect: stack {stack_name} was not '
           f'found through Heat of region {region!r} (the VIM\'s '
           f'accessInfo.region; Tacker uses the first region of the '
           f'catalog)' if region else
           f'placement-ext did not reselect: stack {stack_name} was not '
           f'found')
    LOG.error('%s', why)
    return sol_ex.StackOperationFailed(
        sol_detail=f'{getattr(error_ex, "detail", error_ex)} ({why})',
        sol_title='Stack operation failed')


def _no_reselection(error_ex: Exception,
                    why: exception.PlacementExtError
                    ) -> sol_ex.SolException:
    """Tacker's failure, with why ours could not reselect; a TLS failure
    names the options that decide how the VIM is reached."""
    detail = f'{getattr(error_ex, "detail", error_ex)} (no zone ' \
        f'reselection: {why})'
    if isinstance(why.__context__, ks_exc.SSLError):
        detail += ' (' + TLS_OPTIONS + ')'
    LOG.error('%s', detail)
    return sol_ex.StackOperationFailed(sol_detail=detail,
                                       sol_title='Stack operation failed')


def _grant_zones(grant: object) -> list[str]:
    # a heal's Grant may have no zones; an unset field of Tacker's
    # objects raises rather than reads None
    if grant is None or not grant.obj_attr_is_set('zones'):
        return []
    return [zone.zoneId for zone in grant.zones]


def _stack_ref(stack_name: str, inst: object, stack_id: str | None) -> str:
    """``name/id`` when Tacker knows the stack's id (given, or kept in
    the instance's metadata as Tacker's ``get_stack_name`` reads it):
    Heat answers a bare name with a redirect, a second request."""
    if not stack_id and inst.obj_attr_is_set('instantiatedVnfInfo'):
        info = inst.instantiatedVnfInfo
        if info.obj_attr_is_set('metadata'):
            stack_id = (info.metadata or {}).get('stack_id')
    return f'{stack_name}/{stack_id}' if stack_id else stack_name


class Openstack(openstack.Openstack):
    """Tacker's driver; ``_update_stack_retry`` is ours."""

    _call: _Call | None = None
    # the zones of our operation a retry resumed, for Tacker's stack fields
    _resumed: dict | None = None
    # set by install(): Tacker builds this class without arguments
    runtimes: Runtimes | None = None

    def _runtime(self) -> Runtime:
        if self.runtimes is None:
            raise RuntimeError('placement_ext.adapters.tacker.driver.'
                               'install() was not called')
        return self.runtimes.get()

    def _remember(self, operation: str, inst: object, grant_req: object,
                  grant: object, vnfd: object, flavour_id: str) -> None:
        _warm_up(inst, self.runtimes)
        self._call = _Call(operation, grant, {
            'AFFINITY': vnfd.get_affinity_targets(flavour_id),
            'ANTI_AFFINITY': vnfd.get_anti_affinity_targets(flavour_id)},
            _lcm_op_occ_id(grant_req))
        self._resume(inst)

    def _resume(self, inst: object) -> None:
        """On Tacker's retry of its occurrence: resume our operation of
        it first (:meth:`placement_ext.conductor.host_lcm.HostLcm.resume`;
        nothing on a first try). Completed, its zones go into Tacker's
        stack fields; otherwise the retry fails with our reason."""
        rt = self._runtime()
        lcm_op_occ_id = self._call.lcm_op_occ_id
        if not rt.conf.placement_ext.zone_reselection or not lcm_op_occ_id:
            return
        vim_info = inst_utils.select_vim_info(inst.vimConnectionInfo)
        try:
            op = _host_lcm(rt).resume(
                inst.id, lcm_op_occ_id, lambda: runner_for(rt, vim_info)[0])
        except host_lcm.StillRunning as exc:
            raise sol_ex.StackOperationFailed(
                sol_detail=exc.detail, sol_title='Stack operation failed')
        if op is None:
            return
        if op.state != states.STATE_COMPLETED:
            raise _failed(op, 'zone reselection did not complete')
        self._resumed = op.placement

    def _make_hot(self, req: object, inst: object, grant_req: object,
                  grant: object, vnfd: object, is_rollback: bool = False
                  ) -> dict:
        fields = super()._make_hot(req, inst, grant_req, grant, vnfd,
                                   is_rollback=is_rollback)
        if self._resumed and not is_rollback:
            _place(fields, self._resumed)
        return fields

    def instantiate(self, req: object, inst: object, grant_req: object,
            grant: object, vnfd: object) -> None:
        self._remember('INSTANTIATE', inst, grant_req, grant, vnfd,
                       req.flavourId)
        return super().instantiate(req, inst, grant_req, grant, vnfd)

    def scale(self, req: object, inst: object, grant_req: object,
            grant: object, vnfd: object) -> None:
        if req.type == 'SCALE_OUT':
            # before anything of Tacker's: a refused scale out changed
            # nothing, so its rollback is clean
            _refuse_without_groups(inst, vnfd, _added_vdus(grant_req))
        self._remember('SCALE', inst, grant_req, grant, vnfd,
                       inst.instantiatedVnfInfo.flavourId)
        return super().scale(req, inst, grant_req, grant, vnfd)

    def change_vnfpkg(self, req: object, inst: object, grant_req: object,
                      grant: object, vnfd: object) -> None:
        """Tacker's, then a look at the server groups its rolling update
        may have left out of the stack (:mod:`placement_ext.adapters.
        tacker.hints`); the loss is logged, and a later scale out that
        would break it is refused."""
        super().change_vnfpkg(req, inst, grant_req, grant, vnfd)
        lost = _lost_groups(inst, vnfd)
        if lost:
            LOG.error('%s', _lost_detail(inst, lost))

    def heal(self, req: object, inst: object, grant_req: object,
            grant: object, vnfd: object) -> None:
        self._remember('HEAL', inst, grant_req, grant, vnfd,
                       inst.instantiatedVnfInfo.flavourId)
        return super().heal(req, inst, grant_req, grant, vnfd)

    def _operation(self, rt: Runtime, call: _Call, fields: dict,
                   inst: object, stack_id: str | None, error_ex: Exception,
                   vim_info: object, vdu_ids: set) -> tuple:
        """(runner, failed stack, our new operation); the operation is
        None when no VNFC can move.

        :raises StackOperationFailed: the stack is out of our sight.
        :raises InvalidInput, ServiceUnavailable, ServiceError: no
            operation could be made of the failure.
        """
        runner, heat, nova = runner_for(rt, vim_info)
        stack_name = f'vnf-{inst.id}'
        stack = heat.find_stack(_stack_ref(stack_name, inst, stack_id))
        if stack is None:
            raise _not_found(stack_name, vim_info, error_ex)
        request = tacker_request.operation_request(
            operation=call.operation, vnf_instance_id=inst.id,
            stack_name=stack_name, fields=fields, targets=sorted(vdu_ids),
            rules=call.rules, known_flavors=nova.flavors(),
            grant_zones=_grant_zones(call.grant),
            best_effort=rt.conf.v2_vnfm.placement_fallback_best_effort,
            lcm_op_occ_id=call.lcm_op_occ_id)
        if not request['targets']:
            return runner, stack, None
        # Tacker grants (no [nfvo] here), and the stack was found above
        return runner, stack, wiring.create_operation(
            rt.database, request, needs_grant_request=False)

    def _update_stack_retry(
            self, heat_client: object, fields: dict, inst: object,
            stack_id: str | None, error_ex: Exception, vim_info: object,
            vdu_ids: set, anti_rules: list) -> None:
        rt = self._runtime()
        if not rt.conf.placement_ext.zone_reselection:
            return super()._update_stack_retry(
                heat_client, fields, inst, stack_id, error_ex, vim_info,
                vdu_ids, anti_rules)
        if not rt.conf.v2_vnfm.placement_fallback_best_effort:
            # Tacker's switch: no reselection unless the Grant's
            # constraints may be relaxed
            raise error_ex
        call = self._call or _Call('INSTANTIATE', None, {
            'ANTI_AFFINITY': anti_rules})
        try:
            runner, stack, op = self._operation(
                rt, call, fields, inst, stack_id, error_ex, vim_info,
                vdu_ids)
        except (exception.InvalidInput, exception.ServiceUnavailable,
                exception.ServiceError) as exc:
            raise _no_reselection(error_ex, exc) from exc
        if op is None:
            raise error_ex
        stack_name = f'vnf-{inst.id}'
        LOG.info('Tacker stack %(stack)s failed; zone reselection is '
                 'placement-ext operation %(op)s', {'stack': stack_name,
                                                    'op': op.id})
        failed = heat_driver.StackOutcome(
            stack['id'], stack['stack_status'], error_ex.detail)
        with _ownership(rt).owned(op.id, beat=True):
            op = runner.run(op.id, sent=failed)
        if op.state != states.STATE_COMPLETED:
            raise _failed(op, error_ex.detail)
        # Tacker reads the new zones back from the fields it passed
        _place(fields, op.placement)


# what the operator can do about nested templates without their hints
GROUPS_REMEDY = ('Tacker\'s change_vnfpkg rolling update (15.0.0 and '
                 'later) left them out; a change_vnfpkg, its retry or its '
                 'rollback that completes sends the package\'s templates '
                 'again')


def _added_vdus(grant_req: object) -> set[str]:
    if not grant_req.obj_attr_is_set('addResources'):
        return set()
    return {res.resourceTemplateId for res in grant_req.addResources
            if res.type == 'COMPUTE'}


def _lost_groups(inst: object, vnfd: object,
                 vdus: set[str] | None = None) -> list[str]:
    """``file:server`` of the stack's nested templates that lost the
    scheduler hints (server groups) the VNF package gives them; only the
    templates of ``vdus`` when given."""
    flavour_id = inst.instantiatedVnfInfo.flavourId
    base = vnfd.get_base_hot(flavour_id) or {}
    package_files = base.get('files') or {}
    if vdus is not None:
        top = (base.get('template') or {}).get('resources') or {}
        used = {res.get('type') for name, res in top.items()
                if name in vdus and isinstance(res, dict)}
        package_files = {name: content for name, content
                         in package_files.items() if name in used}
    if not package_files:
        return []
    heat_client = heat_utils.HeatClient(
        inst_utils.select_vim_info(inst.vimConnectionInfo))
    stack_files = heat_client.get_files(heat_utils.get_stack_name(inst))
    return hints.lost(package_files, stack_files)


def _lost_detail(inst: object, lost: list[str]) -> str:
    return (f'placement-ext: stack vnf-{inst.id}\'s nested templates lost '
            f'the scheduler hints of {", ".join(lost)}: their new servers '
            f'join no server group, so the VNFD\'s nfvi_node '
            f'(anti-)affinity rules do not hold for them ({GROUPS_REMEDY})')


def _refuse_without_groups(inst: object, vnfd: object,
                           vdus: set[str]) -> None:
    """Fail Tacker's operation, saying why, when the new servers of
    ``vdus`` would join no server group."""
    lost = _lost_groups(inst, vnfd, vdus) if vdus else []
    if lost:
        detail = _lost_detail(inst, lost)
        LOG.error('%s; the scale out is refused', detail)
        raise sol_ex.StackOperationFailed(
            sol_detail=f'{detail}; the scale out is refused',
            sol_title='Server groups lost')


def _lcm_op_occ_state(context: object, lcm_op_occ_id: str) -> str | None:
    occ = tacker_objects.VnfLcmOpOccV2.get_by_id(context, lcm_op_occ_id)
    return None if occ is None else occ.operationState


def sync_with_tacker(rt: Runtime) -> list[op_obj.Operation]:
    """End our operations whose Tacker occurrence was rolled back or
    failed (:meth:`placement_ext.conductor.host_lcm.HostLcm.end_with_host`);
    the ones ended."""
    context = tacker_context.get_admin_context()
    return _host_lcm(rt).end_with_host(
        lambda lcm_op_occ_id: _lcm_op_occ_state(context, lcm_op_occ_id))


# seconds to the first sync, before our configuration is read (then
# [placement_ext] lcm_sync_interval)
FIRST_SYNC_AFTER = 10


def _sync_interval(runtimes: Runtimes) -> float:
    try:
        return runtimes.get().conf.placement_ext.lcm_sync_interval
    except Exception:  # a database down: keep the first interval
        LOG.exception('Reading lcm_sync_interval failed; syncing every '
                      '%s s', FIRST_SYNC_AFTER)
        return FIRST_SYNC_AFTER


def _sync(runtimes: Runtimes) -> None:
    try:
        sync_with_tacker(runtimes.get())
    except Exception:  # a database down: the next pass tries again
        LOG.exception('Ending our operations with Tacker\'s failed')


class ConductorV2(conductor_v2.ConductorV2):
    """Tacker's v2 conductor, plus the thread of
    :func:`sync_with_tacker` (Tacker's fail of an occurrence never reaches
    the conductor: tacker-server writes it)."""

    # set by install(): Tacker builds this class without arguments
    runtimes: Runtimes | None = None

    def __init__(self) -> None:
        super().__init__()
        self.lcm_sync = background.PeriodicTask(
            'placement-ext-lcm-sync',
            functools.partial(_sync_interval, self.runtimes),
            functools.partial(_sync, self.runtimes),
            first_after=FIRST_SYNC_AFTER)
        self.lcm_sync.start()


def start(argv: list[str]) -> Runtimes | None:
    """Our part of tacker-conductor's start, from its arguments: None
    when ``[placement_ext] zone_reselection`` is false (nothing else of
    ours read, no database: Tacker's conductor runs as it is), else our
    Runtime built now, so a bad option or database stops the start.

    :raises InvalidInput: what is wrong, the option named.
    """
    args = startup.tacker_args(argv)
    if not startup.reselection_enabled(args):
        return None
    runtime = Runtime.from_args(args)
    return Runtimes(build=lambda: runtime)


def install(runtimes: Runtimes | None = None) -> None:
    """Make Tacker's v2 conductor build our driver: it looks the class up
    in the module each time (``openstack.Openstack()``); and Tacker's
    conductor service our :class:`ConductorV2` (``v2_hook`` builds
    ``conductor_v2.ConductorV2()`` the same way). Both are given
    ``runtimes`` (default: a new :class:`Runtimes`), as Tacker builds
    them without arguments."""
    runtimes = runtimes or Runtimes()
    Openstack.runtimes = runtimes
    ConductorV2.runtimes = runtimes
    if openstack.Openstack is not Openstack:
        openstack.Openstack = Openstack
    if conductor_v2.ConductorV2 is not ConductorV2:
        conductor_v2.ConductorV2 = ConductorV2


__all__ = ['ConductorV2', 'Openstack', 'Runtime', 'Runtimes', 'install',
           'start', 'sync_with_tacker']
