"""Documents in and out of the offline (dry-run) commands.

* :func:`load_json`, :func:`load_yaml`, :func:`load_yaml_documents`: read
  a FILE option (``-`` for stdin), from
  :mod:`placement_ext.schemas.files` (shared with the services).
* :func:`add_vnfd_limits`, :func:`load_vnfd`: a VNFD file, within the
  ``--max-size`` and ``--max-vdus`` caps.
* :func:`as_columns`: a document as cliff ``ShowOne`` columns whose values
  stay native, so ``-f json`` (and ``-f yaml``) print exactly the
  document, while ``-f table`` shows nested values as compact JSON.
"""

import argparse
import json

from cliff import columns

from placement_ext import exception
from placement_ext.schemas import files
from placement_ext.sol import vnfd as vnfd_mod

load_json = files.load_json
load_yaml = files.load_yaml
load_yaml_documents = files.load_yaml_documents

# A VNFD describes one deployment flavour: tens of VDUs, tens of KB.
# Reading, checking and translating grow with its size (10,000 VDUs,
# 2 MB: about a minute), so larger ones are refused unless raised.
MAX_VNFD_BYTES = 2**20
MAX_VDUS = 1000


def add_vnfd_limits(parser: argparse.ArgumentParser) -> None:
    """``--max-size`` and ``--max-vdus`` for a command reading a VNFD."""
    parser.add_argument(
        '--max-size', type=_positive_int, default=MAX_VNFD_BYTES,
        metavar='BYTES',
        help=f'Refuse a VNFD (or Heat template) file larger than this '
             f'(default {MAX_VNFD_BYTES}).')
    parser.add_argument(
        '--max-vdus', type=_positive_int, default=MAX_VDUS, metavar='N',
        help=f'Refuse a VNFD with more VDUs than this (default '
             f'{MAX_VDUS}).')


def load_vnfd(path: str, option: str,
              args: argparse.Namespace) -> vnfd_mod.Vnfd:
    """The flavour of the VNFD file ``path``, within the caps of
    :func:`add_vnfd_limits`.

    :raises InvalidInput: naming ``option``.
    """
    document = files.load_yaml(path, option, max_bytes=args.max_size)
    flavour = vnfd_mod.parse(document)
    if len(flavour.vdus) > args.max_vdus:
        raise exception.InvalidInput(
            field=option,
            reason=f'{path!r} has {len(flavour.vdus)} VDUs, more than the '
                   f'{args.max_vdus} accepted (--max-vdus)')
    return flavour


def _positive_int(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) == 0:
        raise argparse.ArgumentTypeError(
            f'{text!r} is not a whole number above 0')
    return int(text)


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
