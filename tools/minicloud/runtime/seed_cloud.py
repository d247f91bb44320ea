"""Availability zones, flavor, image and quotas of the minicloud.

    python -m seed_cloud ZONES_JSON      ({"AZ-1": ["az1-h1", ...], ...})

Waits until every fake host is a hypervisor, then puts each zone's hosts
in an aggregate ``agg-<zone>`` with that availability zone (except zone
``nova``, Nova's default: its hosts stay in no aggregate, in no named
zone, as devstack's compute host), and creates
flavor ``vdu.small`` (1 vCPU, 2048 MB, 1 GB), image ``cirros`` (1 KiB)
and generous quotas for the demo project.
"""

import io
import json
import sys
import time

import openstack

HYPERVISOR_TIMEOUT = 300
# Nova's default_availability_zone: a host in no zone aggregate shows it
DEFAULT_ZONE = 'nova'


def _wait_for_hypervisors(conn, names: set[str]) -> None:
    start = time.monotonic()
    while True:
        try:
            found = {h.name for h in conn.compute.hypervisors()}
        except openstack.exceptions.SDKException:
            found = set()
        if names <= found:
            break
        if time.monotonic() - start > HYPERVISOR_TIMEOUT:
            raise SystemExit(f'hypervisors missing after '
                             f'{HYPERVISOR_TIMEOUT}s: {sorted(names - found)}')
        time.sleep(1)
    print(f'{len(names)} hypervisors after {time.monotonic() - start:.1f}s')


def main() -> None:
    with open(sys.argv[1]) as f:
        zones = json.load(f)
    conn = openstack.connect(cloud='admin')
    _wait_for_hypervisors(conn, {h for hosts in zones.values() for h in hosts})
    for zone, hosts in zones.items():
        if zone == DEFAULT_ZONE:
            continue
        agg = conn.compute.create_aggregate(name=f'agg-{zone}',
                                            availability_zone=zone)
        for host in hosts:
            conn.compute.add_host_to_aggregate(agg, host)
    conn.compute.create_flavor(name='vdu.small', vcpus=1, ram=2048, disk=1,
                               is_public=True)
    conn.image.create_image(
        name='cirros', data=io.BytesIO(b'\0' * 1024), disk_format='raw',
        container_format='bare', visibility='public', allow_duplicates=True)
    demo = conn.identity.find_project('demo')
    conn.set_compute_quotas(demo.id, instances=200, cores=400, ram=4096000,
                            server_groups=200, server_group_members=200)
    print('zones:', {z: h for z, h in zones.items()})


if __name__ == '__main__':
    main()
