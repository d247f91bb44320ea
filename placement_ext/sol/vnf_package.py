"""What an NFVO needs from a VNF package (CSAR zip): each VDU's flavour.

A VDU's compute flavour is named as Tacker reads it,
``capabilities.virtual_compute.properties.requested_additional_capabilities
.*.requested_additional_capability_name``; without one, its
``virtual_cpu.num_virtual_cpu`` is the only size known. Pure: the caller
reads the package.
"""

import io
import zipfile

import yaml

from placement_ext import exception
from placement_ext.schemas import files
from placement_ext.sol import vnfd as vnfd_mod


def vdu_flavours(csar: bytes) -> dict[str, dict]:
    """VDU -> ``{'flavor': name}`` or ``{'vcpus': n}``, from every
    ``Definitions/`` file of the package."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(csar))
    except zipfile.BadZipFile as exc:
        raise exception.InvalidInput(field='package_content',
                                     reason=f'not a zip file: {exc}')
    found: dict[str, dict] = {}
    with archive:
        for name in archive.namelist():
            if name.startswith('Definitions/') and \
                    name.endswith(('.yaml', '.yml')):
                try:
                    document = files.parse_yaml(archive.read(name)) or {}
                except yaml.YAMLError as exc:
                    raise exception.InvalidInput(
                        field='package_content',
                        reason=f'{name}: ' + ' '.join(str(exc).split()))
                found.update(_vdus(document))
    return found


def _vdus(document: dict) -> dict[str, dict]:
    nodes = (document.get('topology_template') or {}).get(
        'node_templates') or {}
    return {name: _size(node) for name, node in nodes.items()
            if isinstance(node, dict)
            and node.get('type') == vnfd_mod.VDU_COMPUTE}


def _size(node: dict) -> dict:
    compute = ((node.get('capabilities') or {}).get('virtual_compute')
               or {}).get('properties') or {}
    extra = compute.get('requested_additional_capabilities') or {}
    if 'properties' in extra:       # Tacker's samples: one unnamed entry
        extra = {'': extra}
    for capability in extra.values():
        flavor = ((capability or {}).get('properties') or {}).get(
            'requested_additional_capability_name')
        if flavor:
            return {'flavor': flavor}
    vcpus = (compute.get('virtual_cpu') or {}).get('num_virtual_cpu')
    return {'vcpus': int(vcpus)} if vcpus else {}
