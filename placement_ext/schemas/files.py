"""Read a JSON or YAML document a caller names by path, with one error
that names the option (or configuration option) and the reason.

Used by the CLI for its FILE options and by the services for files named
in the configuration (``[homing] cost_file``, ``regions_file``).
"""

import json
import sys
from collections.abc import Callable

import yaml

from placement_ext import exception
from placement_ext.schemas import validate as schema_validate


def load_json(path: str, option: str) -> object:
    """The JSON document in ``path`` (``-``: standard input).

    :raises InvalidInput: field ``option``, when unreadable or not JSON.
    """
    return _load(path, option, json.loads, 'JSON')


def load_yaml(path: str, option: str) -> object:
    """The YAML or JSON document in ``path`` (``-``: standard input).

    :raises InvalidInput: field ``option``, when unreadable or neither.
    """
    return _load(path, option, yaml.safe_load, 'YAML or JSON')


def load_yaml_documents(path: str, option: str) -> list[object]:
    """Every YAML document of ``path`` (a Kubernetes manifest stream).

    :raises InvalidInput: field ``option``, when unreadable or not YAML.
    """
    return _load(path, option, lambda text: list(yaml.safe_load_all(text)),
                 'YAML')


def _load(path: str, option: str, decode: Callable[[str], object],
          kind: str) -> object:
    try:
        if path == '-':
            return decode(sys.stdin.read())
        with open(path, encoding='utf-8') as stream:
            return decode(stream.read())
    except OSError as exc:
        raise exception.InvalidInput(
            field=option, reason=f'cannot read {path!r}: {exc.strerror}')
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
