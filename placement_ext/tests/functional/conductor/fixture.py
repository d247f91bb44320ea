"""A conductor's set-up on the embedded cloud, and its operation requests.

Shared by the conductor functional tests (:mod:`.base`) and
``benchmarks/bench_reselection_cloud.py``.
"""

import os
from collections.abc import Mapping
from collections.abc import Sequence

import fixtures

from placement_ext import conf as pe_conf
from placement_ext.testing import cloud_config
from placement_ext.testing import vnf_template
from placement_ext.tests.fixtures import database as db_fixture
from placement_ext.tests.functional.cloud import fixture as cloud_fixture

FLAVORS = {'VDU1': vnf_template.VDU_SMALL, 'VDU2': vnf_template.VDU_SMALL}


class ConductorConfig(fixtures.Fixture):
    """A conductor's configuration and database for ``cloud``.

    Lifts the admin project's compute quotas, then exposes:

    * ``config_file``: placement_ext's configuration for the cloud's
      services (as ``admin``), ``state_path`` in a temporary directory;
      append to it and build ``conf`` again to change options;
    * ``conf``: a ConfigOpts read from it;
    * ``database``: a :class:`placement_ext.tests.fixtures.database.Database`
      (a migrated SQLite file) configured into ``conf``, and ``db`` its
      :class:`placement_ext.db.api.Database`.
    """

    def __init__(self, cloud: cloud_fixture.MiniCloud) -> None:
        super().__init__()
        self.cloud = cloud

    def _setUp(self) -> None:
        admin = self.cloud.admin
        # filling every zone takes more servers than the default quota
        admin.set_compute_quotas(admin.current_project_id, instances=-1,
                                 cores=-1, ram=-1)
        tmp = self.useFixture(fixtures.TempDir()).path
        self.config_file = os.path.join(tmp, 'placement_ext.conf')
        sections = cloud_config.service_sections(self.cloud.clouds_yaml,
                                                 'admin')
        sections['DEFAULT'] = {'state_path': tmp}
        cloud_config.write(self.config_file, sections)
        self.conf = pe_conf.new_conf(['--config-file', self.config_file])
        self.database = self.useFixture(db_fixture.Database(conf=self.conf))
        self.db = self.database.db


def operation_request(stack_name: str, operation: str,
                      placement: Mapping[str, str], targets: Sequence[str],
                      flavors: Mapping[str, dict] | None = None,
                      **extra: object) -> dict:
    """The conductor's request for ``operation`` on the demo VNF
    (:mod:`placement_ext.testing.vnf_template`) named ``stack_name``.

    :param placement: VNFC -> granted zone; the stack has these VNFCs.
    :param flavors: VDU -> flavor resources; vdu.small for VDU1 and VDU2
        by default.
    :param extra: more request fields, or ones to replace (``files``
        from :func:`vnf_template.files` for another flavor).
    """
    body = {'operation': operation, 'vnf_instance_id': stack_name,
            'stack_name': stack_name, 'placement': placement,
            'targets': targets,
            'flavors': dict(FLAVORS if flavors is None else flavors),
            'template': vnf_template.template(sorted(placement)),
            'files': vnf_template.FILES}
    body.update(extra)
    return body
