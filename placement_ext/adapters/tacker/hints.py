"""Server groups a stack's nested templates lost (Tacker 15+).

Tacker's StandardUserData rolling update of change_vnfpkg sends the
stack's nested templates with ``scheduler_hints`` deleted from every
``OS::Nova::Server`` (a workaround for Nova bug 2139275, Tacker commit
98a82a5c); a server booted from such a template joins no server group,
so a VNFD's ``nfvi_node`` anti-affinity rule, which the BaseHOT's server
groups enforce, no longer holds for it. This compares the stack's nested
templates with the package's.
"""

from placement_ext.schemas import files

SERVER = 'OS::Nova::Server'


def _template(content: object) -> dict:
    """A nested template as Tacker's VNFD (parsed) or Heat (text) has it."""
    if isinstance(content, (str, bytes)):
        content = files.parse_yaml(content)
    return content if isinstance(content, dict) else {}


def _hinted(template: dict) -> set[str]:
    """Names of the template's servers that ask for scheduler hints."""
    resources = template.get('resources') or {}
    return {name for name, res in resources.items()
            if isinstance(res, dict) and res.get('type') == SERVER
            and 'scheduler_hints' in (res.get('properties') or {})}


def lost(package_files: dict, stack_files: dict) -> list[str]:
    """``file:resource`` of each server the package's nested template
    gives scheduler hints (a server group) and the stack's copy of that
    template does not; a template the stack does not have is not
    compared."""
    found = []
    for name, content in sorted(package_files.items()):
        if name not in stack_files:
            continue
        missing = _hinted(_template(content)) - \
            _hinted(_template(stack_files[name]))
        found.extend(f'{name}:{res}' for res in sorted(missing))
    return found
