"""An SVG picture of the placement: zones, hosts, what runs where.

Pure: takes a plain snapshot and returns SVG text, so it is tested without
a cloud and the demo only has to gather the snapshot.
"""

import dataclasses
import html

HOST_W, HOST_PAD, ITEM_H, ZONE_PAD, TITLE_H = 190, 10, 20, 14, 26
COLOURS = {'vnfc': '#cfe8ff', 'reserved': '#ffe2b3', 'other': '#dddddd',
           'empty': '#f6f6f6', 'pod': '#d3f2d0'}


@dataclasses.dataclass(frozen=True)
class Item:
    """One thing on a host: a VNFC, a reserved slot, another's server."""

    label: str
    kind: str = 'vnfc'


@dataclasses.dataclass(frozen=True)
class Host:
    name: str
    items: tuple[Item, ...] = ()
    note: str = ''


@dataclasses.dataclass(frozen=True)
class Zone:
    name: str
    hosts: tuple[Host, ...]
    note: str = ''


def render(title: str, zones: list[Zone], legend: bool = True) -> str:
    """Return an SVG document drawing ``zones`` side by side."""
    widths = [_zone_width(zone) for zone in zones]
    height = max((_zone_height(zone) for zone in zones), default=0)
    width = sum(widths) + ZONE_PAD * (len(zones) + 1)
    total_h = height + TITLE_H * 2 + (ITEM_H + 10 if legend else 0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{total_h}" font-family="sans-serif" font-size="12">',
        f'<text x="{ZONE_PAD}" y="18" font-size="15" font-weight="bold">'
        f'{_esc(title)}</text>',
    ]
    x = ZONE_PAD
    for zone, zone_w in zip(zones, widths, strict=True):
        parts.extend(_zone(zone, x, TITLE_H + 6, zone_w, height))
        x += zone_w + ZONE_PAD
    if legend:
        parts.extend(_legend(total_h - ITEM_H))
    parts.append('</svg>')
    return '\n'.join(parts)


def _zone_width(zone: Zone) -> int:
    return max(1, len(zone.hosts)) * (HOST_W + HOST_PAD) + HOST_PAD


def _host_height(host: Host) -> int:
    return TITLE_H + max(1, len(host.items)) * ITEM_H + HOST_PAD


def _zone_height(zone: Zone) -> int:
    tallest = max((_host_height(host) for host in zone.hosts), default=0)
    return TITLE_H + tallest + 2 * HOST_PAD


def _zone(zone: Zone, x: int, y: int, width: int, height: int) -> list[str]:
    label = zone.name + (f' ({zone.note})' if zone.note else '')
    parts = [
        f'<rect x="{x}" y="{y}" width="{width}" height="{height}" rx="8" '
        f'fill="#f7f7fb" stroke="#555"/>',
        f'<text x="{x + HOST_PAD}" y="{y + 18}" font-weight="bold">'
        f'{_esc(label)}</text>',
    ]
    host_x = x + HOST_PAD
    for host in zone.hosts:
        parts.extend(_host(host, host_x, y + TITLE_H + HOST_PAD))
        host_x += HOST_W + HOST_PAD
    return parts


def _host(host: Host, x: int, y: int) -> list[str]:
    label = host.name + (f' [{host.note}]' if host.note else '')
    parts = [
        f'<rect x="{x}" y="{y}" width="{HOST_W}" '
        f'height="{_host_height(host)}" rx="4" fill="#fff" stroke="#888"/>',
        f'<text x="{x + 6}" y="{y + 17}">{_esc(label)}</text>',
    ]
    items = host.items or (Item('(empty)', 'empty'),)
    for index, item in enumerate(items):
        item_y = y + TITLE_H + index * ITEM_H
        parts.append(
            f'<rect x="{x + 6}" y="{item_y}" width="{HOST_W - 12}" '
            f'height="{ITEM_H - 3}" fill="{COLOURS.get(item.kind, "#ddd")}"/>')
        parts.append(f'<text x="{x + 10}" y="{item_y + 13}">'
                     f'{_esc(item.label)}</text>')
    return parts


def _legend(y: int) -> list[str]:
    parts, x = [], ZONE_PAD
    for kind, colour in COLOURS.items():
        parts.append(f'<rect x="{x}" y="{y}" width="14" height="14" '
                     f'fill="{colour}" stroke="#888"/>')
        parts.append(f'<text x="{x + 18}" y="{y + 12}">{kind}</text>')
        x += 100
    return parts


def _esc(text: str) -> str:
    return html.escape(text, quote=True)
