"""ONAP Multi-Cloud's two APIs the homing specification asks of it,
wired to configuration and the regions' services: the capacity check
HAS's multicloud plugin calls (``check_vim_capacity``) and the Workload
Deployment Policy (Intent) API SO calls before deploying in the region
chosen (intent, cloud owner and region, Heat template and environment
in; the realised template and environment, or a failure with its
reason, out). The VIMs are the regions of ``[homing] regions_file``.
"""

import dataclasses
import math

from oslo_config import cfg

from placement_ext import exception
from placement_ext.conductor import homing
from placement_ext.conductor import homing_inputs
from placement_ext.decision import homing as decision
from placement_ext.schemas import homing as schema
from placement_ext.schemas import validate


def check_vim_capacity(conf: cfg.ConfigOpts,
                       clients: homing_inputs.RegionClients, vcpus: int,
                       memory_gb: float, storage_gb: float,
                       vims: list[str]) -> list[str]:
    """Multi-Cloud's ``check_vim_capacity``: the VIMs of ``vims``
    (``<cloud-owner>_<region-id>``, regions of ``[homing] regions_file``)
    that have room for one instance of the size, in the order given,
    each once. A region's room is read in the whole region (not one
    availability zone), in its project's quota; a VIM not in the regions
    file, or whose capacity cannot be read, is left out."""
    known = {}
    for entry in homing.regions(conf):
        region = dataclasses.replace(decision.Region.from_dict(entry),
                                     availability_zone=None)
        known.setdefault(region.vim_id, region)
    size = {'vcpus': vcpus, 'ram': math.ceil(memory_gb * 1024),
            'disk': math.ceil(storage_gb)}
    reader = homing_inputs.RegionReader(
        clients, instance=dict(size, name='{vcpus} vCPU, {ram} MB, '
                                          '{disk} GB'.format(**size)),
        public_types=frozenset(conf.homing.public_cloud_types),
        public_verdict=conf.homing.public_cloud_capacity)
    fitting = [vim for vim in dict.fromkeys(vims)
               if vim in known and reader.capacity(known[vim]).fits(1)]
    reader.log_unknown()
    return fitting


def realize_in_region(conf: cfg.ConfigOpts,
                      clients: homing_inputs.RegionClients,
                      cloud_owner: str, region_id: str, policy: dict,
                      template: dict, environment: dict | None = None
                      ) -> dict:
    """The Workload Deployment Policy (Intent) API: ``{"result":
    "success", "template", "environment"?, "changes", "flavor"}``, or
    ``{"result": "failure", "reason"}`` when the region's cloud type or
    the template cannot realise the intent. The region's flavors are
    read from its Nova when resource isolation asks one.

    :raises InvalidInput: a bad policy, template or environment, naming
        the field.
    :raises NotFound: the region is not in ``[homing] regions_file``.
    """
    validate.validate(schema.CLOUD_SELECTION_POLICY, policy, 'policy')
    region = next((decision.Region.from_dict(entry)
                   for entry in homing.regions(conf)
                   if (entry['cloud_owner'], entry['region_id']) ==
                   (cloud_owner, region_id)), None)
    if region is None:
        raise exception.NotFound(kind='cloud region',
                                 id=f'{cloud_owner}/{region_id}')
    missing = homing.capabilities(conf).missing(
        homing.intent_of(conf, policy), region.cloud_type)
    if missing:
        return {'result': 'failure',
                'reason': f'cloud type {region.cloud_type} of '
                          f'{region.vim_id} cannot realise '
                          f'{", ".join(missing)}'}
    try:
        realised = homing.realize(conf, policy, template, clients,
                                  region_name=region_id,
                                  environment=environment)
    except exception.IntentUnrealisable as exc:
        return {'result': 'failure', 'reason': exc.detail}
    return dict(realised, result='success')
