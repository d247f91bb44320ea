"""Gabbi fixtures: each builds one API on a fresh SQLite database and
fake clouds, and makes it the application the YAML tests talk to
(in-process, through :func:`current_app`).

- ``NfvoFixture``: placement-ext-nfvo with client ``vnfm``/``s3cret``;
  a GrantRequest for VNFD ``vnfd-full`` is refused; package reads go
  through the real package driver to a fake Tacker that answers VNFD
  ``vnfd-1`` and an HTML page with 200 for ``vnfd-html``.
- ``HasFixture``: placement-ext-homing-api and its plan solvers (2,
  looking for plans every 0.2 s), user ``osdf``/``s3cret``,
  the regions of ``test_has.REGIONS`` on the fake clients of
  ``cli.test_homing``; region ``Hung``'s Nova never answers until the
  fixture stops (for the plan timeout).
"""

import json
import os
import tempfile
import threading

import requests
import yaml
from gabbi import fixture as gabbi_fixture
from oslo_config import fixture as config_fixture

from placement_ext import exception
from placement_ext.api import has
from placement_ext.api import nfvo
from placement_ext.api import plan_solver
from placement_ext.conductor import homing
from placement_ext.drivers import vnfpkgm
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.unit.api import test_has
from placement_ext.tests.unit.cli import test_homing

_CURRENT = {}
# the database of the running fixture
ACTIVE = {}


def current_app() -> object:
    """gabbi's intercept: a WSGI application that hands each request to
    the application of the running fixture (gabbi builds its clients
    before any fixture starts)."""
    def app(environ: dict, start_response: object) -> object:
        return _CURRENT['app'](environ, start_response)
    return app


class _ApiFixture(gabbi_fixture.GabbiFixture):

    def start_fixture(self) -> None:
        self.database = db_fixture.Database()
        self.database.setUp()
        ACTIVE['database'] = self.database
        _CURRENT['app'] = self.build(self.database)

    def stop_fixture(self) -> None:
        _CURRENT.pop('app', None)
        self.database.cleanUp()


class FakeTacker:
    """A keystoneauth Adapter on Tacker's package API."""

    PACKAGE = {'id': 'pkg-1', 'vnfdId': 'vnfd-1',
               'onboardingState': 'ONBOARDED', '_links': {}}

    def get(self, path: str, params: dict | None = None,
            headers: dict | None = None) -> requests.Response:
        response = requests.Response()
        response.status_code = 200
        if (params or {}).get('filter', '').endswith('vnfd-html)') or \
                path.endswith('/pkg-html/vnfd'):
            response._content = b'<html><body>Login</body></html>'
            response.headers['Content-Type'] = 'text/html'
        elif path.endswith(('/package_content', '/vnfd')):
            response._content = b'PK zip'
        else:
            vnfd = (params or {}).get('filter', '')[len('(eq,vnfdId,'):-1]
            package = dict(self.PACKAGE, vnfdId=vnfd)
            if vnfd == 'vnfd-zip-html':
                package['id'] = 'pkg-html'
            response._content = json.dumps(
                [package] if vnfd in ('vnfd-1', 'vnfd-zip-html') else []
            ).encode()
        return response


def _decide(request: object, grant_id: str, href: str) -> dict:
    if request.vnfd_id == 'vnfd-full':
        raise exception.GrantRefused(reason='zone AZ-1 is full')
    return {'id': grant_id, 'vnfInstanceId': request.vnf_instance_id,
            'vnfLcmOpOccId': request.vnf_lcm_op_occ_id,
            '_links': {'self': {'href': href}}}


class NfvoFixture(_ApiFixture):

    def build(self, database: db_fixture.Database) -> nfvo.NfvoApp:
        return nfvo.NfvoApp(
            _decide, vnfpkgm.VnfPackages(FakeTacker()), database.db,
            client_id='vnfm', client_secret='s3cret', token_lifetime=60,
            max_body=64 * 1024)


class HungClients(test_homing.FakeClients):
    """Region ``Hung`` never answers until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def nova(self, region: str) -> object:
        if region == 'Hung':
            self.release.wait(60)
        return super().nova(region)


# the two zones of RegionOne
REGIONS = test_has.REGIONS[:2]
HUNG = {'cloud_owner': 'Owner', 'region_id': 'Hung',
        'cloud_type': 'OpenStack', 'latitude': 45.5, 'longitude': -71.1}


class HasFixture(_ApiFixture):

    regions = REGIONS

    def build(self, database: db_fixture.Database) -> has.PlanApp:
        conf = database.conf
        self.config = config_fixture.Config(conf)
        self.config.setUp()
        fd, path = tempfile.mkstemp(suffix='.yaml')
        with os.fdopen(fd, 'w') as stream:
            yaml.safe_dump(self.regions, stream)
        self.regions_file = path
        self.config.config(group='homing', regions_file=path)
        self.clients = HungClients()

        def solve(template: dict, limit: int, deadline: float) -> dict:
            return homing.solve_plan(conf, template, limit, self.clients,
                                     deadline)

        self.solver = plan_solver.PlanSolver(database.db, solve, workers=2,
                                             interval=0.2)
        self.solver.start()
        return has.PlanApp(database.db, self.solver, username='osdf',
                           password='s3cret', max_body=64 * 1024,
                           max_demands=2)

    def stop_fixture(self) -> None:
        self.clients.release.set()
        self.solver.stop()
        self.solver.wait()
        self.config.cleanUp()
        os.unlink(self.regions_file)
        super().stop_fixture()


class HungHasFixture(HasFixture):
    """A region whose Nova hangs comes first."""

    regions = [HUNG, *REGIONS]
