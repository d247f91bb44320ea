"""``./run demo [--keep]``: the end-to-end showcase on the embedded cloud.

Brings the cloud up (or reuses it), starts placement-ext-conductor and
placement-ext-manager against it, runs the showcase and writes a picture
of the placement. Without ``--keep`` it then cleans up what it created
and takes the cloud down again if it brought it up.
"""

import argparse
import json
import pathlib
import shutil
import subprocess
import sys

# first: installs the warning filters before oslo.messaging is imported
import placement_ext.vocabulary.warning_filters  # noqa: F401  # isort: skip

from demo import blazar_step
from demo import cloud
from demo import k8s_step
from demo import services
from demo import showcase
from demo import steps
from demo import tacker_step
from placement_ext import conf as pe_conf
from placement_ext import context as pe_context
from placement_ext import rpc
from placement_ext.conductor import rpcapi as conductor_rpcapi
from placement_ext.manager import rpcapi as manager_rpcapi
from placement_ext.testing import cloud_config

ROOT = pathlib.Path(__file__).resolve().parents[1]
BASE = ROOT / '.demo'
LOG = BASE / 'steps.log'
PICTURES = ('placement.svg', 'k8s.svg', 'blazar.svg')


def cloud_status() -> dict:
    # exits 1 when the cloud is not healthy: the JSON says so too
    return json.loads(subprocess.run(
        [str(cloud.MINICLOUD), 'status', '--json'], text=True,
        capture_output=True, check=False).stdout)


def bring_cloud_up() -> tuple[dict, bool]:
    """The cloud's status, and whether this demo started it."""
    status = cloud_status()
    if status['healthy']:
        print('Reusing the running embedded cloud')
        return status, False
    steps.say('Bringing the embedded cloud up (first time: a few minutes)')
    result = subprocess.run([str(cloud.MINICLOUD), 'up'], check=False)
    if result.returncode != 0:
        sys.exit('the embedded cloud did not come up; see '
                 '"tools/minicloud/minicloud status"')
    return cloud_status(), True


def write_config(status: dict) -> pathlib.Path:
    sections = cloud_config.service_sections(status['clouds_yaml'], 'admin')
    settings = json.loads(
        (pathlib.Path(status['base']) / 'settings.json').read_text())
    rabbit = settings['ports']['rabbit']
    sections['DEFAULT'] = {
        'state_path': str(BASE),
        'transport_url': f'rabbit://guest:guest@127.0.0.1:{rabbit}/'}
    path = BASE / 'placement_ext.conf'
    cloud_config.write(str(path), sections)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='./run demo')
    parser.add_argument('--keep', action='store_true',
                        help='leave the cloud and our services running')
    args = parser.parse_args(argv)
    BASE.mkdir(exist_ok=True)
    # a picture left by an earlier run must not pass for this run's
    for name in PICTURES:
        (BASE / name).unlink(missing_ok=True)
    LOG.write_text('')
    status, started_cloud = bring_cloud_up()
    config_file = write_config(status)
    conf = pe_conf.new_conf(['--config-file', str(config_file)])
    # Tacker and Blazar (their venvs installed on a first run) start
    # while the first steps run: 1 to 2 minutes less of waiting
    addons = cloud.start_addons(('tacker', 'blazar'), BASE / 'addons.log')
    services.start(BASE, config_file)
    transport = rpc.get_transport(conf)
    showcase_ = Showcase(conf, transport, status)
    try:
        outcomes = run_steps(showcase_, args.keep)
    finally:
        # before the clean-up: it may take RabbitMQ down with the cloud
        transport.cleanup()
        addons.wait()
    if not args.keep:
        if started_cloud and steps.exit_code(outcomes):
            _keep_logs(status)
        outcomes += steps.run_all([steps.Step(
            'Cleaning up', _stop_all if started_cloud
            else showcase_.clean_up_all)], False, LOG)
    steps.say('Summary')
    print('\n'.join(steps.summary(outcomes)))
    if steps.exit_code(outcomes):
        print(f'  tracebacks of the failures: {LOG}')
    if args.keep:
        print(f'\nLeft running. Explore with:\n'
              f'  .venv/bin/placement-ext --config-file {config_file} '
              f'operation list\n'
              f'  eval "$(tools/minicloud/minicloud env)"   # openstack CLI')
    return steps.exit_code(outcomes)


def run_steps(showcase_: 'Showcase', keep: bool) -> list[steps.Outcome]:
    """Every step; an interrupt ends them as a failure."""
    try:
        return steps.run_all(showcase_.steps(), keep, LOG)
    except KeyboardInterrupt:
        print('\ninterrupted', flush=True)
        return [steps.Outcome('interrupted', steps.FAILED)]


def _keep_logs(status: dict) -> None:
    """The services' logs of a failed run, kept before the cloud is
    taken down (with its folder): the cause is usually in them."""
    kept = BASE / 'cloud-logs'
    shutil.rmtree(kept, ignore_errors=True)
    shutil.copytree(pathlib.Path(status['clouds_yaml']).parent / 'log', kept)
    print(f'  a step failed: the cloud\'s logs kept in {kept}')


def _stop_all() -> None:
    """Our services stopped and the cloud this demo brought up taken
    down: nothing of the demo is left."""
    services.stop(BASE)
    cloud.minicloud('down')
    print('  our services stopped, embedded cloud taken down')


class Showcase:
    """The steps on one cloud, sharing its connections and quota."""

    def __init__(self, conf: object, transport: object,
                 status: dict) -> None:
        self.context = pe_context.get_admin_context(conf)
        self.conductor = conductor_rpcapi.ConductorAPI(conf, transport)
        self.manager = manager_rpcapi.ManagerAPI(conf, transport)
        self.status = status
        self.conn = showcase.connect(status['clouds_yaml'])
        self.quota = cloud.Quota(self.conn, 'admin')
        self.tacker = tacker_step.TackerStep(self.conn, self.quota)
        self.blazar = blazar_step.BlazarStep(
            status, BASE / 'blazar.svg', cloud.Quota(self.conn, 'demo'),
            zone='AZ-3')

    def steps(self) -> list[steps.Step]:
        conn, zone = self.conn, self.status['zones']['AZ-1']
        step = steps.Step
        return [
            step('Our services answer over RPC', lambda: (
                showcase.check_services(self.conductor, self.manager,
                                        self.context)), required=True),
            step('Another tenant fills AZ-1', lambda: self._fill(
                showcase.vdu_small_fits(zone)), required=True),
            step('Cloud selection (homing): where should 2 anti-affine '
                 'vdu.small go, for a customer in Paris?',
                 lambda: showcase.home(self.conductor, self.context)),
            step('Instantiate a VNF granted into a full zone (AZ-1), and '
                 'a picture of the placement', self._instantiate,
                 clean_up=(lambda: showcase.delete_vnf(conn),)),
            # Tacker's, with AZ-1 still full; then the zone is cleared
            step('A real Tacker instantiates the VNF; our zone '
                 'reselection runs inside tacker-conductor',
                 self.tacker.run, clean_up=(
                     self.tacker.clean_up, lambda: showcase.reset(conn))),
            step('Kubernetes workers on distinct compute hosts, labelled '
                 "with them by the VNF package's management script",
                 lambda: k8s_step.run(conn, self.status['clouds_yaml'],
                                      BASE / 'k8s.svg', self.quota),
                 clean_up=(lambda: k8s_step.reset(conn),)),
            # last: Blazar enrols only empty hosts, and the enrolled
            # zone's hosts then take reserved instances only
            step('Blazar with our plugin: a lease through "openstack '
                 'reservation"', self.blazar.run,
                 clean_up=(self.blazar.clean_up,), keep=True),
        ]

    def _fill(self, count: int) -> None:
        showcase.reset(self.conn)       # an earlier run's, if it left any
        self.quota.ensure(count, "the other tenant's load")
        showcase.fill_zone(self.conn, 'AZ-1', count)

    def _instantiate(self) -> None:
        self.quota.ensure(2 * len(showcase.GRANTED),
                          f"the VNF's {len(showcase.GRANTED)} VNFCs, and as "
                          'many again for those that fail in the full zone')
        op = showcase.instantiate(self.conductor, self.context)
        showcase.draw(self.conn, op, BASE / 'placement.svg')

    def clean_up_all(self) -> None:
        """What any step may have left (each clean-up is a no-op when
        there is nothing), the quota as found, our services stopped."""
        self.blazar.clean_up()
        k8s_step.reset(self.conn)
        self.tacker.clean_up()
        showcase.reset(self.conn)
        self.quota.restore()
        self.blazar.quota.restore()
        services.stop(BASE)
        print('  our services stopped; nothing of the demo is left')


if __name__ == '__main__':
    sys.exit(main())
