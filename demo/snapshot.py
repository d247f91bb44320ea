"""Gather the picture's data from Nova: zones, hosts, servers on them."""

import openstack

from demo import picture


def zones(conn: openstack.connection.Connection,
          labels: dict[str, str] | None = None,
          failed: dict[str, set[str]] | None = None) -> list[picture.Zone]:
    """Every compute zone with its hosts and the servers on each host.

    :param labels: server id -> label to show instead of the name.
    :param failed: zone -> VNFCs that failed there (shown as notes).
    """
    labels, failed = labels or {}, failed or {}
    by_host: dict[str, list[picture.Item]] = {}
    for server in conn.compute.servers(all_projects=True):
        item = picture.Item(labels.get(server.id, server.name),
                            'vnfc' if server.id in labels else 'other')
        if server.compute_host:
            by_host.setdefault(server.compute_host, []).append(item)
    result = []
    for zone in sorted(conn.compute.availability_zones(details=True),
                       key=lambda z: z.name):
        if zone.name == 'internal':
            continue
        hosts = tuple(
            picture.Host(host, tuple(sorted(by_host.get(host, []),
                                            key=lambda i: i.kind)))
            for host in sorted(zone.hosts or {}))
        note = ('failed here: ' + ', '.join(sorted(failed[zone.name]))
                if failed.get(zone.name) else '')
        result.append(picture.Zone(zone.name, hosts, note))
    return result
