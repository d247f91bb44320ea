"""``placement-ext operation start`` when the cloud cannot be reached.

Keystone unreachable used to leave the operation PROCESSING for good
(a raw keystoneauth DiscoveryFailure escaped the Heat driver) while the
command exited 0; a HEAL of an unknown stack died on KeyError.
"""

import json

from placement_ext.tests.unit.cli import base

# nothing listens on the discard port: discovery fails at once
DEAD_KEYSTONE = '''
[heat]
auth_type = password
auth_url = http://127.0.0.1:9/v3
username = admin
password = secret
project_name = admin
user_domain_name = Default
project_domain_name = Default
'''


def request(operation: str) -> dict:
    body = {'operation': operation, 'vnf_instance_id': 'vnf-1',
            'stack_name': 'vnf-1', 'placement': {'VDU1-0': 'AZ-1'},
            'targets': ['VDU1-0']}
    if operation == 'INSTANTIATE':
        body['template'] = {'heat_template_version': '2018-08-31',
                            'resources': {}}
    return body


class TestStartWithKeystoneDown(base.CliTestCase):

    def _start(self, operation: str) -> int:
        path = f'{self.tmp}/{operation}.json'
        with open(path, 'w') as f:
            json.dump(request(operation), f)
        return self.run_cli('operation', 'start', '--request', path,
                            '--timeout', '60', '-f', 'json',
                            config=DEAD_KEYSTONE)

    def test_instantiate_ends_failed_temp_and_exits_1(self):
        self.assertEqual(1, self._start('INSTANTIATE'))
        op = json.loads(self.stdout.getvalue())
        self.assertEqual('FAILED_TEMP', op['state'])
        self.assertEqual('placement_ext.service.unavailable',
                         op['error']['code'])
        self.assertIn('Heat is unavailable', op['error']['detail'])
        self.assertIn('operation ended FAILED_TEMP', self.stderr.getvalue())

    def test_heal_of_a_stack_heat_cannot_confirm_is_refused(self):
        # the stack cannot be looked up: refused, nothing recorded
        self.assertEqual(1, self._start('HEAL'))
        self.assertEqual('', self.stdout.getvalue())
        self.assertIn('ERROR placement_ext.service.unavailable: Heat is '
                      'unavailable', self.stderr.getvalue())
        self.assertNotIn('Traceback', self.stderr.getvalue())
