"""Which podAntiAffinity terms of a CNF cannot keep pods on distinct
compute hosts (pure).

A term spreads pods over the domains of its ``topologyKey``. It keeps
them on different compute hosts only when that key is one our worker
labelling sets (:mod:`placement_ext.decision.node_labels`): any other key
(``kubernetes.io/hostname`` is per VM; two VMs may share a host) gives no
hardware anti-affinity, and a key no Node carries gives none at all. A
Node without the key is in no domain, so required anti-affinity does not
keep pods off it: when the Nodes are known, unlabelled ones are reported
too.

:func:`check` reads the objects of the manifests (Pod, and the pod
template of Deployment, StatefulSet, DaemonSet, ReplicaSet, Job,
ReplicationController, CronJob); other kinds are ignored.
"""

import dataclasses
from collections.abc import Iterable
from collections.abc import Mapping

from placement_ext import exception

REQUIRED = 'requiredDuringSchedulingIgnoredDuringExecution'
PREFERRED = 'preferredDuringSchedulingIgnoredDuringExecution'
_TEMPLATED = ('Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job',
              'ReplicationController')


@dataclasses.dataclass(frozen=True)
class Finding:
    """A term that cannot be effective, and why."""

    object: str          # kind/name
    term: str            # e.g. "required[0]" or "preferred[1]"
    topology_key: str | None
    reason: str

    def __str__(self) -> str:
        return (f'{self.object}: podAntiAffinity {self.term} topologyKey '
                f'{self.topology_key!r}: {self.reason}')


@dataclasses.dataclass(frozen=True)
class Report:
    terms: int
    findings: tuple[Finding, ...]


def check(documents: Iterable[object], our_keys: Iterable[str], *,
          node_labels: Mapping[str, Mapping[str, str]] | None = None
          ) -> Report:
    """Every podAntiAffinity term of the manifests that our labels cannot
    make effective.

    :param documents: the parsed YAML documents (None ones are skipped;
        a ``List`` kind is expanded).
    :param our_keys: the label keys the worker labelling sets.
    :param node_labels: {node name: labels} of the cluster, when known.
    :raises InvalidInput: a document is not a Kubernetes object.
    """
    keys = frozenset(our_keys)
    terms, findings = 0, []
    for index, document in enumerate(_objects(documents)):
        name = _object_name(document, index)
        for label, term in _anti_affinity_terms(document, name):
            terms += 1
            reason = _problem(term.get('topologyKey'), keys, node_labels)
            if reason:
                findings.append(Finding(name, label,
                                        term.get('topologyKey'), reason))
    return Report(terms, tuple(findings))


def _problem(key: object, ours: frozenset[str],
             nodes: Mapping[str, Mapping[str, str]] | None) -> str | None:
    if not key or not isinstance(key, str):
        return 'no topologyKey: the API server refuses the term'
    carriers = None if nodes is None else sorted(
        name for name, labels in nodes.items() if key in labels)
    if carriers == []:
        return ('no node carries this label, so the term spreads nothing' +
                (' (label the workers first)' if key in ours else ''))
    if key not in ours:
        return ('not a compute-host label we set (ours: '
                f'{", ".join(sorted(ours))}): pods may share a compute host')
    missing = sorted(set(nodes or ()) - set(carriers or ()))
    if missing:
        return (f'nodes {", ".join(missing)} lack the label: they are in '
                'no domain, so the term does not keep pods off them')
    return None


def _objects(documents: Iterable[object]) -> Iterable[Mapping]:
    for document in documents:
        if document is None:
            continue
        if not isinstance(document, Mapping) or 'kind' not in document:
            raise exception.InvalidInput(
                field='manifest',
                reason='every document must be a Kubernetes object '
                       '(a mapping with a kind)')
        if document['kind'] == 'List' or str(document['kind']).endswith(
                'List'):
            yield from _objects(document.get('items') or ())
        else:
            yield document


def _object_name(document: Mapping, index: int) -> str:
    metadata = document.get('metadata') or {}
    name = metadata.get('name') if isinstance(metadata, Mapping) else None
    return f'{document["kind"]}/{name or f"<document {index}>"}'


def _pod_spec(document: Mapping) -> object:
    kind = document['kind']
    if kind == 'Pod':
        return document.get('spec')
    spec = document.get('spec') or {}
    if kind == 'CronJob':
        spec = _path(spec, 'jobTemplate', 'spec')
    elif kind not in _TEMPLATED:
        return None
    return _path(spec, 'template', 'spec')


def _anti_affinity_terms(document: Mapping, name: str
                         ) -> Iterable[tuple[str, Mapping]]:
    anti = _path(_pod_spec(document), 'affinity', 'podAntiAffinity')
    if anti is None:
        return
    if not isinstance(anti, Mapping):
        raise _bad(name, 'podAntiAffinity is not a mapping')
    for index, term in enumerate(_list(anti, REQUIRED, name)):
        yield f'required[{index}]', _mapping(term, name)
    for index, weighted in enumerate(_list(anti, PREFERRED, name)):
        term = _mapping(weighted, name).get('podAffinityTerm')
        yield f'preferred[{index}]', _mapping(term, name)


def _path(value: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _list(anti: Mapping, key: str, name: str) -> list:
    value = anti.get(key) or []
    if not isinstance(value, list):
        raise _bad(name, f'{key} is not a list')
    return value


def _mapping(value: object, name: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise _bad(name, 'a podAntiAffinity term is not a mapping')
    return value


def _bad(name: str, reason: str) -> exception.InvalidInput:
    return exception.InvalidInput(field='manifest', reason=f'{name}: {reason}')
