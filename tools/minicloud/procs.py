"""Start, find and stop the minicloud's own processes, by pid.

Each service starts in a new session, so its pid is also its session and
process group id, and those hold what it forked (nova-conductor's worker,
RabbitMQ's Erlang VM, ...). The pid file keeps the pid and its start
time. A process is ours when it is in that session or group and started
no earlier than the recorded leader; if the recorded pid now belongs to
another program (a recycled pid), nothing is ours. So nothing else on the
machine is ever signalled.

Every process we start also carries an owner mark in its environment
(``PLACEMENT_EXT_MINICLOUD_OWNER=<dir>``) so that ``down`` can find
strays that left their session. (Programs that use setproctitle, such as
heat-engine, overwrite their environment: the mark is only a safety net.)
"""

import os
import pathlib
import signal
import subprocess
import time
import typing

OWNER_VAR = 'PLACEMENT_EXT_MINICLOUD_OWNER'


class Proc:
    """One service process of the cloud, known by its name."""

    def __init__(self, base: pathlib.Path, name: str) -> None:
        self.name = name
        self.base = base
        self.pid_file = base / 'run' / f'{name}.pid'
        self.log = base / 'log' / f'{name}.log'

    def start(self, argv: list[str], env: dict[str, str],
              cwd: pathlib.Path) -> int:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.pid_file.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, 'ab') as out:
            child = subprocess.Popen(
                argv, env={**env, OWNER_VAR: str(self.base)}, cwd=cwd,
                stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True)
        info = _process_table().get(child.pid)
        started = info.started if info else 0
        self.pid_file.write_text(f'{child.pid} {started}\n')
        return child.pid

    def _recorded(self) -> tuple[int, int] | None:
        try:
            pid, started = self.pid_file.read_text().split()[:2]
            return int(pid), int(started)
        except (OSError, ValueError):
            return None

    @property
    def pid(self) -> int | None:
        """The service's main pid, if that process is still ours."""
        recorded = self._recorded()
        if recorded is None:
            return None
        info = _process_table().get(recorded[0])
        if info is None or info.started != recorded[1]:
            return None
        return recorded[0]

    def alive(self) -> bool:
        return self.pid is not None

    def members(self) -> list[int]:
        """Our live pids in this service's session or process group."""
        recorded = self._recorded()
        if recorded is None:
            return []
        pid, started = recorded
        table = _process_table()
        leader = table.get(pid)
        if leader is not None and leader.started != started:
            return []              # the pid was recycled: not ours
        return [p for p, info in table.items()
                if pid in (info.pgrp, info.session)
                and info.started >= started]

    def signal(self, sig: int) -> None:
        for pid in self.members():
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM the group, SIGKILL whatever is left after ``timeout``."""
        stop_many([self], timeout)


def stop_many(procs: list[Proc], timeout: float = 30.0) -> None:
    """Stop several services at once, with one shared grace period."""
    for proc in procs:
        proc.signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while (any(p.members() for p in procs)
           and time.monotonic() < deadline):
        time.sleep(0.2)
    for proc in procs:
        proc.signal(signal.SIGKILL)
    while (any(p.members() for p in procs)
           and time.monotonic() < deadline + 10):
        time.sleep(0.1)
    for proc in procs:
        if not proc.members():
            proc.pid_file.unlink(missing_ok=True)


class _Info(typing.NamedTuple):
    pgrp: int
    session: int
    started: int       # clock ticks after boot


def _stat_fields(pid: int) -> list[str] | None:
    try:
        raw = pathlib.Path(f'/proc/{pid}/stat').read_text()
    except OSError:
        return None
    # the command name (field 2) may hold spaces: split after its ')'
    return raw[raw.rindex(')') + 2:].split()


def _process_table() -> dict[int, _Info]:
    """Every live (not zombie) process: pid -> group, session, start."""
    table = {}
    for entry in pathlib.Path('/proc').iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        if fields and fields[0] != 'Z':
            # proc(5) fields 5, 6 and 22, counted from field 3 (state)
            table[int(entry.name)] = _Info(
                int(fields[2]), int(fields[3]), int(fields[19]))
    return table


def _owned(pid: int, base: pathlib.Path) -> bool:
    try:
        environ = pathlib.Path(f'/proc/{pid}/environ').read_bytes()
    except OSError:
        return False
    return f'{OWNER_VAR}={base}'.encode() in environ.split(b'\0')


def owned_pids(base: pathlib.Path) -> list[int]:
    """Every live process of the machine that carries our mark."""
    return [pid for pid in _process_table() if _owned(pid, base)]


def rss_mb(pids: list[int]) -> float:
    total_kb = 0
    for pid in pids:
        try:
            status = pathlib.Path(f'/proc/{pid}/status').read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith('VmRSS:'):
                total_kb += int(line.split()[1])
    return total_kb / 1024.0


def all_procs(base: pathlib.Path) -> list[Proc]:
    """Every service that has a pid file in ``base``."""
    run = base / 'run'
    if not run.is_dir():
        return []
    return [Proc(base, f.stem) for f in sorted(run.glob('*.pid'))]
