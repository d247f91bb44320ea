"""Inputs of a cloud selection: capacity and flavors of candidate regions,
read from each region's Nova and Placement, once per region, zone and
project in one selection (10,000 candidates over a few regions cost a few
calls, not 10,000).

A private region's capacity is the smaller of what its hosts can take
(Placement allocation candidates, in the candidate's availability zone
when it names one) and what the project's compute quota still allows
(Nova). A region that cannot be read is dropped with the reason, never
passed blindly (ONAP HAS kept every candidate when MultiCloud failed).

The service account is authenticated once per selection before any
region is read: when Keystone is down or refuses the account, every
private region is dropped with that one reason at once, and logged once,
instead of one failed call (and one warning) per region. A selection
given a deadline reads no region after it.
"""

import collections
import time
from collections.abc import Callable

from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import exception
from placement_ext.decision import flavors
from placement_ext.decision import homing
from placement_ext.drivers import keystone
from placement_ext.drivers import nova as nova_driver
from placement_ext.drivers import placement as placement_driver
from placement_ext.drivers.placement import client as pclient

LOG = logging.getLogger(__name__)


class RegionClients:
    """Nova and Placement drivers per region name, on shared sessions."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self._conf = conf
        self._built: dict[tuple[str, str], object] = {}
        self._sessions: dict[str, object] = {}

    def nova(self, region_name: str) -> nova_driver.NovaDriver:
        return self._driver('nova', region_name, lambda session, kwargs:
                            nova_driver.NovaDriver(session,
                                                   adapter_kwargs=kwargs))

    def placement(self, region_name: str
                  ) -> placement_driver.PlacementDriver:
        def build(session: object, kwargs: dict) -> object:
            kwargs.pop('service_type', None)
            return placement_driver.PlacementDriver(
                pclient.PlacementClient.from_session(session, **kwargs))
        return self._driver('placement', region_name, build)

    def project_id(self) -> str:
        """The project the service account's token is scoped to."""
        project = self._session('nova').get_project_id()
        if not project:
            raise exception.InvalidInput(
                field='candidates[].project',
                reason='is needed: the service account\'s token has no '
                       'project')
        return project

    def authenticate(self) -> None:
        """Get the service accounts' tokens (cached by their sessions).

        :raises ServiceUnavailable: Keystone cannot be reached.
        :raises ServiceError: Keystone refuses an account.
        """
        for group in ('nova', 'placement'):
            session = self._session(group)
            if session.auth is None:  # endpoint_override, no auth
                continue
            with keystone.transport_errors(
                    'keystone', f'authenticate the [{group}] account'):
                session.get_auth_headers()

    def _driver(self, group: str, region_name: str,
                build: Callable[[object, dict], object]) -> object:
        key = (group, region_name)
        if key not in self._built:
            kwargs = dict(keystone.adapter_kwargs(self._conf, group),
                          region_name=region_name)
            self._built[key] = build(self._session(group), kwargs)
        return self._built[key]

    def _session(self, group: str) -> object:
        if group not in self._sessions:
            self._sessions[group] = keystone.load_session(self._conf, group)
        return self._sessions[group]


class RegionReader:
    """The ``capacity`` callback of :func:`homing.select` for one
    selection, and the chosen region's flavors for the realisation.

    :param public_verdict: ``pass`` or ``drop`` ([homing]
        public_cloud_capacity) for regions of ``public_types``.
    """

    def __init__(self, clients: RegionClients, *, instance: str | dict,
                 public_types: frozenset[str], public_verdict: str,
                 deadline: float | None = None) -> None:
        """:param instance: a flavor name (or id), looked up in each
            region, or a size ``{"name", "vcpus", "ram", "disk"}``.
        :param deadline: a ``time.monotonic()`` value after which no
            region is read."""
        self._deadline = deadline
        # why the service account cannot authenticate ('' once it did)
        self._account_error: str | None = None
        # reason -> how many regions' capacity it left unknown
        self.unknown: collections.Counter = collections.Counter()
        self._clients = clients
        self._instance = instance
        self._flavor = instance if isinstance(instance, str) \
            else instance['name']
        self._public_types = public_types
        self._public_verdict = public_verdict
        self.calls: collections.Counter = collections.Counter()
        self._zone_aggregates: dict[str, dict] = {}
        self._flavors: dict[str, dict | None] = {}
        self._answers: dict[tuple, homing.Capacity] = {}
        self._quotas: dict[tuple, dict] = {}

    def capacity(self, region: homing.Region) -> homing.Capacity:
        if region.cloud_type in self._public_types:
            passes = self._public_verdict == 'pass'
            return homing.Capacity(
                None, f'public cloud ({region.cloud_type}) '
                      f'{"passes" if passes else "fails"} the capacity '
                      f'check by configuration ([homing] '
                      f'public_cloud_capacity)', unlimited=passes)
        if self.timed_out():
            return homing.Capacity(None, 'not read: the plan\'s timeout '
                                         'passed')
        return self._private_capacity(region.region_id,
                                      region.availability_zone,
                                      region.project)

    def timed_out(self) -> bool:
        return self._deadline is not None and \
            time.monotonic() >= self._deadline

    def log_unknown(self) -> None:
        """One line per reason that left several regions unknown (the
        first region of each was logged when it failed)."""
        for reason, count in self.unknown.items():
            if count > 1:
                LOG.warning('Capacity of %(count)d regions unknown: '
                            '%(reason)s', {'count': count, 'reason': reason})

    def _private_capacity(self, region_name: str, zone: str | None,
                          project: str | None) -> homing.Capacity:
        key = (region_name, zone, project)
        if key not in self._answers:
            self._answers[key] = self._answer(region_name, zone, project)
        return self._answers[key]

    def _answer(self, region_name: str, zone: str | None,
                project: str | None) -> homing.Capacity:
        reason = self._account()
        if not reason:
            try:
                return self._read_capacity(region_name, zone, project)
            except exception.PlacementExtError as exc:
                reason = exc.detail
        self.unknown[reason] += 1
        if self.unknown[reason] == 1:
            LOG.warning('Capacity of region %s unknown: %s', region_name,
                        reason)
        return homing.Capacity(None, f'capacity unknown: {reason}')

    def _account(self) -> str:
        """Why the service account cannot authenticate; '' when it
        can. Asked once per selection."""
        if self._account_error is None:
            try:
                self._clients.authenticate()
                self._account_error = ''
            except exception.PlacementExtError as exc:
                self._account_error = exc.detail
        return self._account_error

    def _read_capacity(self, region_name: str, zone: str | None,
                       project: str | None) -> homing.Capacity:
        flavor = self._region_flavor(region_name)
        if flavor is None:
            return homing.Capacity(
                0, f'flavor {self._flavor} does not exist in region '
                   f'{region_name}')
        fit, where = self._placement_fit(region_name, zone,
                                         flavors.resources(flavor))
        if fit is None:
            return homing.Capacity(None, where)
        quota = self._quota_fit(region_name, project, flavor)
        instances = fit if quota is None else min(fit, quota)
        quota_text = 'no quota limit' if quota is None else \
            f'the quota allows {quota}'
        return homing.Capacity(
            instances, f'{fit} instance(s) of {self._flavor} fit {where} '
                       f'(Placement), '
                       f'{quota_text} (Nova)')

    def _region_flavor(self, region_name: str) -> dict | None:
        if isinstance(self._instance, dict):
            return self._instance
        if region_name not in self._flavors:
            self.calls['nova'] += 1
            self._flavors[region_name] = flavors.by_name_or_id(
                self._clients.nova(region_name).flavors()).get(self._flavor)
        return self._flavors[region_name]

    def _placement_fit(self, region_name: str, zone: str | None,
                       resources: dict) -> tuple[int | None, str]:
        placement = self._clients.placement(region_name)
        self.calls['placement'] += 1
        if zone is None:
            return (placement.cloud_capacity(resources).total,
                    f'in region {region_name}')
        aggregates = self._aggregates(region_name).get(zone)
        if not aggregates:
            return (None, f'zone {zone} has no host aggregate in region '
                          f'{region_name} (or the account may not list '
                          f'aggregates)')
        return (placement.zone_capacity(aggregates, resources).total,
                f'in zone {zone}')

    def _aggregates(self, region_name: str) -> dict:
        if region_name not in self._zone_aggregates:
            self.calls['nova'] += 1
            self._zone_aggregates[region_name] = \
                self._clients.nova(region_name).zone_aggregates()
        return self._zone_aggregates[region_name]

    def _quota_fit(self, region_name: str, project: str | None,
                   flavor: dict) -> int | None:
        key = (region_name, project)
        if key not in self._quotas:
            self.calls['nova'] += 1
            self._quotas[key] = self._clients.nova(region_name).quota_usage(
                project or self._clients.project_id())
        return homing.instances_within_quota(self._quotas[key],
                                             flavor['vcpus'], flavor['ram'])



class FlavorsReader:
    """The ``capacity`` callback of a selection whose regions each have
    their own flavors (HAS's hpa constraint: the flavors matched in each
    region): every flavor of the region, and the demand's size if any,
    must fit; the region's capacity is the least of them. One
    :class:`RegionReader` per flavor, shared by the regions.

    :param instance: the demand's size or flavor (None: it asks none).
    :param flavors: region name -> the names of its flavors to check.
    """

    def __init__(self, clients: RegionClients, *,
                 instance: str | dict | None,
                 flavors: dict[str, tuple[str, ...]],
                 **reader_kwargs: object) -> None:
        self._make = lambda wanted: RegionReader(
            clients, instance=wanted, **reader_kwargs)
        self._flavors = flavors
        self._readers: dict[str, RegionReader] = {}
        self._base = None if instance is None else self._make(instance)

    def capacity(self, region: homing.Region) -> homing.Capacity:
        readers = [self._base] if self._base else []
        for name in self._flavors.get(region.name, ()):
            if name not in self._readers:
                self._readers[name] = self._make(name)
            readers.append(self._readers[name])
        answers = [reader.capacity(region) for reader in readers]
        if not answers:
            return homing.Capacity(None, 'nothing to check', unlimited=True)
        limited = [a for a in answers if not a.unlimited]
        if not limited:
            return answers[0]
        basis = '; '.join(a.basis for a in limited)
        if any(a.instances is None for a in limited):
            return homing.Capacity(None, basis)
        return homing.Capacity(min(a.instances for a in limited), basis)

    @property
    def calls(self) -> collections.Counter:
        total: collections.Counter = collections.Counter()
        for reader in self._all():
            total.update(reader.calls)
        return total

    def timed_out(self) -> bool:
        return any(reader.timed_out() for reader in self._all())

    def log_unknown(self) -> None:
        for reader in self._all():
            reader.log_unknown()

    def _all(self) -> list[RegionReader]:
        return ([self._base] if self._base else []) + \
            list(self._readers.values())
