"""Is the minicloud up? Probes with the standard library only.

``probe`` checks every process we started (alive, by pid), every API
(any HTTP answer counts) and how many hypervisors Nova knows.
"""

import dataclasses
import json
import socket
import time
import urllib.error
import urllib.request

from minicloud import procs
from minicloud import services
from minicloud import settings as mc_settings

BACKENDS = ('epmd', 'mariadb', 'rabbitmq')


@dataclasses.dataclass
class Check:
    name: str
    ok: bool
    detail: str
    log: str


@dataclasses.dataclass
class Report:
    checks: list[Check]
    hypervisors: int | None
    expected_hypervisors: int
    rss_mb: float

    @property
    def healthy(self) -> bool:
        return (all(c.ok for c in self.checks)
                and self.hypervisors == self.expected_hypervisors)

    @property
    def any_alive(self) -> bool:
        return any(c.detail != 'not running' for c in self.checks)


def http_answers(url: str, timeout: float = 5.0) -> bool:
    try:
        urllib.request.urlopen(url, timeout=timeout).close()
    except urllib.error.HTTPError:
        return True            # an HTTP error is still an answer
    except (OSError, ValueError):
        return False
    return True


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(('127.0.0.1', port), timeout=1):
            return True
    except OSError:
        return False


def wait_until(what: str, predicate, timeout: float,
               interval: float = 0.25) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f'{what}: not ready after {timeout:.0f}s')
        time.sleep(interval)


def admin_token(s: mc_settings.Settings) -> tuple[str, str]:
    """A Keystone token for admin/admin and the admin project id."""
    body = {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': 'admin', 'domain': {'name': 'Default'},
            'password': 'admin'}}},
        'scope': {'project': {'name': 'admin',
                              'domain': {'name': 'Default'}}}}}
    req = urllib.request.Request(
        s.url('keystone') + '/v3/auth/tokens',
        data=json.dumps(body).encode(),
        headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(req, timeout=30) as resp:
        project = json.load(resp)['token']['project']['id']
        return resp.headers['X-Subject-Token'], project


def get_json(url: str, token: str, timeout: float = 30) -> dict:
    req = urllib.request.Request(url, headers={'X-Auth-Token': token})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.load(resp)


def hypervisor_count(s: mc_settings.Settings) -> int | None:
    try:
        token, _ = admin_token(s)
        body = get_json(s.url('nova') + '/v2.1/os-hypervisors', token)
    except (OSError, ValueError, KeyError):
        return None
    return len(body.get('hypervisors', []))


def _check(s: mc_settings.Settings, name: str, url: str | None) -> Check:
    proc = procs.Proc(s.path(), name)
    if not proc.alive():
        return Check(name, False, 'not running', str(proc.log))
    detail = f'pid {proc.pid}'
    if url is None:
        return Check(name, True, detail, str(proc.log))
    if http_answers(url):
        return Check(name, True, f'{detail}, {url} answers', str(proc.log))
    return Check(name, False, f'{detail}, {url} does not answer',
                 str(proc.log))


def probe(s: mc_settings.Settings) -> Report:
    checks = [_check(s, name, None) for name in BACKENDS]
    checks += [_check(s, svc.name, svc.probe_url)
               for svc in services.openstack_services(s)]
    keystone_ok = next(c.ok for c in checks if c.name == 'keystone')
    members = [pid for p in procs.all_procs(s.path()) for pid in p.members()]
    return Report(
        checks=checks,
        hypervisors=hypervisor_count(s) if keystone_ok else None,
        expected_hypervisors=len(s.hosts),
        rss_mb=procs.rss_mb(members))


def format_report(s: mc_settings.Settings, report: Report) -> str:
    lines = [f'minicloud in {s.base}']
    width = max(len(c.name) for c in report.checks)
    for c in report.checks:
        mark = 'ok  ' if c.ok else 'FAIL'
        lines.append(f'  {mark} {c.name:<{width}}  {c.detail}')
        lines.append(f'       {"":<{width}}  log: {c.log}')
    lines.append(f'  hypervisors: {report.hypervisors} of '
                 f'{report.expected_hypervisors}')
    lines.append(f'  memory (RSS of all its processes): '
                 f'{report.rss_mb:.0f} MB')
    lines.append(f'  clouds.yaml: {s.clouds_yaml}')
    verdict = ('UP' if report.healthy else
               'BROKEN (run: minicloud down && minicloud up)'
               if report.any_alive else 'DOWN')
    lines.append(f'  state: {verdict}')
    return '\n'.join(lines)


def report_json(s: mc_settings.Settings, report: Report) -> str:
    return json.dumps({
        'base': s.base, 'clouds_yaml': str(s.clouds_yaml),
        'healthy': report.healthy, 'any_alive': report.any_alive,
        'hypervisors': report.hypervisors,
        'expected_hypervisors': report.expected_hypervisors,
        'rss_mb': round(report.rss_mb),
        'zones': _zones(s),
        'allocation_ratio': s.allocation_ratio,
        'heat_action_retry_limit': s.heat_action_retry_limit,
        'services': [dataclasses.asdict(c) for c in report.checks],
    }, indent=2)


def _zones(s: mc_settings.Settings) -> dict[str, list[dict]]:
    zones: dict[str, list[dict]] = {}
    for h in s.hosts:
        zones.setdefault(h.zone, []).append({
            'host': h.name, 'vcpus': h.vcpus, 'memory_mb': h.memory_mb,
            'disk_gb': h.disk_gb})
    return zones
