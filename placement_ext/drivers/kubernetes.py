"""Kubernetes: worker Nodes and their labels, through the official client.

:class:`KubernetesDriver` wraps ``kubernetes.client.CoreV1Api``:

* :meth:`~KubernetesDriver.nodes` lists Nodes (optionally with a label
  selector) as :class:`placement_ext.decision.node_labels.Node`;
* :meth:`~KubernetesDriver.apply` applies one
  :class:`~placement_ext.decision.node_labels.NodeChange` with a JSON
  merge patch (``application/merge-patch+json``) of ``metadata.labels``
  that carries the ``metadata.resourceVersion`` it was computed from, so
  the server refuses it (409) if the Node changed meanwhile; then the
  Node is read again and the patch recomputed, at most ``attempts``
  times. Only the keys of the change are in the patch.

Errors become ours: 409 after the last attempt ConcurrentUpdate, 404
NotFound, 401/403 Forbidden, 5xx and transport failures
ServiceUnavailable, any other status ServiceError.
"""

import contextlib
from collections.abc import Iterator

import urllib3
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client import exceptions as k8s_exc
from oslo_config import cfg
from oslo_log import log as logging

from placement_ext import exception
from placement_ext.decision import node_labels

LOG = logging.getLogger(__name__)
SERVICE = 'Kubernetes API'
MERGE_PATCH = 'application/merge-patch+json'


def api_client(conf: cfg.ConfigOpts) -> k8s_client.ApiClient:
    """An ApiClient from ``[kubernetes] kubeconfig``/``context``, or the
    in-cluster service account when no kubeconfig is set."""
    return api_client_from(conf.kubernetes.kubeconfig,
                           conf.kubernetes.context)


def api_client_from(kubeconfig: str | None,
                    context: str | None = None) -> k8s_client.ApiClient:
    """An ApiClient from a kubeconfig file and context (None: its
    current one), or the in-cluster service account without a file."""
    try:
        if kubeconfig:
            return k8s_config.new_client_from_config(
                config_file=kubeconfig, context=context)
        configuration = k8s_client.Configuration()
        k8s_config.load_incluster_config(client_configuration=configuration)
        return k8s_client.ApiClient(configuration)
    except (k8s_config.ConfigException, OSError) as exc:
        raise exception.InvalidInput(field='[kubernetes] kubeconfig',
                                     reason=str(exc))


def api_client_for(endpoint: str, *, bearer_token: str | None = None,
                   username: str | None = None, password: str | None = None,
                   ca_file: str | None = None) -> k8s_client.ApiClient:
    """An ApiClient on ``endpoint`` with a bearer token, else a user name
    and password; without ``ca_file`` the certificate is not verified (as
    Tacker does for a Kubernetes VIM without ``ssl_ca_cert``)."""
    configuration = k8s_client.Configuration()
    configuration.host = endpoint
    if bearer_token:
        configuration.api_key = {'authorization': bearer_token}
        configuration.api_key_prefix = {'authorization': 'Bearer'}
    else:
        configuration.username = username
        configuration.password = password
    if ca_file:
        configuration.ssl_ca_cert = ca_file
    else:
        configuration.verify_ssl = False
    return k8s_client.ApiClient(configuration)


class KubernetesDriver:
    def __init__(self, api: k8s_client.ApiClient, *,
                 attempts: int = 5) -> None:
        self._core = k8s_client.CoreV1Api(api)
        self._attempts = attempts

    def nodes(self, label_selector: str | None = None
              ) -> list[node_labels.Node]:
        kwargs = {'label_selector': label_selector} if label_selector else {}
        with _errors('list nodes'):
            found = self._core.list_node(**kwargs)
        return [_node(item) for item in found.items]

    def reconcile(self, servers: list[node_labels.Server], host_label: str,
                  *, prune: bool = True, dry_run: bool = False
                  ) -> tuple[node_labels.Plan, list[str]]:
        """Plan the labels of every Node and apply the changes.

        :returns: the plan and the names of the Nodes actually patched.
        """
        plan = node_labels.plan(servers, self.nodes(), host_label,
                                prune=prune)
        for note in plan.notes:
            LOG.warning('%s', note)
        if dry_run:
            return plan, []
        return plan, [c.node for c in plan.changes if self.apply(c)]

    def apply(self, change: node_labels.NodeChange) -> bool:
        """Apply the change; False if there was nothing left to do.

        :raises ConcurrentUpdate: still conflicting after the attempts.
        """
        for _attempt in range(self._attempts):
            with _errors(f'read node {change.node}'):
                node = _node(self._core.read_node(change.node))
            patch = node_labels.label_patch(node.labels, change)
            if not patch:
                return False
            body = {'metadata': {'resourceVersion': node.resource_version,
                                 'labels': patch}}
            try:
                with _errors(f'patch node {change.node}'):
                    self._core.patch_node(change.node, body,
                                          _content_type=MERGE_PATCH)
                return True
            except exception.Conflict:
                LOG.info('Node %s changed meanwhile; reading it again',
                         change.node)
        raise exception.ConcurrentUpdate(kind='node', id=change.node)


@contextlib.contextmanager
def _errors(what: str) -> Iterator[None]:
    try:
        yield
    except k8s_exc.ApiException as exc:
        raise _ours(what, exc.status, exc.reason, exc.body)
    except urllib3.exceptions.HTTPError as exc:
        raise exception.ServiceUnavailable(service=SERVICE,
                                           reason=f'{what}: {exc}')


def _ours(what: str, status: int | None, reason: str | None,
          body: object) -> exception.PlacementExtError:
    text = f'{what}: {status} {reason}: {body}'
    if status == 409:
        return exception.Conflict(reason=f'{SERVICE}: {text}')
    if status == 404:
        return exception.NotFound(message=f'{SERVICE}: {text}',
                                  kind='node', id=what)
    if status in (401, 403):
        return exception.Forbidden(service=SERVICE, reason=text)
    if status is None or status == 0 or status >= 500:
        return exception.ServiceUnavailable(service=SERVICE, reason=text)
    return exception.ServiceError(service=SERVICE, reason=text)


def _node(item: k8s_client.V1Node) -> node_labels.Node:
    addresses = (item.status.addresses if item.status else None) or []
    return node_labels.Node(
        name=item.metadata.name,
        internal_ips=frozenset(a.address for a in addresses
                               if a.type == 'InternalIP'),
        provider_id=item.spec.provider_id if item.spec else None,
        labels=dict(item.metadata.labels or {}),
        resource_version=item.metadata.resource_version)
