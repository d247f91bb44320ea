"""Demo step: a lease made with ``openstack reservation lease create``,
served by our plugin inside the real blazar-manager, and the reserved
servers in the placement picture.

Brings up the minicloud addon ``blazar`` (blazar-api and blazar-manager
with our ``physical:host`` and instance plugins), enrols the hosts of one zone
with ``openstack reservation host create``, reserves more instances than
hosts: ``amount`` with affinity None and one per host with affinity False
(whose Nova server group ``lease show`` names), boots them with each
reservation's private flavor, the second with Blazar's documented
``--hint group=<server_group_id>``, and draws them (orange: reserved).
:meth:`BlazarStep.clean_up` deletes the lease (its servers go with it)
and the hosts from Blazar.
"""

import dataclasses
import datetime
import json
import os
import pathlib
import subprocess
import time

import openstack

from demo import cloud
from demo import picture
from demo import snapshot
from demo import steps

LEASE = 'demo-blazar-lease'
IMAGE = 'cirros'
V = '1.39'


def _openstack(addon: dict, clouds_yaml: str, cloud_name: str,
               *args: str, output: bool = True) -> object:
    """``openstack ARGS [-f json]`` from the addon's venv
    (python-blazarclient provides ``openstack reservation``)."""
    env = {**os.environ, 'OS_CLIENT_CONFIG_FILE': clouds_yaml,
           'OS_CLOUD': cloud_name}
    done = subprocess.run(
        [str(pathlib.Path(addon['venv'], 'bin', 'openstack')), *args,
         *(['-f', 'json'] if output else [])], text=True,
        capture_output=True, env=env, timeout=300)
    if done.returncode:
        raise RuntimeError(f'openstack {" ".join(args)}: {done.stderr}')
    if not output:
        return None
    # "Created a new lease:" precedes the JSON document
    out = done.stdout
    return json.loads(out[min(i for i in (out.find('{'), out.find('['),
                                          len(out)) if i >= 0):])


class BlazarStep:
    """The step and its clean-up, sharing the lease and hosts."""

    def __init__(self, status: dict, picture_path: pathlib.Path,
                 quota: cloud.Quota, zone: str = 'AZ-3',
                 amount: int = 1) -> None:
        self.clouds = status['clouds_yaml']
        self.hosts = [h['host'] for h in status['zones'][zone]]
        self.picture_path, self.quota, self.amount = (picture_path, quota,
                                                      amount)
        self.addon: dict | None = None
        self.enrolled: list[str] = []
        self.servers: list[str] = []
        # nothing of the step is left since the last clean-up
        self.clean = False

    def run(self) -> None:
        cloud.minicloud('addon', 'up', 'blazar')
        self.addon = json.loads(cloud.minicloud('addon', 'status',
                                                'blazar'))
        self.clean_up()                 # an earlier run's, if it left one
        self.clean = False
        self.quota.ensure(len(self.hosts) + self.amount,
                          'the reserved servers')
        admin = _connect(self.clouds, 'admin')
        self._enrol()
        providers = {host: _provider(admin, host) for host in self.hosts}
        lease = self._lease()
        for res in _reservations(lease):
            group = res.get('server_group_id')
            print(f"  lease {lease['id']} {lease['status']}: "
                  f"{res['amount']} x flavor {res['flavor_id']}, affinity "
                  f"{res['affinity']}, server group {group}")
            self.servers += [s.id for s in _boot(
                self.clouds, res['flavor_id'], int(res['amount']), group)]
        for provider in providers.values():
            inventory = admin.placement.get(
                f'/resource_providers/{provider["uuid"]}/inventories',
                microversion=V).json()['inventories']
            print(f"  {provider['name']}: " + ', '.join(
                f"{rc} total {inv['total']}" for rc, inv in inventory.items()))
        _draw(admin, set(self.servers), self.picture_path)

    def _openstack(self, cloud_name: str, *args: str,
                   output: bool = True) -> object:
        return _openstack(self.addon, self.clouds, cloud_name, *args,
                          output=output)

    def _enrol(self) -> None:
        enrolled = {h['hypervisor_hostname'] for h in self._openstack(
            'admin', 'reservation', 'host', 'list', '-c',
            'hypervisor_hostname')}
        for host in self.hosts:
            if host not in enrolled:
                # our host plugin reuses a blazar_<host> an earlier run
                # kept
                self._openstack('admin', 'reservation', 'host', 'create',
                                host, output=False)
                print(f'  openstack reservation host create {host}')
            self.enrolled.append(host)

    def _lease(self) -> dict:
        end = (datetime.datetime.utcnow() + datetime.timedelta(hours=1)
               ).strftime('%Y-%m-%d %H:%M')
        argv = ['reservation', 'lease', 'create', '--start-date', 'now',
                '--end-date', end]
        # Blazar may pick the reservations in any order: the one with no
        # policy packs its slots, and must leave one on each host
        for affinity, count in (('False', len(self.hosts)),
                                ('None', self.amount)):
            argv += ['--reservation',
                     f'resource_type=virtual:instance,amount={count},'
                     f'vcpus=1,memory_mb=512,disk_gb=1,affinity={affinity}']
        argv.append(LEASE)
        print('  openstack ' + ' '.join(argv))
        lease = self._openstack('demo', *argv)
        lease = _wait_active(self.addon, self.clouds, lease['id'])
        if lease['status'] != 'ACTIVE':
            raise steps.StepFailed(f"lease {lease['id']} "
                                   f"{lease['status']}, not ACTIVE")
        return lease

    def clean_up(self, timeout: float = 300) -> None:
        """Delete the lease (its servers go with it), then the hosts
        from Blazar: their ``blazar_<host>`` providers stay, empty, so
        builds on them work at once and a later enrolment reuses them.
        """
        if self.addon is None or self.clean:
            return
        for lease in self._openstack('demo', 'reservation', 'lease',
                                     'list'):
            if lease['name'] == LEASE:
                self._openstack('demo', 'reservation', 'lease', 'delete',
                                lease['id'], output=False)
                print(f"  lease {lease['id']} deleted; its servers, flavor, "
                      'class and inventories go with it')
        cloud.wait_gone(_connect(self.clouds, 'admin'), self.servers,
                        whose=f'lease {LEASE}')
        self.servers = []
        deadline = time.monotonic() + timeout
        while self.enrolled:
            try:
                # refused while the lease's reservations are still going
                self._openstack('admin', 'reservation', 'host', 'delete',
                                self.enrolled[0], output=False)
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(2)
                continue
            print(f'  openstack reservation host delete {self.enrolled[0]}')
            self.enrolled.pop(0)
        self.clean = True


def _connect(clouds: str, name: str) -> openstack.connection.Connection:
    return openstack.connection.Connection(
        config=openstack.config.OpenStackConfig(
            config_files=[clouds]).get_one(name))


def _provider(conn: openstack.connection.Connection, host: str) -> dict:
    found = conn.placement.get(f'/resource_providers?name=blazar_{host}',
                               microversion=V).json()['resource_providers']
    provider = found[0]
    return {'name': provider['name'], 'uuid': provider['uuid'],
            'parent_provider_uuid': provider['parent_provider_uuid']}


def _wait_active(addon: dict, clouds: str, lease_id: str,
                 timeout: float = 180) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        lease = _openstack(addon, clouds, 'demo', 'reservation', 'lease',
                           'show', lease_id)
        if lease['status'] == 'ACTIVE' or time.monotonic() > deadline:
            return lease
        time.sleep(2)


def _reservations(lease: dict) -> list[dict]:
    """The lease's reservations (the CLI prints them as JSON text)."""
    res = lease['reservations']
    if not isinstance(res, str):
        return res if isinstance(res, list) else [res]
    # the CLI prints one JSON object after the other
    decoder, found, index = json.JSONDecoder(), [], 0
    while index < len(res):
        if res[index].isspace():
            index += 1
            continue
        obj, index = decoder.raw_decode(res, index)
        found.append(obj)
    return found


def _boot(clouds: str, flavor_id: str, count: int,
          group: str | None = None) -> list:
    """``count`` servers of the flavor, with ``--hint group=<group>``
    when the reservation has a server group (Blazar's documented boot).
    """
    demo = _connect(clouds, 'demo')
    image = demo.image.find_image(IMAGE, ignore_missing=False)
    hints = {'scheduler_hints': {'group': group}} if group else {}
    servers = [demo.compute.create_server(
        name=f'reserved-{flavor_id[:8]}-{n}', image_id=image.id,
        flavor_id=flavor_id, networks='none', **hints)
        for n in range(count)]
    servers = [demo.compute.wait_for_server(s, status='ACTIVE', wait=300)
               for s in servers]
    print(f'  {count} reserved servers ACTIVE' +
          (f' in server group {group}' if group else ''))
    return servers


def _draw(admin: openstack.connection.Connection, servers: set[str],
          path: pathlib.Path) -> None:
    labels = {s.id: s.name for s in admin.compute.servers(all_projects=True)
              if s.id in servers}
    zones = [dataclasses.replace(zone, hosts=tuple(
        dataclasses.replace(host, items=tuple(
            dataclasses.replace(item, kind='reserved')
            if item.label.startswith('reserved-') else item
            for item in host.items)) for host in zone.hosts))
        for zone in snapshot.zones(admin, labels)]
    path.write_text(picture.render(
        'placement_ext in blazar-manager: reserved servers', zones))
    print(f'  wrote {path} (open it in a browser)')
