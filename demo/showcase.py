"""The end-to-end showcase: each step prints what was decided and why."""

import json
import pathlib
import time

import openstack

from demo import cloud
from demo import picture
from demo import snapshot
from demo import steps
from placement_ext import context as pe_context
from placement_ext.conductor import rpcapi as conductor_rpcapi
from placement_ext.manager import rpcapi as manager_rpcapi
from placement_ext.testing import vnf_template

FLAVOR, IMAGE = 'vdu.small', 'cirros'
OPERATION_TIMEOUT = 600     # seconds; generous: the machine is shared
GRANTED = {'VDU1-0': 'AZ-1', 'VDU1-1': 'AZ-1', 'VDU2-0': 'AZ-1',
           'VDU2-1': 'AZ-2'}


def _constraint(kind: str, vnfcs: list[str],
                best_effort: bool = False) -> dict:
    return {'affinityOrAntiAffinity': kind, 'scope': 'ZONE',
            'resource': [{'idType': 'GRANT', 'resourceId': vnfc}
                         for vnfc in vnfcs],
            'fallbackBestEffort': best_effort}


def check_services(conductor: conductor_rpcapi.ConductorAPI,
                   manager: manager_rpcapi.ManagerAPI,
                   context: pe_context.RequestContext) -> None:
    for api in (conductor, manager):
        pong = api.wait_until_up(context, timeout=120)
        print(f"  {pong['service']:<10} on {pong['host']} "
              f"(API {pong['version']}), request {pong['request_id']}")


def vdu_small_fits(hosts: list[dict]) -> int:
    """How many vdu.small (1 vCPU, 2048 MB, 1 GB) fit on empty ``hosts``;
    nova-compute keeps 512 MB of each host for itself."""
    return sum(min(h['vcpus'], (h['memory_mb'] - 512) // 2048, h['disk_gb'])
               for h in hosts)


def fill_zone(conn: openstack.connection.Connection, zone: str,
              count: int) -> None:
    """Other tenants' load: ``count`` servers that leave ``zone`` full."""
    reset(conn)                         # an earlier run's, if it left any
    image = conn.image.find_image(IMAGE, ignore_missing=False)
    flavor = conn.compute.find_flavor(FLAVOR, ignore_missing=False)
    servers = [conn.compute.create_server(
        name=f'tenant-load-{zone}-{n}', image_id=image.id,
        flavor_id=flavor.id, networks='none', availability_zone=zone)
        for n in range(count)]
    for server in servers:
        conn.compute.wait_for_server(server, status='ACTIVE', wait=300)
    print(f'  {count} servers of another tenant now fill {zone}')


# candidate regions for the homing step: the cloud's zones as regions in
# three cities, and a public cloud region
HOMING_CANDIDATES = [
    {'cloud_owner': 'MiniCloud', 'region_id': 'RegionOne',
     'cloud_type': 'OpenStack', 'availability_zone': zone,
     'latitude': latitude, 'longitude': longitude}
    for zone, latitude, longitude in (('AZ-1', 48.86, 2.35),
                                      ('AZ-2', 50.85, 4.35),
                                      ('AZ-3', 52.37, 4.90))] + [
    {'cloud_owner': 'Azure', 'region_id': 'westeurope', 'cloud_type': 'Azure',
     'latitude': 52.37, 'longitude': 4.90}]


def home(conductor: conductor_rpcapi.ConductorAPI,
         context: pe_context.RequestContext) -> None:
    request = {
        'policy': {'content': {'vnfc': 'VDU', 'cloud-cost-evaluation': False,
                               'cloud-deployment-intent': {
                                   'Infrastructure High Availability for '
                                   'VNF': True}}},
        'candidates': HOMING_CANDIDATES,
        'customer_location': {'latitude': 48.86, 'longitude': 2.35},
        'demand': {'flavor': FLAVOR, 'count': 2}}
    for region in HOMING_CANDIDATES:
        where = region.get('availability_zone') or region['region_id']
        print(f"  candidate {where} ({region['cloud_type']}) at "
              f"{region['latitude']}, {region['longitude']}")
    result = conductor.select_cloud(context, request)
    for dropped in result['dropped']:
        print(f"  dropped {dropped['region']}: {dropped['reason']}")
    best = result['selected']
    if not best:
        raise steps.StepFailed('no candidate region can take the demand')
    print(f"  chosen {best['region']['name']}: {best['distance_km']:.0f} km, "
          f"{best['capacity']}")
    print(f"  Nova and Placement calls: {json.dumps(result['calls'])}")


def instantiate(conductor: conductor_rpcapi.ConductorAPI,
                context: pe_context.RequestContext) -> dict:
    vnfcs = sorted(GRANTED)
    request = {
        'operation': 'INSTANTIATE', 'vnf_instance_id': 'demo-vnf',
        'stack_name': 'demo-vnf', 'placement': GRANTED, 'targets': vnfcs,
        'template': vnf_template.template(vnfcs),
        'files': vnf_template.FILES,
        'constraints': [_constraint('AFFINITY', ['VDU1-0', 'VDU1-1']),
                        _constraint('ANTI_AFFINITY', ['VDU2-0', 'VDU2-1'],
                                    best_effort=True)],
        'grant_zones': ['AZ-1', 'AZ-2', 'AZ-3'],
        'flavors': {'VDU1': vnf_template.VDU_SMALL,
                    'VDU2': vnf_template.VDU_SMALL},
    }
    print('  granted:', json.dumps(GRANTED))
    print('  VDU1-0/VDU1-1 affine (same zone); VDU2-0/VDU2-1 anti-affine, '
          'best effort (fallbackBestEffort: the capacity pre-check may move '
          'them before Heat is called)')
    op = conductor.start_operation(context, request)
    deadline = time.monotonic() + OPERATION_TIMEOUT
    while op['state'] in ('STARTING', 'PROCESSING'):
        if time.monotonic() > deadline:
            raise steps.StepFailed(f"operation {op['id']} still "
                                   f"{op['state']} after "
                                   f'{OPERATION_TIMEOUT} s')
        time.sleep(2)
        op = conductor.get_operation(context, op['id'])
    _print_attempts(op)
    if op['state'] != 'COMPLETED':
        raise steps.StepFailed(f"operation {op['id']} ended {op['state']}: "
                               f"{(op.get('error') or {}).get('detail')}")
    return op


def _print_attempts(op: dict) -> None:
    for attempt in op['attempts']:
        took = attempt['duration_s'] or 0
        print(f"  attempt {attempt['seq']}: {attempt['vdu_id']} in "
              f"{attempt['zone']} -> {attempt['outcome']} ({took:.1f} s)")
        for reason in attempt['decision'].get('reasons', []):
            print(f'      why: {reason}')
        if attempt['outcome'] == 'insufficient_capacity':
            print(f"      Heat: {attempt['error_text']}")
    print(f"  operation {op['id']}: {op['state']}; final placement "
          f"{json.dumps(op['placement'])}")
    if op.get('error'):
        print(f"  error {op['error']['code']}: {op['error']['detail']}")


def draw(conn: openstack.connection.Connection, op: dict,
         path: pathlib.Path) -> None:
    labels = {}
    for server in conn.compute.servers(all_projects=True):
        for vnfc in op['placement']:
            if f'-{vnfc}-' in server.name:
                labels[server.id] = vnfc
    failed: dict[str, set[str]] = {}
    for attempt in op['attempts']:
        if attempt['outcome'] == 'insufficient_capacity':
            failed.setdefault(attempt['zone'], set()).add(attempt['vdu_id'])
    zones = snapshot.zones(conn, labels, failed)
    path.write_text(picture.render('placement_ext demo: where the VNF runs',
                                   zones))
    print(f'  wrote {path} (open it in a browser)')


def connect(clouds_yaml: str) -> openstack.connection.Connection:
    config = openstack.config.OpenStackConfig(config_files=[clouds_yaml])
    return openstack.connection.Connection(config=config.get_one('admin'))


def reset(conn: openstack.connection.Connection) -> None:
    """Delete the showcase's VNF and the other tenant's load; wait until
    they are gone."""
    delete_vnf(conn)
    load = [s.id for s in conn.compute.servers(all_projects=True)
            if s.name.startswith('tenant-load-')]
    for server in load:
        conn.compute.delete_server(server)
    cloud.wait_gone(conn, load, whose="the other tenant's load")


def delete_vnf(conn: openstack.connection.Connection) -> None:
    """Delete the showcase's VNF (its stack), keeping the other load."""
    cloud.delete_stack(conn, 'demo-vnf')
