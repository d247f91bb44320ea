"""``./run demo [--keep]``: the end-to-end showcase on the embedded cloud.

Brings the cloud up (or reuses it), starts placement-ext-conductor and
placement-ext-manager against it, runs the showcase and writes a picture
of the placement. Without ``--keep`` it then cleans up what it created
and takes the cloud down again if it brought it up.
"""

import argparse
import json
import pathlib
import subprocess
import sys

# first: installs the warning filters before oslo.messaging is imported
import placement_ext.cmd  # noqa: F401  # isort: skip

from demo import blazar_step
from demo import k8s_step
from demo import services
from demo import showcase
from demo import tacker_step
from placement_ext import conf as pe_conf
from placement_ext import context as pe_context
from placement_ext import rpc
from placement_ext.conductor import rpcapi as conductor_rpcapi
from placement_ext.manager import rpcapi as manager_rpcapi
from placement_ext.testing import cloud_config

ROOT = pathlib.Path(__file__).resolve().parents[1]
MINICLOUD = ROOT / 'tools' / 'minicloud' / 'minicloud'
BASE = ROOT / '.demo'


def minicloud(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(MINICLOUD), *args], text=True,
                          capture_output=True, check=False)


def minicloud_checked(*args: str) -> str:
    """``minicloud ARGS``' output; exits the demo with its log on failure."""
    result = minicloud(*args)
    if result.returncode != 0:
        sys.exit(f'minicloud {" ".join(args)} failed:\n{result.stdout}'
                 f'{result.stderr}')
    return result.stdout


def cloud_status() -> dict:
    return json.loads(minicloud('status', '--json').stdout)


def bring_cloud_up() -> tuple[dict, bool]:
    """The cloud's status, and whether this demo started it."""
    status = cloud_status()
    if status['healthy']:
        print('Reusing the running embedded cloud')
        return status, False
    showcase.say('Bringing the embedded cloud up (first time: a few minutes)')
    result = subprocess.run([str(MINICLOUD), 'up'], check=False)
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
    status, started_cloud = bring_cloud_up()
    config_file = write_config(status)
    conf = pe_conf.new_conf(['--config-file', str(config_file)])
    services.start(BASE, config_file)
    transport = rpc.get_transport(conf)
    blazar_state: dict = {}
    try:
        blazar_state = run_showcase(conf, transport, status)
    finally:
        transport.cleanup()
        if not args.keep:
            clean_up(status, started_cloud, blazar_state)
    if args.keep:
        print(f'\nLeft running. Explore with:\n'
              f'  .venv/bin/placement-ext --config-file {config_file} '
              f'operation list\n'
              f'  eval "$(tools/minicloud/minicloud env)"   # openstack CLI')
    return 0


def run_showcase(conf: object, transport: object, status: dict) -> dict:
    context = pe_context.get_admin_context(conf)
    conductor = conductor_rpcapi.ConductorAPI(conf, transport)
    manager = manager_rpcapi.ManagerAPI(conf, transport)
    showcase.check_services(conductor, manager, context)
    conn = showcase.connect(status['clouds_yaml'])
    showcase.reset(conn)
    showcase.say('Another tenant fills AZ-1')
    showcase.fill_zone(conn, 'AZ-1',
                       count=showcase.vdu_small_fits(status['zones']['AZ-1']))
    showcase.home(conductor, context)
    op = showcase.instantiate(conductor, context)
    showcase.draw(conn, op, BASE / 'placement.svg')
    # each further step needs the cloud's room (and the project's quota
    # of 10 instances) for itself; Tacker's, with AZ-1 still full
    showcase.delete_vnf(conn)
    tacker = json.loads(minicloud_checked('addon', 'up', 'tacker') and
                        minicloud_checked('addon', 'status', 'tacker'))
    tacker_state = tacker_step.run(conn, tacker)
    showcase.say('Clearing the Tacker VNF and the other tenant\'s load')
    tacker_step.clean_up(conn, tacker, tacker_state)
    showcase.reset(conn)
    k8s_step.run(conn, status['clouds_yaml'], BASE / 'k8s.svg')
    k8s_step.reset(conn)
    # last: Blazar enrols only empty hosts, and the enrolled zone's hosts
    # then take reserved instances only
    return blazar_step.run(status, BASE / 'blazar.svg', zone='AZ-3')


def clean_up(status: dict, started_cloud: bool, blazar_state: dict) -> None:
    showcase.say('Cleaning up')
    services.stop(BASE)
    if started_cloud:
        minicloud('down')
        print('  our services stopped, embedded cloud taken down')
    else:
        conn = showcase.connect(status['clouds_yaml'])
        if blazar_state:
            blazar_step.clean_up(status, blazar_state)
        k8s_step.reset(conn)
        showcase.reset(conn)
        print('  our services stopped, demo stacks and servers deleted')


if __name__ == '__main__':
    sys.exit(main())
