"""Idle clients cannot hold an HTTP service: with every connection the
server allows taken by an idle client (and more waiting in the backlog),
a real request is answered within the bound the documentation states,
``api_client_timeout`` + the idle sweep (11 s with the defaults).

placement-ext-homing-api as operators run it, with the default server
options, on a loopback port and its own SQLite file: no cloud, no broker.
"""

import os
import socket
import time

import fixtures
import requests
import testtools

from placement_ext.conf import api_server
from placement_ext.tests.functional import processes
from placement_ext.tests.functional.homing import api_process

# the documented bound (README, "HTTP APIs"; the option's help)
BOUND = api_server.CLIENT_TIMEOUT + api_server.IDLE_SWEEP_S
# the default api_connection_limit, plus clients waiting in the backlog
IDLE_CLIENTS = 100 + 20
# a loaded 2-core machine: the process, connects and the answer itself
SLACK = 5


class TestIdleConnections(testtools.TestCase):

    def setUp(self):
        super().setUp()
        tmp = self.useFixture(fixtures.TempDir()).path
        self.port = processes.free_port()
        config = os.path.join(tmp, 'placement_ext.conf')
        with open(config, 'w') as stream:
            stream.write(f'[DEFAULT]\nstate_path = {tmp}\n'
                         f'[database]\nconnection = sqlite:///{tmp}/pe.db\n'
                         f'[homing]\napi_host = 127.0.0.1\n'
                         f'api_port = {self.port}\n')
        api_process.run(self, config, self.port)

    def _idle_client(self):
        sock = socket.create_connection(('127.0.0.1', self.port), 30)
        self.addCleanup(sock.close)
        return sock

    def test_a_request_is_answered_within_the_bound(self):
        idle = [self._idle_client() for _ in range(IDLE_CLIENTS)]
        began = time.monotonic()
        reply = requests.get(f'http://127.0.0.1:{self.port}/',
                             timeout=BOUND + SLACK)
        took = time.monotonic() - began
        self.assertEqual(200, reply.status_code)
        self.assertLess(took, BOUND + SLACK)
        self.assertTrue(reply.headers['x-openstack-request-id']
                        .startswith('req-'))
        # the idle clients the server held were closed by it (an empty
        # read), not kept for ever
        idle[0].settimeout(BOUND + SLACK)
        self.assertEqual(b'', idle[0].recv(1))
