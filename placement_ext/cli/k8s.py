"""``placement-ext k8s check|label-nodes``: hardware-aware pod
anti-affinity on a Kubernetes cluster whose workers are OpenStack VMs.

``k8s check FILE`` reads a CNF's Kubernetes manifests (YAML documents,
``-`` for standard input) and prints every ``podAntiAffinity`` term,
required or preferred, that cannot keep pods on distinct compute hosts
(:func:`placement_ext.decision.manifest_check.check`): its topologyKey is
not one of the labels ``k8s label-nodes`` sets (``[kubernetes]
host_label`` and ``placement-ext.openstack.org/compute-host``), or, with
``--cluster``, no Node carries it or some Nodes lack it. It exits 1 when
there is such a term, 2 for bad input. Without ``--cluster`` nothing is
contacted.

``k8s label-nodes`` labels the worker Nodes with the compute host of
their VM (:mod:`placement_ext.decision.node_labels`,
:class:`placement_ext.drivers.kubernetes.KubernetesDriver`). It reads:

* the Kubernetes API from ``[kubernetes] kubeconfig`` and ``context``
  (the in-cluster service account when no kubeconfig is set);
* the worker servers from Nova (``[nova]``): ``--servers ID...``, every
  server whose name starts with ``--name-prefix``, or every
  ``OS::Nova::Server`` of a Heat stack (``[heat]``), nested stacks
  included: ``--stack NAME_OR_ID``. The compute host is
  ``OS-EXT-SRV-ATTR:host`` (admin); for other accounts the per-project
  ``hostId``, with a warning.

``--vnf ID`` asks the conductor instead (RPC ``label_nodes``, API 1.3):
it labels the servers of Tacker v2's stack ``vnf-<ID>`` with its own
``[heat]``, ``[nova]`` and ``[kubernetes]`` settings, as the services
that manage the VNF know its cloud and cluster; the notes it made are
printed as warnings here.

With a whole set (``--name-prefix``, ``--stack``, ``--vnf``) our labels
are also removed from Nodes that match none of its servers
(``--no-prune`` keeps them); with ``--servers`` only when ``--prune`` is
given. ``--dry-run`` prints the plan and writes nothing.
"""

import argparse
import logging

from placement_ext.cli import common
from placement_ext.cli import documents
from placement_ext.conductor import k8s_labels
from placement_ext.decision import manifest_check
from placement_ext.decision import node_labels

LOG = logging.getLogger(__name__)


def _our_keys(conf: object) -> tuple[str, ...]:
    return (conf.kubernetes.host_label, node_labels.COMPUTE_HOST_KEY)


class Check(common.Command):
    """Report the podAntiAffinity terms of Kubernetes manifests that our
    compute-host labels cannot make effective."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'file', metavar='FILE',
            help='Kubernetes manifests, YAML documents ("-" reads '
                 'standard input).')
        parser.add_argument(
            '--cluster', action='store_true',
            help='Also read the Nodes\' labels from the cluster '
                 '([kubernetes]).')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        manifests = documents.load_yaml_documents(parsed_args.file, 'FILE')
        conf = self.app.clients.conf
        nodes = None
        if parsed_args.cluster:
            nodes = {n.name: n.labels
                     for n in k8s_labels.kubernetes(conf).nodes()}
        report = manifest_check.check(manifests, _our_keys(conf),
                                      node_labels=nodes)
        for finding in report.findings:
            self.app.stdout.write(f'{finding}\n')
        if report.findings:
            return 1
        self.app.stdout.write(f'{report.terms} podAntiAffinity term(s): '
                              'all can keep pods on distinct compute '
                              'hosts\n')
        return 0


class LabelNodes(common.CallsServices, common.Lister):
    """Label the worker Nodes with the compute host of their VM."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument('--servers', nargs='+', metavar='ID',
                            help='Nova server ids of the workers.')
        source.add_argument('--name-prefix', metavar='PREFIX',
                            help='Every Nova server whose name starts with '
                                 'PREFIX is a worker.')
        source.add_argument('--stack', metavar='NAME_OR_ID',
                            help='Every server of this Heat stack (nested '
                                 'stacks included) is a worker.')
        source.add_argument('--vnf', metavar='ID',
                            help='Tacker v2 VNF instance: the conductor '
                                 '(RPC) labels the servers of its stack '
                                 f'{k8s_labels.stack_of("<ID>")}.')
        parser.add_argument(
            '--prune', action=argparse.BooleanOptionalAction,
            help='Remove our labels from Nodes matching no worker (default: '
                 'yes, except with --servers).')
        parser.add_argument('--dry-run', action='store_true',
                            help='Print the plan; change nothing.')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        args = parsed_args
        prune = args.prune if args.prune is not None else not args.servers
        if args.vnf:
            # the VNF's services know its cloud and cluster: ask them
            clients = self.app.clients
            labelled = clients.conductor.label_nodes(
                clients.context, vnf_instance_id=args.vnf, prune=prune,
                dry_run=args.dry_run)
            for note in labelled['notes']:
                LOG.warning('%s', note)
        else:
            conf = self.app.clients.conf
            labelled = k8s_labels.label(
                k8s_labels.kubernetes(conf), self._servers(conf, args),
                conf.kubernetes.host_label, prune=prune,
                dry_run=args.dry_run)
        return _rows(labelled)

    @staticmethod
    def _servers(conf: object, args: argparse.Namespace
                 ) -> list[node_labels.Server]:
        nova, heat = k8s_labels.cloud_drivers(conf, stack=bool(args.stack))
        return k8s_labels.workers(nova, heat, ids=args.servers or (),
                                  name_prefix=args.name_prefix,
                                  stack=args.stack)


def _rows(labelled: dict) -> tuple:
    rows = [(c['node'], c['server'] or '', _labels(c['set']),
             ', '.join(sorted(c['remove'])), c['result'])
            for c in labelled['changes']]
    rows += [(node, '', '', '', 'unchanged')
             for node in labelled['unchanged']]
    rows += [('', server, '', '', 'no node')
             for server in labelled['unmatched_servers']]
    return ('Node', 'Server', 'Set', 'Remove', 'Result'), rows


def _labels(labels: dict) -> str:
    return ', '.join(f'{k}={v}' for k, v in sorted(labels.items()))
