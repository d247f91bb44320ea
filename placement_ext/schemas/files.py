"""Read a JSON or YAML document a caller names by path, with one error
that names the option (or configuration option) and the reason.

Used by the CLI for its FILE options and by the services for files named
in the configuration (``[homing] cost_file``, ``regions_file``).

YAML is read with :class:`BoundedLoader`, PyYAML's safe loader with its
aliases bounded: an alias may not refer to the node it sits in (PyYAML
would build a cyclic value, on which every later step recurses without
end), and all aliases of a document together may repeat at most
:data:`MAX_ALIAS_NODES` nodes, so a few KB of nested aliases (a "billion
laughs" document) cannot expand into billions of nodes.
"""

import json
import sys
from collections.abc import Callable

import yaml

from placement_ext import exception
from placement_ext.schemas import validate as schema_validate

# Largest file read by default: far above any request, template or
# manifest, and it keeps a wrong path (a disk image, a log) out of memory.
MAX_FILE_BYTES = 64 * 2**20

# Nodes (scalars, lists, mappings) all aliases of one YAML document may
# repeat in all: merge keys and shared defaults stay far below it.
MAX_ALIAS_NODES = 10000


class AliasError(yaml.YAMLError):
    """An alias refers to its own node, or aliases repeat too much."""


class BoundedLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with bounded aliases (see the module doc)."""

    def __init__(self, stream: object) -> None:
        super().__init__(stream)
        self._composing: set[str] = set()
        self._repeated = 0
        self._sizes: dict[int, int] = {}

    def compose_document(self) -> object:
        self._repeated = 0
        return super().compose_document()

    def compose_node(self, parent: object, index: object) -> object:
        event = self.peek_event()
        anchor = getattr(event, 'anchor', None)
        if isinstance(event, yaml.AliasEvent):
            self._count_alias(anchor, event)
            return super().compose_node(parent, index)
        if anchor is None:
            return super().compose_node(parent, index)
        self._composing.add(anchor)
        try:
            return super().compose_node(parent, index)
        finally:
            self._composing.discard(anchor)

    def _count_alias(self, anchor: str, event: yaml.Event) -> None:
        if anchor in self._composing:
            raise AliasError(f'alias *{anchor} refers to the node it is in '
                             f'(line {event.start_mark.line + 1}); cyclic '
                             f'documents are not accepted')
        node = self.anchors.get(anchor)
        if node is None:
            return  # PyYAML reports the unknown anchor
        self._repeated += self._size(node)
        if self._repeated > MAX_ALIAS_NODES:
            raise AliasError(f'its aliases repeat more than '
                             f'{MAX_ALIAS_NODES} nodes (at *{anchor}, line '
                             f'{event.start_mark.line + 1})')

    def _size(self, node: yaml.Node) -> int:
        """Nodes in ``node``, aliases expanded; iterative, memoised."""
        sizes, stack = self._sizes, [(node, False)]
        while stack:
            current, children_done = stack.pop()
            if id(current) in sizes:
                continue
            children = _children(current)
            if children_done:
                sizes[id(current)] = 1 + sum(sizes[id(c)] for c in children)
            else:
                stack.append((current, True))
                stack.extend((c, False) for c in children
                             if id(c) not in sizes)
        return sizes[id(node)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    return []


def parse_yaml(text: str | bytes) -> object:
    """``yaml.safe_load`` with bounded aliases.

    :raises yaml.YAMLError: not YAML, or :class:`AliasError`.
    """
    return yaml.load(text, Loader=BoundedLoader)  # noqa: S506 (safe)


def parse_yaml_documents(text: str | bytes) -> list[object]:
    """``yaml.safe_load_all`` with bounded aliases, as a list."""
    return list(yaml.load_all(text, Loader=BoundedLoader))  # noqa: S506


def load_json(path: str, option: str,
              max_bytes: int = MAX_FILE_BYTES) -> object:
    """The JSON document in ``path`` (``-``: standard input).

    :raises InvalidInput: field ``option``, when unreadable, larger than
        ``max_bytes`` or not JSON.
    """
    return _load(path, option, json.loads, 'JSON', max_bytes)


def load_yaml(path: str, option: str,
              max_bytes: int = MAX_FILE_BYTES) -> object:
    """The YAML or JSON document in ``path`` (``-``: standard input).

    :raises InvalidInput: field ``option``, when unreadable, larger than
        ``max_bytes`` or neither.
    """
    return _load(path, option, parse_yaml, 'YAML or JSON', max_bytes)


def load_yaml_documents(path: str, option: str,
                        max_bytes: int = MAX_FILE_BYTES) -> list[object]:
    """Every YAML document of ``path`` (a Kubernetes manifest stream).

    :raises InvalidInput: field ``option``, when unreadable, larger than
        ``max_bytes`` or not YAML.
    """
    return _load(path, option, parse_yaml_documents, 'YAML', max_bytes)


def _read(path: str, option: str, max_bytes: int) -> str:
    """The text of ``path``, read no further than the limit."""
    if path == '-':
        stream = getattr(sys.stdin, 'buffer', sys.stdin)
        data = stream.read(max_bytes + 1)
    else:
        with open(path, 'rb') as binary:
            data = binary.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise exception.InvalidInput(
            field=option, reason=f'{path!r} is larger than the {max_bytes} '
                                 f'bytes accepted')
    return data.decode('utf-8') if isinstance(data, bytes) else data


def _load(path: str, option: str, decode: Callable[[str], object],
          kind: str, max_bytes: int) -> object:
    try:
        return decode(_read(path, option, max_bytes))
    except OSError as exc:
        raise exception.InvalidInput(
            field=option, reason=f'cannot read {path!r}: {exc.strerror}')
    except AliasError as exc:
        raise exception.InvalidInput(field=option,
                                     reason=f'{path!r} is refused: {exc}')
    except RecursionError:
        raise exception.InvalidInput(
            field=option, reason=f'{path!r} is nested too deeply to read '
                                 f'(at most {schema_validate.MAX_DEPTH} '
                                 f'levels are accepted)')
    except (ValueError, yaml.YAMLError) as exc:
        # one line: YAML's messages span several
        detail = ' '.join(str(exc).split())
        raise exception.InvalidInput(
            field=option, reason=f'{path!r} is not {kind}: {detail}')
