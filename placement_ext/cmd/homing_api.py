"""``placement-ext-homing-api``: the ONAP OOF-HAS plan API
(:mod:`placement_ext.api.has`) and Multi-Cloud's capacity check and
intent API (:mod:`placement_ext.api.multicloud`) on ``[homing]
api_host:api_port``.

Plans are stored in ``[database] connection`` and solved by this
process's ``[homing] plan_solvers`` or by any other homing API process
on the same database; selections read each
region's Nova and Placement with the ``[nova]`` and ``[placement]``
credentials. Without ``[homing] api_username``/``api_password`` it only
listens on a loopback address.
"""

import functools
import ipaddress
import sys

from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import configuration
from placement_ext import exception
from placement_ext.api import has
from placement_ext.api import multicloud
from placement_ext.api import plan_solver
from placement_ext.api import server as api_server
from placement_ext.conductor import homing
from placement_ext.conductor import homing_inputs
from placement_ext.conductor import multicloud as mc
from placement_ext.db import api as db_api
from placement_ext.db import migration

LOG = logging.getLogger(__name__)
PROG = 'placement-ext-homing-api'


def build_solver(conf: cfg.ConfigOpts, database: db_api.Database
                 ) -> plan_solver.PlanSolver:
    clients = homing_inputs.RegionClients(conf)
    return plan_solver.PlanSolver(
        database, functools.partial(_solve, conf, clients),
        workers=conf.homing.plan_solvers,
        interval=conf.homing.plan_heartbeat_interval)


def build_app(conf: cfg.ConfigOpts, database: db_api.Database,
              solver: plan_solver.PlanSolver) -> has.PlanApp:
    opts = conf.homing
    clients = homing_inputs.RegionClients(conf)
    return has.PlanApp(database, solver, username=opts.api_username,
                       password=opts.api_password,
                       max_body=opts.api_max_body_size,
                       default_timeout=opts.plan_timeout,
                       max_demands=opts.max_plan_demands,
                       routes=multicloud.routes(
                           functools.partial(mc.check_vim_capacity, conf,
                                             clients),
                           functools.partial(mc.realize_in_region, conf,
                                             clients),
                           public=opts.multicloud_without_credentials))


def _solve(conf: cfg.ConfigOpts, clients: homing_inputs.RegionClients,
           template: dict, limit: int, deadline: float) -> dict:
    return homing.solve_plan(conf, template, limit, clients,
                             deadline=deadline)


def check_exposure(conf: cfg.ConfigOpts) -> None:
    """:raises InvalidInput: no credentials on a non-loopback address."""
    opts = conf.homing
    if opts.api_username and opts.api_password:
        return
    try:
        loopback = ipaddress.ip_address(opts.api_host).is_loopback
    except ValueError:
        loopback = opts.api_host == 'localhost'
    if not loopback:
        raise exception.InvalidInput(
            field='[homing] api_username',
            reason=f'and api_password are required to listen on '
                   f'{opts.api_host} (plans would be open to anyone)')


def main(argv: list[str] | None = None) -> int:
    try:
        conf = configuration.load_config(
            sys.argv[1:] if argv is None else argv, PROG)
        logging.setup(conf, 'placement_ext', version=configuration.version())
        check_exposure(conf)
        database = db_api.Database(conf)
        migration.ensure_current(conf, database)
    except exception.PlacementExtError as exc:
        sys.stderr.write(f'{PROG}: {exc.detail}\n')
        return 1
    # the solvers start before the API takes plans, and stop after it
    solver = build_solver(conf, database)
    solver.start()
    return api_server.serve(build_app(conf, database, solver),
                            conf.homing.api_host, conf.homing.api_port,
                            PROG, conf.homing, services=[solver])
