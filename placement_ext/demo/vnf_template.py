"""A VNF stack in Tacker's StandardUserData style, for the demo and tests.

One nested resource per VNFC (``VDU1-0``: ``VDU.yaml``) whose zone comes
from the ``nfv`` parameter (``nfv.VDU.<VNFC>.locationConstraints``), so
Heat names a failure ``resources.VDU1-0.resources.VDU`` exactly as it
does for Tacker's stacks.
"""

FLAVOR = 'vdu.small'
VDU_SMALL = {'vcpus': 1, 'memory_mb': 2048, 'disk_gb': 1}


def nested_vdu(flavor: str = FLAVOR) -> str:
    """The nested ``VDU.yaml``: one server of ``flavor`` in ``zone``."""
    return f'''
heat_template_version: 2021-04-16
parameters:
  zone: {{type: string}}
resources:
  VDU:
    type: OS::Nova::Server
    properties:
      flavor: {flavor}
      image: cirros
      availability_zone: {{get_param: zone}}
      networks: [{{allocate_network: none}}]
'''


def files(flavor: str = FLAVOR) -> dict[str, str]:
    """The stack's ``files``: the nested template, its servers ``flavor``."""
    return {'VDU.yaml': nested_vdu(flavor)}


NESTED_VDU = nested_vdu()
FILES = files()


def template(vnfcs: list[str], extra_resources: dict | None = None) -> dict:
    """The top template with one ``VDU.yaml`` resource per VNFC."""
    resources = {
        vnfc: {'type': 'VDU.yaml',
               'properties': {'zone': {'get_param': [
                   'nfv', 'VDU', vnfc, 'locationConstraints']}}}
        for vnfc in vnfcs}
    resources.update(extra_resources or {})
    return {'heat_template_version': '2021-04-16',
            'parameters': {'nfv': {'type': 'json'}},
            'resources': resources}
