"""Service processes the functional tests start: a free loopback port,
the wait for a process to listen, and its stop."""

import socket
import subprocess
import time


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen,
                   timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f'{process.args} exited with '
                               f'{process.returncode}')
        try:
            socket.create_connection(('127.0.0.1', port), 1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f'{process.args} did not listen on {port}')


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
