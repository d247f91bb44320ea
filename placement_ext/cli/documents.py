"""Documents in and out of the offline (dry-run) commands.

* :func:`load_json`, :func:`load_yaml`, :func:`load_yaml_documents`: read
  a FILE option (``-`` for stdin), from
  :mod:`placement_ext.schemas.files` (shared with the services).
* :func:`as_columns`: a document as cliff ``ShowOne`` columns whose values
  stay native, so ``-f json`` (and ``-f yaml``) print exactly the
  document, while ``-f table`` shows nested values as compact JSON.
"""

import json

from cliff import columns

from placement_ext.schemas import files

load_json = files.load_json
load_yaml = files.load_yaml
load_yaml_documents = files.load_yaml_documents


class JsonValue(columns.FormattableColumn):
    """A nested JSON value: native for json/yaml, JSON text for tables."""

    def human_readable(self) -> str:
        return json.dumps(self._value, sort_keys=False)

    def machine_readable(self) -> object:
        return self._value


def as_columns(document: dict) -> tuple[tuple, tuple]:
    """(names, values) of a ShowOne whose output is ``document``."""
    names = tuple(document)
    values = tuple(JsonValue(value) if isinstance(value, (dict, list))
                   else value for value in document.values())
    return names, values
