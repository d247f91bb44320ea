"""Classify a failed Heat stack create/update and name the failed VDU.

Pure: the caller passes Heat's failure text (``stack_status_reason``, or
the latest failed event's ``resource_status_reason`` when Heat rolled the
stack back) and the compiled ``[v2_vnfm] placement_az_resource_error``
pattern; nothing is read from configuration or from Heat here.

``classify(reason, capacity_error, known_vdus)`` returns a
:class:`HeatFailure`:

* ``is_capacity``: the pattern matches at the start of the text
  (``re.match``, as Tacker applies the option), i.e. the zone lacked
  resources and another zone may succeed. Anything else must fail the
  operation at once with Heat's text.
* ``vdu_id``: the top-level VDU that failed, as named in the placement
  map (``VDU1-1``), or None when the text names none.
* ``resource_path``: every resource named on the way down, outermost
  first, e.g. ``('VDU1-0', 'VDU1')``.
* ``reselectable``: both of the above, the condition for a reselection.

Forms understood (all seen from real Heat/Nova or Tacker's docs)::

  Resource CREATE failed: ResourceInError: resources.VDU1: Went to ...
  Resource CREATE failed: ResourceInError: resources.VDU1-1.resources.VDU:
      Went to ...                                        (nested template)
  Resource UPDATE failed: resources.VDU1-0: Resource CREATE failed:
      ResourceInError: resources.VDU1: Went to ...       (stack update)
  ... due to "Message: Exceeded maximum number of retries. Exhausted all
      hosts available for retrying build failures for instance
      0fea3414-93c0-46f5-b042-857be0d1e5a1., Code: 500"

NOTE: upstream Tacker takes the VDU from ``resources\\.((.*)-([0-9]+))``,
whose greedy ``.*`` runs to the LAST ``-<digits>`` of the text, inside the
instance UUID of the "Exhausted all hosts" message, and so silently skips
the reselection. Here the resource names are read only from the resource
path, which ends before Nova's quoted message, and each name stops at the
next ``.``, ``:`` or blank.
"""

import dataclasses
import re
from collections.abc import Collection

# "resources.A" or "resources.A.resources.B..." : one chain of the path.
_RESOURCE_CHAIN = re.compile(
    r'resources\.([^.:\s"]+(?:\.resources\.[^.:\s"]+)*)')
_QUOTE = re.compile('["\u201c]')


@dataclasses.dataclass(frozen=True)
class HeatFailure:
    """What a failed stack operation's reason text says."""

    raw: str
    is_capacity: bool
    vdu_id: str | None
    resource_path: tuple[str, ...] = ()

    @property
    def reselectable(self) -> bool:
        """Another zone may succeed, and we know which VDU to move."""
        return self.is_capacity and self.vdu_id is not None


def classify(reason: str | None, capacity_error: re.Pattern,
             known_vdus: Collection[str] | None = None) -> HeatFailure:
    """Classify Heat's failure text.

    :param reason: ``stack_status_reason`` or the failed event's reason;
        None (no reason could be read) is not a capacity error.
    :param capacity_error: compiled ``placement_az_resource_error``.
    :param known_vdus: the VNFC names of the placement map; when given,
        ``vdu_id`` is the outermost resource of the path that is one of
        them (so a wrapper resource above the VDU is skipped), else None.
        When not given, the outermost resource of the path.
    """
    text = reason or ''
    path = resource_path(text)
    return HeatFailure(
        raw=text,
        is_capacity=is_capacity(text, capacity_error),
        vdu_id=_vdu_id(path, known_vdus),
        resource_path=path)


def is_capacity(text: str | None, capacity_error: re.Pattern) -> bool:
    """Whether ``placement_az_resource_error`` classifies the text as a
    capacity failure: matched from its start, as Tacker matches it."""
    return bool(text) and capacity_error.match(text) is not None


def resource_path(text: str) -> tuple[str, ...]:
    """Resource names of the failure, outermost first.

    Only the part before the first double quote (straight or curly, as
    copied from documents) is read: what follows is the service's own
    message, which may contain anything.
    """
    head = _QUOTE.split(text, maxsplit=1)[0]
    names: list[str] = []
    for chain in _RESOURCE_CHAIN.findall(head):
        names.extend(chain.split('.resources.'))
    return tuple(names)


def _vdu_id(path: tuple[str, ...],
            known_vdus: Collection[str] | None) -> str | None:
    if known_vdus is None:
        return path[0] if path else None
    return next((name for name in path if name in known_vdus), None)
