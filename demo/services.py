"""Our two services as processes of the demo, tracked by pid files."""

import os
import pathlib
import signal
import subprocess
import sys
import time

SERVICES = ('conductor', 'manager')


def _pid_file(base: pathlib.Path, name: str) -> pathlib.Path:
    return base / f'{name}.pid'


def running(base: pathlib.Path, name: str) -> int | None:
    """The pid of our running ``name`` service, or None."""
    try:
        pid = int(_pid_file(base, name).read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    # a service this process started stays a zombie, which signal 0
    # still finds, until it is reaped
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return None
    except ChildProcessError:
        pass                    # started by an earlier run (--keep)
    return pid


def start(base: pathlib.Path, config_file: pathlib.Path) -> None:
    """Start each service that is not running yet (idempotent)."""
    bindir = pathlib.Path(sys.executable).parent
    for name in SERVICES:
        if running(base, name):
            continue
        log = open(base / f'{name}.out', 'ab')
        proc = subprocess.Popen(
            [str(bindir / f'placement-ext-{name}'), '--config-file',
             str(config_file), '--log-file', str(base / f'{name}.log')],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        _pid_file(base, name).write_text(str(proc.pid))


def stop(base: pathlib.Path, timeout: float = 30) -> None:
    """SIGTERM the services we started, by pid; wait for them."""
    for name in SERVICES:
        pid = running(base, name)
        if pid is None:
            continue
        os.kill(pid, signal.SIGTERM)
        end = time.monotonic() + timeout
        while running(base, name) and time.monotonic() < end:
            time.sleep(0.2)
        if running(base, name):
            os.kill(pid, signal.SIGKILL)
        _pid_file(base, name).unlink(missing_ok=True)
