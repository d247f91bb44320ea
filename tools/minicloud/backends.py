"""Private MariaDB and RabbitMQ instances (Debian packages) on our ports.

Neither touches the machine's own instances: own data directories, own
sockets, own Erlang port mapper (epmd) and node name, and RabbitMQ never
reads /etc/rabbitmq (whose config would listen on 5672).
"""

import os
import pathlib
import shutil
import subprocess
import time

from minicloud import configs
from minicloud import procs
from minicloud import settings as mc_settings

RABBIT_NODE = 'minicloud@localhost'
RABBIT_SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server'


class BackendError(RuntimeError):
    """A database or broker that did not come up, with its log."""


def _mysql_socket(s: mc_settings.Settings) -> pathlib.Path:
    return s.path('run', 'mysqld.sock')


def start_mariadb(s: mc_settings.Settings) -> None:
    datadir = s.path('mysql')
    log = s.path('log', 'mariadb-install.log')
    user = ['--user=root'] if os.geteuid() == 0 else []
    with open(log, 'wb') as out:
        subprocess.run(
            ['mariadb-install-db', '--no-defaults', *user,
             f'--datadir={datadir}',
             '--auth-root-authentication-method=normal', '--skip-test-db'],
            stdout=out, stderr=subprocess.STDOUT, check=True)
    procs.Proc(s.path(), 'mariadb').start([
        'mariadbd', '--no-defaults', *user, f'--datadir={datadir}',
        '--bind-address=127.0.0.1', f'--port={s.ports["mysql"]}',
        f'--socket={_mysql_socket(s)}',
        f'--pid-file={s.path("run", "mariadbd.real-pid")}',
        '--innodb-buffer-pool-size=128M', '--max-connections=1000',
        '--innodb-flush-log-at-trx-commit=0', '--skip-log-bin',
        '--skip-name-resolve', '--character-set-server=utf8mb4',
        '--collation-server=utf8mb4_general_ci',
    ], env=dict(os.environ), cwd=s.path())


def _mysql(s: mc_settings.Settings, sql: str) -> subprocess.CompletedProcess:
    client = shutil.which('mariadb') or 'mysql'
    return subprocess.run(
        [client, '--no-defaults', f'--socket={_mysql_socket(s)}', '-uroot',
         '-e', sql], capture_output=True, text=True)


def run_sql(s: mc_settings.Settings, sql: str) -> None:
    """Run ``sql`` as the cloud's MariaDB root; fails with its error."""
    result = _mysql(s, sql)
    if result.returncode != 0:
        raise BackendError(f'{sql}: {result.stderr.strip()}')


def create_databases(s: mc_settings.Settings, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while _mysql(s, 'SELECT 1').returncode != 0:
        if not procs.Proc(s.path(), 'mariadb').alive():
            raise BackendError(f'MariaDB died: see {s.path("log")}')
        if time.monotonic() > deadline:
            raise BackendError(f'MariaDB not answering after {timeout}s')
        time.sleep(0.25)
    user = f"'{configs.DB_USER}'@'127.0.0.1'"
    sql = [f"CREATE USER {user} IDENTIFIED BY '{configs.DB_PASSWORD}'",
           f'GRANT ALL ON *.* TO {user}']
    sql += [f'CREATE DATABASE {name}' for name in configs.DATABASES]
    result = _mysql(s, '; '.join(sql))
    if result.returncode != 0:
        raise BackendError(f'creating databases: {result.stderr.strip()}')


def rabbit_env(s: mc_settings.Settings) -> dict[str, str]:
    rabbit = s.path('rabbit')
    return rabbit_node_env(s, rabbit, rabbit, RABBIT_NODE, s.ports['rabbit'],
                           s.ports['rabbit_dist'], s.ports['epmd'])


def rabbit_node_env(s: mc_settings.Settings, home: pathlib.Path,
                    folder: pathlib.Path, node: str, port: int,
                    dist_port: int, epmd_port: int) -> dict[str, str]:
    """The environment of RabbitMQ node ``node`` (and of rabbitmqctl for
    it): its Erlang cookie in ``home``, its files in ``folder``."""
    return {
        **os.environ,
        'HOME': str(home),            # private Erlang cookie
        'RABBITMQ_CONF_ENV_FILE': str(folder / 'rabbitmq-env.conf'),
        'RABBITMQ_CONFIG_FILE': str(folder / 'rabbitmq.conf'),
        'RABBITMQ_ADVANCED_CONFIG_FILE': str(folder / 'advanced.config'),
        'RABBITMQ_ENABLED_PLUGINS_FILE': str(folder / 'enabled_plugins'),
        'RABBITMQ_MNESIA_BASE': str(folder / 'mnesia'),
        'RABBITMQ_LOG_BASE': str(s.path('log')),
        'RABBITMQ_LOGS': '-',
        'RABBITMQ_NODENAME': node,
        'RABBITMQ_NODE_IP_ADDRESS': '127.0.0.1',
        'RABBITMQ_NODE_PORT': str(port),
        'RABBITMQ_DIST_PORT': str(dist_port),
        'ERL_EPMD_PORT': str(epmd_port),
        'ERL_EPMD_ADDRESS': '127.0.0.1',
    }


def start_epmd(s: mc_settings.Settings) -> None:
    """Our own Erlang port mapper, on our port.

    Started before RabbitMQ so that RabbitMQ finds it instead of
    daemonising one of its own, which we could not track by pid.
    """
    procs.Proc(s.path(), 'epmd').start(
        ['epmd', '-port', str(s.ports['epmd']), '-address', '127.0.0.1'],
        env=rabbit_env(s), cwd=s.path())


def start_rabbit(s: mc_settings.Settings) -> None:
    rabbit = s.path('rabbit')
    rabbit.mkdir(parents=True, exist_ok=True)
    (rabbit / 'rabbitmq-env.conf').write_text('')
    (rabbit / 'enabled_plugins').write_text('[].\n')
    (rabbit / 'rabbitmq.conf').write_text(
        f'listeners.tcp.local = 127.0.0.1:{s.ports["rabbit"]}\n')
    procs.Proc(s.path(), 'rabbitmq').start(
        [RABBIT_SERVER], env=rabbit_env(s), cwd=rabbit)
