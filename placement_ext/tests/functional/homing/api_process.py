"""A ``placement-ext-homing-api`` process on the embedded cloud's
configuration and a regions file of the test's, as operators run it."""

import os
import subprocess
import sys

import testtools
import yaml

from placement_ext.tests.functional import processes

AUTH = ('osdf', 's3cret')


def start(test: testtools.TestCase, config_file: str, regions: list,
          extra_config: str = '') -> str:
    """Start the API (credentials :data:`AUTH`) with ``regions`` as its
    regions file; its URL. Stopped, and its log closed, at cleanup."""
    path = os.path.join(os.path.dirname(config_file), 'regions.yaml')
    with open(path, 'w') as stream:
        yaml.safe_dump(regions, stream)
    port = processes.free_port()
    with open(config_file, 'a') as stream:
        stream.write(f'\n[homing]\nregions_file = {path}\n'
                     f'api_port = {port}\napi_username = {AUTH[0]}\n'
                     f'api_password = {AUTH[1]}\napi_client_timeout = 1\n'
                     f'{extra_config}')
    run(test, config_file, port)
    return f'http://127.0.0.1:{port}'


def run(test: testtools.TestCase, config_file: str, port: int) -> None:
    """Run the API on ``config_file`` until the test's cleanup, once it
    listens on ``port``; its log is ``api.log`` beside the file."""
    log = open(os.path.join(os.path.dirname(config_file), 'api.log'), 'w')
    test.addCleanup(log.close)
    process = subprocess.Popen(
        [sys.executable, '-c', 'import sys; from placement_ext.cmd '
         'import homing_api; sys.exit(homing_api.main())',
         '--config-file', config_file],
        stdout=log, stderr=subprocess.STDOUT)
    test.addCleanup(processes.stop, process)
    processes.wait_listening(port, process)
