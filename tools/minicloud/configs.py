"""The configuration files of every service, written under ``<dir>/etc``.

Nothing here starts anything: :func:`write_all` turns Settings into files.
"""

import configparser
import pathlib
import shutil

from minicloud import settings as mc_settings

DB_USER = DB_PASSWORD = 'os'
DATABASES = ('keystone', 'glance', 'placement', 'neutron', 'nova_api',
             'nova_cell0', 'nova', 'heat')
REGION = 'RegionOne'
# Service users (password = name) get admin + service in project
# "service"; bootstrap_identity.py creates them.
SERVICE_USERS = ('nova', 'placement', 'glance', 'heat', 'neutron')
SIZED_DRIVER_GROUP = 'sized_fake_driver'


def _write(path: pathlib.Path, sections: dict[str, dict]) -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_dict({name: {k: str(v) for k, v in opts.items()}
                      for name, opts in sections.items()})
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, 'w') as out:
        parser.write(out)


def db_url(s: mc_settings.Settings, name: str) -> str:
    return (f'mysql+pymysql://{DB_USER}:{DB_PASSWORD}@127.0.0.1:'
            f'{s.ports["mysql"]}/{name}')


def transport_url(s: mc_settings.Settings) -> str:
    return f'rabbit://guest:guest@127.0.0.1:{s.ports["rabbit"]}/'


def _password_auth(s: mc_settings.Settings, user: str) -> dict:
    return {
        'auth_url': s.url('keystone') + '/v3', 'auth_type': 'password',
        'project_name': 'service', 'user_domain_name': 'Default',
        'project_domain_name': 'Default', 'region_name': REGION,
        'username': user, 'password': user,
    }


def _authtoken(s: mc_settings.Settings, user: str) -> dict:
    return {'www_authenticate_uri': s.url('keystone') + '/v3',
            **_password_auth(s, user)}


def _keystone(s: mc_settings.Settings) -> dict:
    keys = s.path('state', 'fernet-keys')
    return {
        'database': {'connection': db_url(s, 'keystone')},
        'token': {'provider': 'fernet'},
        'fernet_tokens': {'key_repository': keys},
        'fernet_receipts': {'key_repository': keys},
        'credential': {'key_repository': s.path('state', 'credential-keys')},
        # bcrypt's fewest rounds (default 12): every password
        # authentication costs a hash, 3 s each on a loaded 2-core CI
        # machine, which put a Blazar host create (several service
        # authentications) past the 30 s of a gabbi request; the cloud is
        # thrown away, its passwords are its user names
        'identity': {'password_hash_rounds': 4},
    }


def _placement(s: mc_settings.Settings) -> dict:
    return {
        'placement_database': {'connection': db_url(s, 'placement')},
        'api': {'auth_strategy': 'keystone'},
        'keystone_authtoken': _authtoken(s, 'placement'),
    }


def _glance(s: mc_settings.Settings) -> dict:
    state = s.path('state', 'glance')
    return {
        'DEFAULT': {'enabled_backends': 'fs:file',
                    'worker_self_reference_url': s.url('glance')},
        'database': {'connection': db_url(s, 'glance')},
        'glance_store': {'default_backend': 'fs'},
        'fs': {'filesystem_store_datadir': state / 'images'},
        'os_glance_staging_store': {
            'filesystem_store_datadir': state / 'staging'},
        'os_glance_tasks_store': {'filesystem_store_datadir': state / 'tasks'},
        'paste_deploy': {
            'flavor': 'keystone',
            'config_file': s.path('etc', 'glance', 'glance-api-paste.ini')},
        'keystone_authtoken': _authtoken(s, 'glance'),
    }


def _neutron(s: mc_settings.Settings) -> dict:
    # neutron-server alone: ML2 with no mechanism driver and no agent.
    # Nova needs it even for servers without networks (show/delete).
    state = s.path('state', 'neutron')
    return {
        'DEFAULT': {
            'core_plugin': 'ml2', 'service_plugins': '',
            'auth_strategy': 'keystone', 'transport_url': transport_url(s),
            'notify_nova_on_port_status_changes': 'false',
            'notify_nova_on_port_data_changes': 'false',
            'api_paste_config': s.path('etc', 'neutron', 'api-paste.ini'),
            'state_path': state,
        },
        'database': {'connection': db_url(s, 'neutron')},
        'oslo_concurrency': {'lock_path': state},
        'oslo_messaging_notifications': {'driver': 'noop'},
        'keystone_authtoken': _authtoken(s, 'neutron'),
    }


_ML2 = {
    'ml2': {'type_drivers': 'flat', 'project_network_types': '',
            'mechanism_drivers': '', 'extension_drivers': 'port_security'},
    'ml2_type_flat': {'flat_networks': '*'},
}


def _nova(s: mc_settings.Settings) -> dict:
    ratio = s.allocation_ratio
    return {
        'DEFAULT': {
            'transport_url': transport_url(s),
            'compute_driver': 'sized_fake_driver.SizedFakeDriver',
            'state_path': s.path('state', 'nova'), 'my_ip': '127.0.0.1',
            'initial_cpu_allocation_ratio': ratio,
            'initial_ram_allocation_ratio': ratio,
            'initial_disk_allocation_ratio': ratio,
            # host sizes are the capacity, nothing held back
            'reserved_host_memory_mb': 0,
            'graceful_shutdown_timeout': 5,
        },
        'api': {'auth_strategy': 'keystone'},
        'wsgi': {'api_paste_config': s.path('etc', 'nova', 'api-paste.ini')},
        'conductor': {'workers': 1},
        'scheduler': {'workers': 1, 'discover_hosts_in_cells_interval': 2},
        'oslo_concurrency': {'lock_path': s.path('state', 'nova', 'locks')},
        'oslo_messaging_notifications': {'driver': 'noop'},
        'keystone_authtoken': _authtoken(s, 'nova'),
        'placement': _password_auth(s, 'nova'),
        'neutron': _password_auth(s, 'nova'),
        'service_user': {'send_service_user_token': 'false'},
    }


def _nova_db(s: mc_settings.Settings) -> dict:
    # computes must not get DB access: only the control services read this
    return {'api_database': {'connection': db_url(s, 'nova_api')},
            'database': {'connection': db_url(s, 'nova')}}


def _heat(s: mc_settings.Settings) -> dict:
    venv_etc = pathlib.Path(s.venv, 'etc', 'heat')
    keystone_v3 = s.url('keystone') + '/v3'
    return {
        'DEFAULT': {
            'transport_url': transport_url(s),
            'heat_metadata_server_url': s.url('heat'),
            'heat_waitcondition_server_url': s.url('heat') + '/v1/wait',
            'stack_domain_admin': 'heat_domain_admin',
            'stack_domain_admin_password': 'heat',
            'stack_user_domain_name': 'heat',
            'num_engine_workers': 1,
            'graceful_shutdown_timeout': 5,
            'action_retry_limit': s.heat_action_retry_limit,
            'region_name_for_services': REGION,
            'environment_dir': venv_etc / 'environment.d',
            'template_dir': venv_etc / 'templates',
        },
        'database': {'connection': db_url(s, 'heat')},
        'paste_deploy': {
            'api_paste_config': s.path('etc', 'heat', 'api-paste.ini')},
        'oslo_messaging_notifications': {'driver': 'noop'},
        'keystone_authtoken': _authtoken(s, 'heat'),
        'trustee': {'auth_type': 'password', 'auth_url': keystone_v3,
                    'username': 'heat', 'password': 'heat',
                    'user_domain_name': 'Default'},
        'clients_keystone': {'auth_uri': s.url('keystone')},
        'ec2authtoken': {'auth_uri': keystone_v3},
    }


def heat_engine_override(path: pathlib.Path, retry_limit: int) -> None:
    """heat-engine's last config file: what ``heat-retries`` changes."""
    _write(path, {'DEFAULT': {'action_retry_limit': retry_limit}})


def _clouds_yaml(s: mc_settings.Settings) -> str:
    lines = ['clouds:']
    for user in ('admin', 'demo'):
        lines += [
            f'  {user}:',
            '    auth:',
            f'      auth_url: {s.url("keystone")}/v3',
            f'      username: {user}',
            f'      password: {user}',
            f'      project_name: {user}',
            '      user_domain_name: Default',
            '      project_domain_name: Default',
            f'    region_name: {REGION}',
            '    identity_api_version: 3',
        ]
    return '\n'.join(lines) + '\n'


def write_all(s: mc_settings.Settings) -> None:
    etc = s.path('etc')
    venv_etc = pathlib.Path(s.venv, 'etc')
    _write(etc / 'keystone.conf', _keystone(s))
    _write(etc / 'placement.conf', _placement(s))
    _write(etc / 'glance' / 'glance-api.conf', _glance(s))
    _write(etc / 'neutron' / 'neutron.conf', _neutron(s))
    _write(etc / 'neutron' / 'plugins' / 'ml2' / 'ml2_conf.ini', _ML2)
    _write(etc / 'nova' / 'nova.conf', _nova(s))
    _write(etc / 'nova' / 'nova-db.conf', _nova_db(s))
    for i, extra in enumerate(s.nova_extra_conf, 1):
        shutil.copyfile(extra, etc / 'nova' / f'extra-{i}.conf')
    for host in s.hosts:
        _write(etc / 'nova' / f'compute-{host.name}.conf', {
            'DEFAULT': {'host': host.name},
            SIZED_DRIVER_GROUP: {'vcpus': host.vcpus,
                                 'memory_mb': host.memory_mb,
                                 'local_gb': host.disk_gb}})
    _write(etc / 'heat' / 'heat.conf', _heat(s))
    heat_engine_override(etc / 'heat' / 'heat-engine.conf',
                         s.heat_action_retry_limit)
    shutil.copyfile(venv_etc / 'glance' / 'glance-api-paste.ini',
                    etc / 'glance' / 'glance-api-paste.ini')
    for project in ('nova', 'neutron', 'heat'):
        shutil.copyfile(venv_etc / project / 'api-paste.ini',
                        etc / project / 'api-paste.ini')
    s.clouds_yaml.write_text(_clouds_yaml(s))


def nova_extra_files(s: mc_settings.Settings) -> list[pathlib.Path]:
    return [s.path('etc', 'nova', f'extra-{i}.conf')
            for i in range(1, len(s.nova_extra_conf) + 1)]
