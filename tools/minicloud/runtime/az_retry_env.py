"""The environment of Tacker's functional jobs, on the cloud.

    python -m az_retry_env ZONES_JSON on|off

``on`` (idempotent): the first zone's aggregate becomes zone ``az-1``
and every other zone's ``nova`` (upstream's zone-retry job has these two
zones); project ``nfv`` with user ``nfv_user`` (password ``devstack``,
roles admin and member) and no compute quota; flavors ``sample4G`` (2
vCPUs, 4096 MB, 4 GB; the zone-retry test) and ``m1.tiny`` (devstack's;
``sol_v2_common``'s packages); the public image
``cirros-0.5.2-x86_64-disk`` that those packages name without carrying
it (a 1 KiB stand-in: Nova's fake driver boots anything); shared networks
``net_mgmt``, ``net0``, ``net1`` with subnets ``subnet_mgmt``,
``subnet0``, ``subnet1``. ``off`` gives the
aggregates their zones of ZONES_JSON back (the rest stays: it does not
change the other tests' zones or flavors). A zone can be renamed only
while its hosts run no server.
"""

import io
import json
import sys

import openstack

PROJECT, USER, PASSWORD = 'nfv', 'nfv_user', 'devstack'
FLAVORS = ({'name': 'sample4G', 'vcpus': 2, 'ram': 4096, 'disk': 4},
           {'name': 'm1.tiny', 'vcpus': 1, 'ram': 512, 'disk': 1})
IMAGE = 'cirros-0.5.2-x86_64-disk'
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


def _flavors(conn) -> None:
    for flavor in FLAVORS:
        if conn.compute.find_flavor(flavor['name']) is None:
            conn.compute.create_flavor(is_public=True, **flavor)


def _image(conn) -> None:
    if conn.image.find_image(IMAGE) is None:
        conn.image.create_image(
            name=IMAGE, data=io.BytesIO(b'\0' * 1024), disk_format='raw',
            container_format='bare', visibility='public')


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
    _flavors(conn)
    _image(conn)
    _networks(conn)
    print(f'upstream environment: zones {FIRST_ZONE} and {OTHER_ZONE}, '
          f'project {PROJECT}, flavors '
          f'{", ".join(f["name"] for f in FLAVORS)}, image {IMAGE}, '
          f'networks {", ".join(NETWORKS)}')


if __name__ == '__main__':
    main()
