"""placement_ext's instance reservation plugin for blazar-manager.

Entry point ``placement_ext.instance.plugin`` (namespace
``blazar.resource.plugins``), ``resource_type = 'virtual:instance'``: put
it in place of ``virtual.instance.plugin`` in blazar.conf's ``[manager]
plugins``. Blazar keeps its leases, events, statuses and API; this class
only translates its calls into our reservation workflows
(:class:`placement_ext.manager.reservations.Reservations`): one Blazar
reservation is one of our leases, named after it and holding one
reservation of the same id. So the resource class
(``CUSTOM_RESERVATION_<ID>``), the private flavor (id = reservation id)
and the ``blazar_<host>`` inventories are upstream's names, made and
removed by our code: slot-by-slot capacity, hosts locked while picking
(no overbooking between leases), any affinity, idempotent start and end.

Blazar's own tables are filled for its API and its other plugins:
``instance_reservations`` (flavor_id, resource_properties, and the
server group of a reservation with an affinity policy, as upstream; no
per-reservation aggregate, which our Placement-based reservations do not
need) and one ``computehost_allocations`` row per slot, so
``physical:host`` leases see these hosts as taken. Our tables (Blazar's
names, other columns) live in their own database,
``<blazar database>_placement_ext`` by default
(``doc/source/blazar.rst``).

This module imports blazar and runs only inside blazar-manager, of a
release :mod:`~placement_ext.adapters.blazar.compat` supports.
"""

import contextlib
import datetime
import threading
from collections.abc import Iterator

from blazar import context as blazar_context
from blazar import exceptions as blazar_exc
from blazar.db import api as blazar_db
from blazar.db import utils as blazar_db_utils
from blazar.manager import exceptions as manager_exc
from blazar.plugins import base
from blazar.plugins.oshosts import host_plugin
from blazar.utils import trusts
from blazar.utils.openstack import nova as blazar_nova
from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import timeutils

from placement_ext import background
from placement_ext import exception
from placement_ext.adapters.blazar import compat
from placement_ext.adapters.blazar import translate
from placement_ext.adapters.blazar import workflows
from placement_ext.vocabulary import states

# another Blazar release: refuse to load, naming the supported ones
compat.require()

LOG = logging.getLogger(__name__)
CONF = cfg.CONF

QUERY_TYPE_ALLOCATION = 'allocation'
_ALLOCATION_KEYS = ('id', 'lease_id', 'start_date', 'end_date')


def blazar_error(exc: exception.PlacementExtError) -> Exception:
    """Our error as the Blazar exception its API renders (by class name)."""
    if isinstance(exc, exception.NoCapacity):
        return manager_exc.NotEnoughHostsAvailable(str(exc))
    if isinstance(exc, exception.InvalidInput):
        return blazar_exc.InvalidInput(str(exc))
    if isinstance(exc, exception.NotFound):
        return blazar_exc.NotFound(str(exc))
    if isinstance(exc, exception.Conflict):
        return manager_exc.CantUpdateParameter(str(exc))
    return blazar_exc.BlazarException(str(exc))


@contextlib.contextmanager
def blazar_errors(what: str) -> Iterator[None]:
    """Our errors raised as Blazar's (its API renders those)."""
    try:
        yield
    except exception.PlacementExtError as exc:
        LOG.warning('%(what)s refused: %(error)s',
                    {'what': what, 'error': exc})
        raise blazar_error(exc) from exc


def plugin_opts() -> list:
    """Options of our plugins' blazar.conf groups."""
    return [cfg.StrOpt(
        'placement_ext_config_file',
        help='An optional placement_ext configuration file whose '
             'options override those derived from blazar.conf '
             '(database, credentials, free pool).')]


def placement_ext_conf(resource_type: str) -> cfg.ConfigOpts:
    """Our configuration from blazar.conf and the plugin's optional file
    (its group is registered by blazar-manager before any call)."""
    extra = CONF[resource_type].placement_ext_config_file
    return translate.build_conf(CONF, [extra] if extra else [])


def owner_token(lease: object) -> str | None:
    """A token of the lease's project: Blazar's current context's (lease
    create, update and start run under the owner's trust), else one of
    the Blazar lease's trust (healing, start-up). ``lease`` is ours,
    named after the Blazar reservation."""
    try:
        ctx = blazar_context.current()
    except RuntimeError:
        ctx = None
    if ctx is not None and ctx.project_id == lease.project_id and \
            ctx.auth_token:
        return ctx.auth_token
    try:
        blazar_lease = blazar_db.lease_get(
            blazar_db.reservation_get(lease.name)['lease_id'])
        with blazar_context.admin():
            with trusts.create_ctx_from_trust(
                    blazar_lease['trust_id']) as trusted:
                return trusted.auth_token
    except Exception:   # noqa: BLE001 - no token: the caller says so
        LOG.exception('No token of the owner of lease %s', lease.name)
        return None


def delete_aggregate(aggregate: object) -> None:
    """Upstream's end of its per-reservation aggregate: hosts out (back
    to the free pool if they left it), then the aggregate; none: done."""
    blazar_nova.ReservationPool().delete(aggregate)


class InstancePlugin(base.BasePlugin):
    """``virtual:instance`` reservations by placement_ext."""

    resource_type = states.RESOURCE_TYPE_INSTANCE
    title = 'placement_ext instance reservations'
    description = ('Instance reservations through Placement: no '
                   'overbooking, any affinity, more instances than hosts.')
    query_options = {QUERY_TYPE_ALLOCATION: ['lease_id', 'reservation_id']}

    # this plugin heals, adopts and recovers for every reservation of
    # ours in blazar-manager (see FlavorInstancePlugin.leads)
    leads = True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._adapter: workflows.BlazarReservations | None = None
        self.monitor = None
        if self.leads:
            # Blazar's host monitor heals through the instance plugin
            self.monitor = host_plugin.PhysicalHostMonitorPlugin()
            self.monitor.register_healing_handler(self.heal_reservations)

    def get_plugin_opts(self) -> list:
        return plugin_opts()

    def setup(self, conf: object) -> None:
        """Build the workflows, adopt the reservations Blazar's own
        instance plugin made (before a swap to ours), finish what a
        killed manager left, give started reservations their server
        group; then keep taking over what a killed manager (another
        controller's) leaves."""
        if not self.leads:
            return
        try:
            self._workflows().adopt()
        except Exception:   # noqa: BLE001 - each event adopts its own
            LOG.exception('Adopting the reservations of Blazar\'s own '
                          'instance plugin')
        self._workflows().recover_interrupted_events()
        self._workflows().ensure_server_groups()
        self.recovery = background.PeriodicTask(
            'placement_ext-event-recovery', workflows.RECOVERY_INTERVAL,
            self._recover, first_after=workflows.RECOVERY_INTERVAL)
        self.recovery.start()

    def _recover(self) -> None:
        try:
            self._workflows().recover_interrupted_events()
            # Blazar's monitor marks a recovered host reservable again
            # without calling the plugins: offered again within a round
            self._workflows().follow_monitor()
        except Exception:   # noqa: BLE001 - the next round retries
            LOG.exception('Looking for interrupted lease events and '
                          'recovered hosts')

    def _workflows(self) -> 'workflows.BlazarReservations':
        with self._lock:
            if self._adapter is None:
                self._adapter = workflows.BlazarReservations.from_conf(
                    placement_ext_conf(self.resource_type), blazar_db,
                    owner_token, delete_aggregate=delete_aggregate)
            return self._adapter

    def _call(self, method: str, *args: object) -> object:
        with blazar_errors(method):
            return getattr(self._workflows(), method)(*args)

    # -- BasePlugin ----------------------------------------------------------

    def get(self, resource_id: object) -> dict | None:
        """The host with its extra capabilities, as upstream's plugin
        gives the enforcement filters."""
        host = blazar_db.host_get(resource_id)
        extra = {name: cap['capability_value'] for cap, name in
                 blazar_db.host_extra_capability_get_all_per_host(
                     resource_id)}
        return {**host, **extra} if host is not None and extra else host

    def allocation_candidates(self, values: dict) -> list:
        return self._call('allocation_candidates', values)

    def reserve_resource(self, reservation_id: str, values: dict) -> str:
        ctx = blazar_context.current()
        return self._call('reserve', reservation_id, values,
                          ctx.project_id, ctx.user_id)

    def update_reservation(self, reservation_id: str, values: dict) -> None:
        self._call('update', reservation_id, values)

    def on_start(self, resource_id: str) -> None:
        self._call('start', resource_id)

    def on_end(self, resource_id: str) -> None:
        self._call('end', resource_id)

    def heal_reservations(self, failed_resources: list,
                          interval_begin: object,
                          interval_end: object) -> dict:
        return self._call('heal', failed_resources, interval_begin,
                          interval_end)

    def list_allocations(self, query: dict, detail: bool = False) -> list:
        hosts = [h['id'] for h in blazar_db.host_list()]
        options = self.get_query_options(query, QUERY_TYPE_ALLOCATION)
        return [{'resource_id': host, 'reservations': allocs}
                for host, allocs in self.query_allocations(
                    hosts, **options).items()]

    def query_allocations(self, resource_id_list: list,
                          lease_id: str | None = None,
                          reservation_id: str | None = None) -> dict:
        """{host id: [{id, lease_id, start_date, end_date}]} of the
        current and future reservations (Blazar's rows, one query)."""
        allocations = {host: [] for host in resource_id_list}
        for res in blazar_db_utils.get_reservation_allocations_by_host_ids(
                resource_id_list, timeutils.utcnow(), datetime.date.max,
                lease_id, reservation_id):
            for host in res['host_ids']:
                if host in allocations:
                    allocations[host].append(
                        {k: res[k] for k in _ALLOCATION_KEYS})
        return allocations
