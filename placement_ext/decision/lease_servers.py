"""Which servers a lease's end may delete.

Pure. A lease admits its own project's servers only: the project's
servers on a host lease's hosts, and its servers of the instance
reservation's flavor. Anything else found there (another project's
server that reached the hosts some other way, an admin's server booted
with the private flavor) is kept: a lease's end never deletes what it did
not admit. Upstream Blazar deletes every server it finds.
"""

import dataclasses
from collections.abc import Iterable


@dataclasses.dataclass(frozen=True)
class Server:
    """A server as the lease's end sees it."""

    id: str
    project_id: str | None
    # the name of the flavor it was booted with (Nova keeps it on the
    # server even after the flavor is deleted); None when unknown
    flavor_name: str | None = None
    # its hypervisor hostname (admin only), None when unknown
    host: str | None = None


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The servers to delete, and those kept with the reason."""

    delete: tuple[Server, ...] = ()
    keep: tuple[tuple[Server, str], ...] = ()

    @property
    def kept_ids(self) -> list[str]:
        return [server.id for server, _why in self.keep]


def admitted(servers: Iterable[Server], project_id: str,
             flavor_name: str | None = None) -> Verdict:
    """Split ``servers`` into those the lease admitted and the others.

    :param project_id: the lease's project.
    :param flavor_name: for an instance reservation, its flavor's name;
        a server known to be of another flavor is kept.
    """
    delete, keep = [], []
    for server in sorted(servers, key=lambda s: s.id):
        if server.project_id != project_id:
            keep.append((server, f'of project {server.project_id}, not '
                                 f'the lease\'s {project_id}'))
        elif flavor_name and server.flavor_name not in (None, flavor_name):
            keep.append((server, f'of flavor {server.flavor_name}, not '
                                 f'the reservation\'s {flavor_name}'))
        else:
            delete.append(server)
    return Verdict(tuple(delete), tuple(keep))


def describe(verdict: Verdict) -> str:
    """The kept servers and why, for a log line or an error."""
    return '; '.join(f'{server.id} ({why})' for server, why in verdict.keep)
