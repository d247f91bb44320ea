"""Documents in and out of the offline (dry-run) commands.

* :func:`load_json`: read a ``--request``/``--input`` FILE (``-`` for
  stdin); a missing file or bad JSON is InvalidInput naming the option.
  :func:`load_yaml` likewise for YAML or JSON (a VNFD).
* :func:`as_columns`: a document as cliff ``ShowOne`` columns whose values
  stay native, so ``-f json`` (and ``-f yaml``) print exactly the
  document, while ``-f table`` shows nested values as compact JSON.
"""

import json
import sys
from collections.abc import Callable

import yaml
from cliff import columns

from placement_ext import exception
from placement_ext.schemas import validate as schema_validate


class JsonValue(columns.FormattableColumn):
    """A nested JSON value: native for json/yaml, JSON text for tables."""

    def human_readable(self) -> str:
        return json.dumps(self._value, sort_keys=False)

    def machine_readable(self) -> object:
        return self._value


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


def as_columns(document: dict) -> tuple[tuple, tuple]:
    """(names, values) of a ShowOne whose output is ``document``."""
    names = tuple(document)
    values = tuple(JsonValue(value) if isinstance(value, (dict, list))
                   else value for value in document.values())
    return names, values
