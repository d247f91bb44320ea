"""Blazar's usage enforcement with our instance plugin, on the real
blazar-manager: ``ExternalServiceFilter`` posts to a small external
service (a loopback HTTP server in this test) the allocations Blazar's
own instance plugin would give it, one host per slot of the pick, each
host with its extra capabilities; ``MaxLeaseDurationFilter`` still
refuses a lease that is too long."""

import http.server
import json
import threading

from placement_ext.tests.functional.blazar import base
from placement_ext.tests.functional.cloud import fixture as cloud_fixture

GPU = '["==", "$gpu", "true"]'


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Answers 204 to every POST and keeps (path, body)."""

    posts: list = []

    def do_POST(self):   # noqa: N802 - http.server's name
        length = int(self.headers['Content-Length'])
        self.posts.append((self.path, json.loads(self.rfile.read(length))))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_args):
        pass


class TestEnforcement(base.BlazarTestCase):

    def setUp(self):
        super().setUp()
        self.gpu, self.plain = self.pool
        self.admin.host.update(self.blazar_host(self.gpu)['id'],
                               {'gpu': 'true'})
        _Recorder.posts = []
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                 _Recorder)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.port = server.server_address[1]

    def filters(self):
        return self.manager_conf(
            'enforcement', '[enforcement]\n'
            'enabled_filters = MaxLeaseDurationFilter,ExternalServiceFilter\n'
            f'external_service_base_endpoint = http://127.0.0.1:{self.port}/'
            '\nmax_lease_duration = 86400\n')

    def reservation(self, amount):
        return {'resource_type': 'virtual:instance', 'amount': amount,
                'vcpus': 1, 'memory_mb': 512, 'disk_gb': 1,
                'affinity': 'None', 'resource_properties': GPU}

    def allocations(self, path):
        (body,) = [b for p, b in _Recorder.posts if p == path]
        (res,) = body['lease']['reservations']
        return [(a['hypervisor_hostname'], a.get('gpu'))
                for a in res['allocations']]

    def test_external_service_sees_the_hosts_of_the_slots(self):
        with self.filters():
            lease = self.create_lease(cloud_fixture.unique_name('ext'), None,
                                      days_ahead=1,
                                      reservation=self.reservation(2))
            # the two slots are both on the GPU host (2 vCPUs), and the
            # service is told so, capabilities included; not every host
            self.assertEqual([(self.gpu, 'true')] * 2,
                             self.allocations('/check-create'))
            res = lease['reservations'][0]
            self.demo.lease.update(lease['id'], reservations=[
                {'id': res['id'], 'amount': 1}])
            self.assertEqual([(self.gpu, 'true')] * 2,
                             self.allocations('/check-update'))
            exc = self.assertRaises(
                base.blazar_exc.BlazarClientException, self.create_lease,
                cloud_fixture.unique_name('long'), None, days_ahead=1,
                hours=48, reservation=self.reservation(1))
            self.assertIn('maximum lease duration', str(exc))
