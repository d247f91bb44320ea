"""The environment of Tacker's zone-retry functional job, on the cloud.

    python -m az_retry_env ZONES_JSON on|off

``on`` (idempotent): the first zone's aggregate becomes zone ``az-1``
and every other zone's ``nova`` (upstream's job has these two zones);
project ``nfv`` with user ``nfv_user`` (password ``devstack``, roles
admin and member) and no compute quota; flavor ``sample4G`` (2 vCPUs,
4096 MB, 4 GB); shared networks ``net_mgmt``, ``net0``, ``net1`` with
subnets ``subnet_mgmt``, ``subnet0``, ``subnet1``. ``off`` gives the
aggregates their zones of ZONES_JSON back (the rest stays: it does not
change the other tests' zones or flavors). A zone can be renamed only
while its hosts run no server.
"""

import json
import sys

import openstack

PROJECT, USER, PASSWORD = 'nfv', 'nfv_user', 'devstack'
FLAVOR = {'name': 'sample4G', 'vcpus': 2, 'ram': 4096, 'disk': 4}
NETWORKS = {'net_mgmt': ('subnet_mgmt', '192.168.120.0/24'),
            'net0': ('subnet0', '10.10.0.0/24'),
            'net1': ('subnet1', '10.10.1.0/24')}
FIRST_ZONE, OTHER_ZONE = 'az-1', 'nova'


def _zones(conn, zones: dict[str, list[str]], names: list[str]) -> None:
    for zone, name in zip(zones, names, strict=True):
        agg = conn.compute.find_aggregate(f'agg-{zone}', ignore_missing=False)
        if agg.availability_zone != name:
            conn.compute.update_aggregate(agg, availability_zone=name)


def _identity(conn) -> None:
    project = conn.identity.find_project(PROJECT) or \
        conn.identity.create_project(name=PROJECT, domain_id='default')
    user = conn.identity.find_user(USER) or conn.identity.create_user(
        name=USER, password=PASSWORD, domain_id='default',
        default_project_id=project.id)
    for role in ('admin', 'member'):
        conn.identity.assign_project_role_to_user(
            project, user, conn.identity.find_role(role, ignore_missing=False))
    conn.set_compute_quotas(project.id, instances=-1, cores=-1, ram=-1)
    conn.set_network_quotas(project.id, network=-1, subnet=-1, port=-1)


def _flavor(conn) -> None:
    if conn.compute.find_flavor(FLAVOR['name']) is None:
        conn.compute.create_flavor(is_public=True, **FLAVOR)


def _networks(conn) -> None:
    for name, (subnet, cidr) in NETWORKS.items():
        net = conn.network.find_network(name) or conn.network.create_network(
            name=name, is_shared=True)
        if conn.network.find_subnet(subnet) is None:
            conn.network.create_subnet(name=subnet, network_id=net.id,
                                       ip_version=4, cidr=cidr)


def main() -> None:
    with open(sys.argv[1]) as f:
        zones = json.load(f)
    conn = openstack.connect(cloud='admin')
    if sys.argv[2] == 'off':
        _zones(conn, zones, list(zones))
        return
    _zones(conn, zones, [FIRST_ZONE] + [OTHER_ZONE] * (len(zones) - 1))
    _identity(conn)
    _flavor(conn)
    _networks(conn)
    print(f'az-retry environment: zones {FIRST_ZONE} and {OTHER_ZONE}, '
          f'project {PROJECT}, flavor {FLAVOR["name"]}, networks '
          f'{", ".join(NETWORKS)}')


if __name__ == '__main__':
    main()
