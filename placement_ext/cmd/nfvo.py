"""``placement-ext-nfvo``: our grant evaluator as a SOL 003 NFVO
(:mod:`placement_ext.api.nfvo`) on ``[nfvo_api] api_host:api_port``.

Each Grant is decided on the cloud as it is now: zones and flavours from
Nova (``[nova]``), what each host can still take from Placement
(``[placement]``), each VDU's flavour from its VNF package, read from
Tacker's package API (``[vnfpkgm]``), which it also fronts for the VNFM.
Tokens and Grants are kept in ``[database] connection``, so several
processes on one database serve the same Grants.
"""

import functools
import sys

from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import configuration
from placement_ext import exception
from placement_ext.api import nfvo as nfvo_api
from placement_ext.api import server as api_server
from placement_ext.conductor import grant_inputs
from placement_ext.db import api as db_api
from placement_ext.db import migration
from placement_ext.decision import cloud_zones
from placement_ext.decision import grant_evaluator
from placement_ext.drivers import keystone
from placement_ext.drivers import nova as nova_driver
from placement_ext.drivers import placement as placement_driver
from placement_ext.drivers import vnfpkgm
from placement_ext.sol import grant_request
from placement_ext.sol import vnf_package
from placement_ext.vocabulary import sol_enums

LOG = logging.getLogger(__name__)
PROG = 'placement-ext-nfvo'


class GrantDecider:
    """``decide(request, grant_id, href)`` for :class:`NfvoApp`."""

    def __init__(self, reader: grant_inputs.CloudReader,
                 packages: vnfpkgm.VnfPackages) -> None:
        self._reader = reader
        self._packages = packages

    @functools.lru_cache(maxsize=64)  # noqa: B019 (one decider a process)
    def vdu_sizes(self, vnfd_id: str) -> dict:
        """A VNFD's VDU flavours; a VNFD never changes under its id."""
        return vnf_package.vdu_flavours(self._packages.vnfd(vnfd_id))

    def __call__(self, request: grant_request.GrantRequest, grant_id: str,
                 href: str) -> dict:
        flavours = grant_inputs.flavour_amounts(
            self.vdu_sizes(sized_vnfd(request)), self._reader.nova_flavors())
        existing = _existing(request)
        cloud = self._reader.cloud(flavours, existing, hosts_of=_existing(
            request, cloud_zones.HOST_SCOPES))
        decision = grant_evaluator.evaluate(request, cloud, grant_id, href)
        for reason in decision.reasons:
            LOG.info('Grant %s: %s', grant_id, reason)
        if not decision.granted:
            raise exception.GrantRefused(reason=decision.refusal)
        return decision.grant.to_dict()


def sized_vnfd(request: grant_request.GrantRequest) -> str:
    """The VNFD whose VDUs the Grant's new resources instantiate: a
    CHANGE_VNFPKG creates them from the destination package
    (``dstVnfdId``), as Tacker's change_vnfpkg grant lists them."""
    if request.operation == sol_enums.CHANGE_VNFPKG and request.dst_vnfd_id:
        return request.dst_vnfd_id
    return request.vnfd_id


def _existing(request: grant_request.GrantRequest,
              scopes: tuple[str, ...] | None = None) -> list[str]:
    """The allocated resources the request's constraints (of these
    scopes; None: of any) name."""
    return sorted({ref.resource_id for constraint in request.constraints()
                   if scopes is None or constraint.scope in scopes
                   for ref in constraint.resource
                   if ref.id_type == sol_enums.RES_MGMT})


def build_app(conf: cfg.ConfigOpts,
              database: db_api.Database) -> nfvo_api.NfvoApp:
    opts = conf.nfvo_api
    if not (opts.client_id and opts.client_secret):
        raise exception.InvalidInput(
            field='[nfvo_api] client_id',
            reason='and client_secret are required: the Grant endpoint '
                   'only answers OAuth 2.0 clients it knows')
    nova = nova_driver.NovaDriver(
        keystone.load_session(conf, 'nova'),
        adapter_kwargs=keystone.adapter_kwargs(conf, 'nova'))
    reader = grant_inputs.CloudReader(
        nova, placement_driver.PlacementDriver.from_conf(conf))
    packages = vnfpkgm.VnfPackages(keystone.load_adapter(conf, 'vnfpkgm'))
    return nfvo_api.NfvoApp(
        GrantDecider(reader, packages), packages, database,
        client_id=opts.client_id, client_secret=opts.client_secret,
        token_lifetime=opts.token_lifetime,
        max_body=opts.api_max_body_size)


def main(argv: list[str] | None = None) -> int:
    try:
        conf = configuration.load_config(
            sys.argv[1:] if argv is None else argv, PROG)
        logging.setup(conf, 'placement_ext', version=configuration.version())
        database = db_api.Database(conf)
        migration.ensure_current(conf, database)
        app = build_app(conf, database)
    except exception.PlacementExtError as exc:
        sys.stderr.write(f'{PROG}: {exc.detail}\n')
        return 1
    return api_server.serve(app, conf.nfvo_api.api_host,
                            conf.nfvo_api.api_port, PROG, conf.nfvo_api)


if __name__ == '__main__':
    sys.exit(main())
