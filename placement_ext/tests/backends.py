"""Which real backends (MariaDB, PostgreSQL, RabbitMQ) tests may use.

Outside CI a test that needs a missing service is skipped with a visible
reason. In CI (``CI=true``) the same test fails loudly instead: a green CI
must mean the real backends were exercised.
"""

import os
import socket
import unittest

MYSQL_URL = os.environ.get(
    'PLACEMENT_EXT_TEST_MYSQL_URL',
    'mysql+pymysql://root@127.0.0.1:3306/')
POSTGRESQL_URL = os.environ.get(
    'PLACEMENT_EXT_TEST_POSTGRESQL_URL',
    'postgresql+psycopg2://postgres@127.0.0.1:5432/')
RABBIT_URL = os.environ.get(
    'PLACEMENT_EXT_TEST_RABBIT_URL',
    'rabbit://guest:guest@127.0.0.1:5672/')

_PORTS = {'mysql': 3306, 'postgresql': 5432, 'rabbit': 5672}


def in_ci() -> bool:
    return os.environ.get('CI', '').lower() in ('1', 'true', 'yes')


def _port_open(port: int, host: str = '127.0.0.1') -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def require(test: unittest.TestCase, backend: str) -> None:
    """Skip (or, in CI, fail) ``test`` when ``backend`` is not reachable."""
    if _port_open(_PORTS[backend]):
        return
    reason = (f'{backend} is not reachable on 127.0.0.1:{_PORTS[backend]}')
    if in_ci():
        test.fail(f'{reason}; CI must run the {backend} tests')
    test.skipTest(reason)
