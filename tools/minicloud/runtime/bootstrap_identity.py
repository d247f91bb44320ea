"""Keystone content of the minicloud: projects, users, roles, catalog.

    python -m bootstrap_identity SETTINGS_JSON

Run once, right after ``keystone-manage bootstrap`` made admin/admin,
with OS_CLIENT_CONFIG_FILE pointing at the cloud's clouds.yaml.
"""

import json
import sys

import openstack

ROLES = ('admin', 'member', 'reader', 'service', 'heat_stack_owner',
         'heat_stack_user')
SERVICE_USERS = ('nova', 'placement', 'glance', 'heat', 'neutron')
# service type -> (name, port key in settings, path after host:port)
CATALOG = {
    'compute': ('nova', 'nova', '/v2.1'),
    'placement': ('placement', 'placement', ''),
    'image': ('glance', 'glance', ''),
    'network': ('neutron', 'neutron', ''),
    'orchestration': ('heat', 'heat', '/v1/%(tenant_id)s'),
}


def _user(idn, name, project, roles):
    user = idn.create_user(name=name, password=name, domain_id='default',
                           default_project_id=project.id)
    for role in roles:
        idn.assign_project_role_to_user(project, user, role)


def main() -> None:
    with open(sys.argv[1]) as f:
        ports = json.load(f)['ports']
    idn = openstack.connect(cloud='admin').identity
    roles = {r: idn.find_role(r) or idn.create_role(name=r) for r in ROLES}
    service = idn.create_project(name='service', domain_id='default')
    demo = idn.create_project(name='demo', domain_id='default')
    for name in SERVICE_USERS:
        _user(idn, name, service, [roles['admin'], roles['service']])
    _user(idn, 'demo', demo,
          [roles['member'], roles['reader'], roles['heat_stack_owner']])
    idn.assign_project_role_to_user(
        idn.find_project('admin'), idn.find_user('admin'),
        roles['heat_stack_owner'])
    # Heat's stack-user domain (default deferred_auth_method=trusts)
    domain = idn.create_domain(name='heat', description='heat stack users')
    domain_admin = idn.create_user(name='heat_domain_admin', password='heat',
                                   domain_id=domain.id)
    idn.assign_domain_role_to_user(domain, domain_admin, roles['admin'])
    for stype, (name, port, path) in CATALOG.items():
        svc = idn.create_service(name=name, type=stype)
        url = f'http://127.0.0.1:{ports[port]}{path}'
        for iface in ('public', 'internal', 'admin'):
            idn.create_endpoint(service_id=svc.id, interface=iface, url=url,
                                region_id='RegionOne')
    print('identity ready')


if __name__ == '__main__':
    main()
