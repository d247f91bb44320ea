"""[kubernetes]: the Kubernetes API our worker-node labelling talks to."""

from oslo_config import cfg

GROUP = cfg.OptGroup(
    'kubernetes',
    title='Kubernetes API options',
    help='How to reach the Kubernetes API of a cluster whose worker nodes '
         'are labelled with the compute host they run on.')

_opts = [
    cfg.StrOpt('kubeconfig',
               help='Path of a kubeconfig file. When unset, the in-cluster '
                    'service account is used.'),
    cfg.StrOpt('context',
               help='kubeconfig context to use; the current one when unset.'),
    cfg.StrOpt('host_label',
               default='topology.kubernetes.io/zone',
               help='Node label that carries the compute host a worker '
                    'node runs on, used as the topologyKey of pod '
                    'anti-affinity.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(_opts, group=GROUP)


def list_opts() -> dict:
    return {GROUP: _opts}
