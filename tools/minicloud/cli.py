"""minicloud: a real, throw-away OpenStack on this machine.

    minicloud up                 bring it up (idempotent)
    minicloud down [--keep]      stop our processes, remove the folder
    minicloud status [--json]    what answers, where the logs are
    minicloud env [--cloud C]    shell exports for openstack / openstacksdk
    minicloud restart SERVICE    restart one service with its config
    minicloud heat-retries N     restart heat-engine with action_retry_limit N
    minicloud addon up|down|status NAME
                                 start an optional service set (blazar,
                                 tacker, ...) on the running cloud
    minicloud addon restart NAME SERVICE
    minicloud addon venvs NAME   "<release> <venv>" of each supported
                                 release of the addon (no cloud needed)
    minicloud ha up|down|status [--json]
                                 three controllers' worth on the running
                                 cloud: Galera x3 behind HAProxy,
                                 RabbitMQ x3, our manager and conductor x2
    minicloud prepare [--only cloud|addons]
                                 install what "up" and every addon need
                                 (Debian packages, venvs), start nothing;
                                 --only: the cloud's (Debian packages,
                                 its venv) or the addons' venvs alone
    minicloud run [--up] -- CMD  run CMD; afterwards take the cloud down
                                 again if it was not up before (--up:
                                 bring it up first, unless
                                 PLACEMENT_EXT_NO_CLOUD=1)
    minicloud uv ARGS...         the pinned uv (tools/uv-requirements.txt,
                                 installed on first use), e.g. ./run's
                                 "minicloud uv pip install ..."

Knobs are environment variables, see tools/minicloud/README.rst.
"""

import argparse
import json
import os
import pathlib
import shlex
import subprocess
import sys

from minicloud import addons
from minicloud import ha
from minicloud import ha_addons
from minicloud import health
from minicloud import install
from minicloud import lifecycle
from minicloud import restart
from minicloud import settings as mc_settings
from minicloud import uv


def _status(args: argparse.Namespace) -> int:
    s = mc_settings.load(mc_settings.default_base())
    if s is None:
        base = mc_settings.default_base()
        if args.json:
            print(json.dumps({'base': str(base), 'healthy': False,
                              'any_alive': False}))
        else:
            print(f'minicloud in {base}\n  state: DOWN (not brought up)')
        return 1
    report = health.probe(s)
    if args.json:
        print(health.report_json(s, report))
    else:
        print(health.format_report(s, report))
        if report.any_alive:
            print(f'  heat-engine action_retry_limit: '
                  f'{restart.current_heat_retries(s)}')
    return 0 if report.healthy else 1


def _env(args: argparse.Namespace) -> int:
    s = mc_settings.current()
    openstack = pathlib.Path(s.venv, 'bin', 'openstack')
    print(f'export OS_CLIENT_CONFIG_FILE={shlex.quote(str(s.clouds_yaml))}')
    print(f'export OS_CLOUD={shlex.quote(args.cloud)}')
    print(f'alias openstack={shlex.quote(str(openstack))}')
    return 0


def _running() -> mc_settings.Settings | None:
    """The running cloud's settings; None (and says so) when not up."""
    running = mc_settings.load(mc_settings.default_base())
    if running is None:
        print('minicloud: not up', file=sys.stderr)
    return running


def _restart(args: argparse.Namespace) -> int:
    running = _running()
    if running is None:
        return 1
    if args.cmd == 'heat-retries':
        return restart.heat_retries(running, args.limit)
    return restart.restart(running, args.service)


def _prepare(only: str | None) -> int:
    s = mc_settings.from_environ()
    if only != 'addons':
        install.ensure_debian_packages()
        install.ensure_venv(pathlib.Path(s.venv))
    if only != 'cloud':
        for name in addons.names():
            addons.install(s, name)
    return 0


def _addon(args: argparse.Namespace) -> int:
    if args.action == 'venvs':
        for release, venv in addons.venvs(args.name):
            print(release, venv)
        return 0
    running = _running()
    if running is None:
        return 1
    if args.action == 'up':
        return addons.up(running, args.name)
    if args.action == 'down':
        return addons.down(running, args.name)
    if args.action == 'restart':
        if not args.service:
            print('minicloud addon restart: name a service', file=sys.stderr)
            return 2
        return addons.restart(running, args.name, args.service)
    status = addons.status_json(running, args.name)
    print(json.dumps(status, indent=2))
    return 0 if status['healthy'] else 1


def _ha(args: argparse.Namespace) -> int:
    running = _running()
    if running is None:
        return 1
    if args.action == 'up':
        addon_names = [n for n in args.addons.split(',') if n]
        return ha.up(running) or ha_addons.up_many(running, addon_names)
    if args.action == 'down':
        return ha.down(running)
    status = ha.status(running)
    if args.json:
        print(json.dumps(status, indent=2))
    else:
        state = 'healthy' if status['healthy'] else 'NOT healthy'
        print(f'minicloud ha: {state}')
        for name, pid in status['pids'].items():
            print(f'  {name:12} {f"pid {pid}" if pid else "DOWN"}')
        print(f'  galera: {status["galera"]}')
        print(f'  rabbit: {status["rabbit_running_nodes"]}')
        print(f'  logs: {status["logs"]}/ha-*.log')
    return 0 if status['healthy'] else 1


def _run(args: argparse.Namespace) -> int:
    command = args.command[1:] if args.command[:1] == ['--'] else args.command
    if not command:
        print('minicloud run: no command given', file=sys.stderr)
        return 2
    was_up = health.probe(mc_settings.current()).healthy
    no_cloud = os.environ.get('PLACEMENT_EXT_NO_CLOUD') == '1'
    if args.up and not was_up and not no_cloud:
        rc = lifecycle.up(mc_settings.from_environ())
        if rc:
            return rc
    try:
        return subprocess.call(command)
    finally:
        if not was_up and not args.keep:
            lifecycle.down(mc_settings.default_base())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='minicloud', description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='cmd', required=True)
    sub.add_parser('up', help='bring the cloud up (idempotent)')
    down = sub.add_parser('down', help='stop it and remove its folder')
    down.add_argument('--keep', action='store_true',
                      help='keep the folder (logs, data) for post-mortem')
    status = sub.add_parser('status', help='health of every service')
    status.add_argument('--json', action='store_true')
    env = sub.add_parser('env', help='shell exports for the CLI and SDK')
    env.add_argument('--cloud', default='admin', choices=('admin', 'demo'))
    rst = sub.add_parser('restart', help='restart one service')
    rst.add_argument('service')
    heat = sub.add_parser('heat-retries',
                          help="restart heat-engine with this "
                               "action_retry_limit")
    heat.add_argument('limit', type=int)
    prep = sub.add_parser('prepare',
                          help='install the venvs and packages only')
    prep.add_argument('--only', choices=('cloud', 'addons'),
                      help="the cloud's Debian packages and venv, or the "
                           "addons' venvs (they need the cloud's first)")
    addon = sub.add_parser('addon', help='optional services on the cloud')
    addon.add_argument('action', choices=('up', 'down', 'status', 'restart',
                                           'venvs'))
    addon.add_argument('name', help='blazar, tacker, ...')
    addon.add_argument('service', nargs='?',
                       help='for restart: the process to restart')
    hap = sub.add_parser('ha', help='the HA topology on the cloud')
    hap.add_argument('action', choices=('up', 'down', 'status'))
    hap.add_argument('--json', action='store_true')
    hap.add_argument('--addons', default='', metavar='blazar,tacker',
                     help='for up: also these addons, their managers or '
                          'conductors on both controllers')
    run = sub.add_parser('run', help='run a command, then take the cloud '
                                     'down if it was not up before')
    run.add_argument('--up', action='store_true',
                     help='bring the cloud up before the command')
    run.add_argument('--keep', action='store_true',
                     help='leave the cloud up afterwards')
    run.add_argument('command', nargs=argparse.REMAINDER)
    # parsed by main itself: listed here for --help
    sub.add_parser('uv', help='the pinned uv, with these arguments')
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['uv']:
        # uv's own options (--version, ...) are not argparse's
        return uv.main(argv[1:])
    args = _parser().parse_args(argv)
    try:
        if args.cmd == 'up':
            return lifecycle.up(mc_settings.from_environ())
        if args.cmd == 'down':
            return lifecycle.down(mc_settings.default_base(), keep=args.keep)
        if args.cmd == 'status':
            return _status(args)
        if args.cmd == 'env':
            return _env(args)
        if args.cmd in ('restart', 'heat-retries'):
            return _restart(args)
        if args.cmd == 'addon':
            return _addon(args)
        if args.cmd == 'ha':
            return _ha(args)
        if args.cmd == 'prepare':
            return _prepare(args.only)
        return _run(args)
    except mc_settings.SettingsError as exc:
        print(f'minicloud: {exc}', file=sys.stderr)
        return 2
