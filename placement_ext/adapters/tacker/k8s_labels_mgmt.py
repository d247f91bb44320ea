"""Tacker v2 management driver: label a VNF's worker Nodes with their host.

Tacker's v2 conductor runs the script that the VNFD's
``tosca.interfaces.nfv.Vnflcm`` interface names for an operation
(``Definitions/<script>`` of the VNF package) with its own Python,
writes a pickled dict ``{operation, request, vnf_instance, grant_request,
grant_response, tmp_csar_dir, ...}`` to its standard input, and fails
the operation with the standard error when it exits non-zero. The
script in the package is three lines::

    import sys
    from placement_ext.adapters.tacker import k8s_labels_mgmt
    sys.exit(k8s_labels_mgmt.main())

For ``instantiate_end``, ``scale_end`` and ``heal_end``, :func:`run`
reconciles the labels of every Node of the cluster with the VNF's worker
servers (``vnf_instance.instantiatedVnfInfo.vnfcResourceInfo``, the
state after the operation): new and healed workers get their compute
host, stale values are overwritten, Nodes of deleted workers lose our
labels (:mod:`placement_ext.conductor.k8s_labels`). Other operations do
nothing.

Settings, the dict ``placement_ext_k8s`` of the VNF instance's
``metadata`` (kept across operations), overridden key by key by the one
in the request's ``additionalParams``:

* ``worker_vdus``: the VDU ids of the worker Nodes (default: every VDU);
* ``prune`` (default true): remove our labels from Nodes matching no
  worker; false when other VNFs' workers are Nodes of the same cluster;
* ``kubernetes_vim``: which Kubernetes entry of ``vimConnectionInfo``;
* ``kubeconfig``, ``context``: a kubeconfig file on the conductor host;
* ``node_wait`` (seconds, default 0): wait that long at most for a Node
  of every worker (kubelets register after their VM boots, Tacker runs
  ``instantiate_end`` as soon as Heat is done); workers still without
  one are reported and the rest are labelled.

Where the APIs and credentials come from, first found wins:

* Kubernetes: ``kubeconfig``; else a Kubernetes entry of the instance's
  ``vimConnectionInfo`` (``vimType`` ``kubernetes`` or
  ``ETSINFV.KUBERNETES.V_1``; ``interfaceInfo.endpoint``, optional
  ``ssl_ca_cert`` (PEM; without it the certificate is not verified, as
  Tacker does), ``accessInfo.bearer_token`` or ``username``/``password``);
  else ``[kubernetes]`` of our configuration.
* Nova: the OpenStack entry the workers' ``computeResource.
  vimConnectionId`` names (Keystone v3 ``interfaceInfo.endpoint``,
  ``accessInfo`` ``username``, ``password``, ``project``,
  ``projectDomain``, ``userDomain``, ``region``), the VIM Tacker created
  them with; else ``[nova]`` of our configuration.
* Our configuration: the files of ``PLACEMENT_EXT_CONFIG_FILES``
  (``:``-separated), else ``/etc/tacker/tacker.conf`` (where
  ``etc/tacker.conf.sample`` puts our options) when it exists; also
  ``[kubernetes] host_label``.
"""

import contextlib
import logging as std_logging
import os
import pickle
import sys
import tempfile
from collections.abc import Iterator
from collections.abc import Mapping
from typing import BinaryIO
from typing import TextIO

from kubernetes import client as k8s_client
from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import configuration
from placement_ext import exception
from placement_ext.adapters.tacker import vim as tacker_vim
from placement_ext.conductor import k8s_labels
from placement_ext.drivers import kubernetes as k8s_driver
from placement_ext.drivers import nova as nova_driver
from placement_ext.schemas import validate as schema_validate

LOG = logging.getLogger(__name__)
OPERATIONS = ('instantiate_end', 'scale_end', 'heal_end')
SETTINGS_KEY = 'placement_ext_k8s'
CONFIG_ENV = 'PLACEMENT_EXT_CONFIG_FILES'
TACKER_CONF = '/etc/tacker/tacker.conf'
KUBERNETES_VIM_TYPES = ('kubernetes', 'ETSINFV.KUBERNETES.V_1')
OPENSTACK_VIM_TYPES = ('openstack', 'ETSINFV.OPENSTACK_KEYSTONE.V_3')
SERVER = 'OS::Nova::Server'

SETTINGS_V1 = {
    'type': 'object',
    'properties': {
        'worker_vdus': {'type': 'array', 'minItems': 1,
                        'items': {'type': 'string', 'minLength': 1}},
        'prune': {'type': 'boolean'},
        'kubernetes_vim': {'type': 'string', 'minLength': 1},
        'kubeconfig': {'type': 'string', 'minLength': 1},
        'context': {'type': 'string', 'minLength': 1},
        'node_wait': {'type': 'integer', 'minimum': 0, 'maximum': 3600},
    },
    'additionalProperties': False,
}


def main(stdin: BinaryIO | None = None, stderr: TextIO | None = None,
         environ: Mapping[str, str] | None = None) -> int:
    """Read Tacker's pickled request, label; the exit status.

    Standard output stays empty: Tacker would read it as a pickled
    result. Progress and errors go to standard error.
    """
    stderr = stderr or sys.stderr
    environ = os.environ if environ is None else environ
    with _logging_to(stderr):
        try:
            labelled = run(read_request(stdin or sys.stdin.buffer),
                           load_config(environ))
        except exception.PlacementExtError as exc:
            stderr.write(f'placement-ext: {exc.code}: {exc.detail}\n')
            return 1
    if labelled is not None:
        stderr.write(f'placement-ext: {k8s_labels.summary(labelled)}\n')
    return 0


def read_request(stream: BinaryIO) -> dict:
    """Tacker's pickled dict.

    :raises InvalidInput: not a pickled dict.
    """
    try:
        # Tacker's interface: its own conductor writes this pipe
        payload = pickle.load(stream)  # noqa: S301
    except (pickle.UnpicklingError, EOFError, ValueError) as exc:
        payload = exc
    if not isinstance(payload, dict):
        raise exception.InvalidInput(
            field='standard input',
            reason=f'not a Tacker request (a pickled dict): {payload!r}')
    return payload


def load_config(environ: Mapping[str, str]) -> cfg.ConfigOpts:
    files = [f for f in environ.get(CONFIG_ENV, '').split(':') if f]
    if not files and os.path.exists(TACKER_CONF):
        files = [TACKER_CONF]
    return configuration.load_config([], prog='placement-ext-tacker-mgmt',
                                     default_config_files=files)


def run(payload: Mapping, conf: cfg.ConfigOpts | None = None
        ) -> dict | None:
    """Label for one of :data:`OPERATIONS`; None for another operation.

    For a package whose own script must run for these operations too:
    call this at its end with the same dict (``conf``: as :func:`main`
    finds it).
    """
    conf = conf or load_config(os.environ)
    operation = payload.get('operation')
    if operation not in OPERATIONS:
        LOG.info('Nothing to label for %s', operation)
        return None
    inst = payload.get('vnf_instance') or {}
    settings = merged_settings(inst, payload.get('request') or {})
    vnfcs = worker_vnfcs(inst, settings.get('worker_vdus'))
    with contextlib.ExitStack() as files:
        kube = k8s_driver.KubernetesDriver(
            kubernetes_api(conf, inst, settings, files))
        nova = nova_for(conf, inst, vnfcs)
        servers = nova.worker_servers(
            ids=[v['computeResource']['resourceId'] for v in vnfcs])
        if settings.get('node_wait'):
            missing = k8s_labels.wait_for_nodes(kube, servers,
                                                settings['node_wait'])
            if missing:
                LOG.warning('No Node after %ss for server(s) %s',
                            settings['node_wait'], ', '.join(missing))
        LOG.info('%s of VNF %s: labelling for %d worker(s)', operation,
                 inst.get('id'), len(servers))
        return k8s_labels.label(kube, servers, conf.kubernetes.host_label,
                                prune=settings.get('prune', True))


def merged_settings(inst: Mapping, request: Mapping) -> dict:
    """The instance's settings, then the request's, key by key."""
    merged = {}
    for where, holder in (('vnf_instance.metadata', inst.get('metadata')),
                          ('request.additionalParams',
                           request.get('additionalParams'))):
        settings = (holder or {}).get(SETTINGS_KEY)
        if settings is None:
            continue
        try:
            schema_validate.validate(SETTINGS_V1, settings, '')
        except exception.InvalidInput as exc:
            field = '.'.join(filter(None, (where, SETTINGS_KEY,
                                           exc.field)))
            raise exception.InvalidInput(field=field,
                                         reason=exc.reason)
        merged.update(settings)
    return merged


def worker_vnfcs(inst: Mapping, vdus: list[str] | None) -> list[dict]:
    """The VNFCs that are Nova servers (of ``vdus``, when given).

    :raises InvalidInput: none; pruning against an empty set would strip
        every Node.
    """
    info = inst.get('instantiatedVnfInfo') or {}
    vnfcs = [v for v in info.get('vnfcResourceInfo') or []
             if (v.get('computeResource') or {}).get(
                 'vimLevelResourceType', SERVER) == SERVER
             and (vdus is None or v.get('vduId') in vdus)]
    if not vnfcs:
        which = f" of VDU {', '.join(vdus)}" if vdus else ''
        raise exception.InvalidInput(
            field='vnf_instance.instantiatedVnfInfo.vnfcResourceInfo',
            reason=f'no Nova server{which}')
    return vnfcs


def kubernetes_api(conf: cfg.ConfigOpts, inst: Mapping, settings: Mapping,
                   files: contextlib.ExitStack) -> k8s_client.ApiClient:
    """The cluster's API: a kubeconfig, a Kubernetes VIM, [kubernetes]."""
    if settings.get('kubeconfig'):
        # the request's file, not [kubernetes]: conf is the process's
        # and is left as it was read
        return k8s_driver.api_client_from(settings['kubeconfig'],
                                          settings.get('context'))
    vim = _vim(inst, KUBERNETES_VIM_TYPES, settings.get('kubernetes_vim'))
    if vim is None:
        return k8s_driver.api_client(conf)
    interface, access = vim.get('interfaceInfo') or {}, \
        vim.get('accessInfo') or {}
    ca_file = None
    if interface.get('ssl_ca_cert'):
        ca_file = files.enter_context(_pem_file(interface['ssl_ca_cert']))
    return k8s_driver.api_client_for(
        tacker_vim.required(interface, 'endpoint', 'interfaceInfo'),
        bearer_token=access.get('bearer_token'),
        username=access.get('username'), password=access.get('password'),
        ca_file=ca_file)


def nova_for(conf: cfg.ConfigOpts, inst: Mapping,
             vnfcs: list[dict]) -> nova_driver.NovaDriver:
    """Nova of the VIM the workers were created with, else [nova]."""
    named = {(v.get('computeResource') or {}).get('vimConnectionId')
             for v in vnfcs} - {None}
    vim = _vim(inst, OPENSTACK_VIM_TYPES,
               next(iter(named)) if len(named) == 1 else None)
    if vim is None:
        return k8s_labels.cloud_drivers(conf)[0]
    access = vim.get('accessInfo') or {}
    kwargs = {'region_name': access['region']} if access.get('region') \
        else {}
    return nova_driver.NovaDriver(
        tacker_vim.vim_session(
            vim.get('interfaceInfo') or {}, access,
            verify=tacker_vim.Tls.from_conf(conf).verify(tacker_vim.NOVA)),
        adapter_kwargs=kwargs)


def _vim(inst: Mapping, types: tuple[str, ...],
         name: str | None) -> dict | None:
    """The vimConnectionInfo entry of ``types`` that ``name`` names (its
    key or its vimId), else the only one of ``types``; None when there
    is none.

    :raises InvalidInput: several of ``types`` and none named.
    """
    vims = {k: v for k, v in (inst.get('vimConnectionInfo') or {}).items()
            if v.get('vimType') in types}
    for key, vim in sorted(vims.items()):
        if name is not None and name in (key, vim.get('vimId')):
            return vim
    found = sorted(vims)
    if len(found) > 1:
        raise exception.InvalidInput(
            field='vnf_instance.vimConnectionInfo',
            reason=f"several {' or '.join(types)} VIMs ({', '.join(found)});"
                   f' name one in {SETTINGS_KEY}.kubernetes_vim')
    return vims[found[0]] if found else None


@contextlib.contextmanager
def _pem_file(pem: str) -> Iterator[str]:
    """The kubernetes client wants a CA file, Tacker's VIM has the PEM."""
    with tempfile.NamedTemporaryFile('w', suffix='.pem') as stream:
        stream.write(pem)
        stream.flush()
        yield stream.name


@contextlib.contextmanager
def _logging_to(stream: TextIO) -> Iterator[None]:
    """Our log on ``stream`` (standard output is Tacker's channel)."""
    handler = std_logging.StreamHandler(stream)
    handler.setFormatter(std_logging.Formatter('%(levelname)s %(message)s'))
    logger = std_logging.getLogger('placement_ext')
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(std_logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
