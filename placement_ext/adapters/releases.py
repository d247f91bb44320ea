"""The releases of a host service (Tacker, Blazar) our code runs in.

Pure but for :func:`installed_version`: each adapter's ``compat`` module
names its range (major versions, each an OpenStack series); the start-up
check refuses any other release with the text of :meth:`Supported.refusal`.
"""

import dataclasses
from collections.abc import Mapping
from importlib import metadata

# OpenStack series of the supported releases (the release team's names)
SERIES = {'2025.1': 'Epoxy', '2025.2': 'Flamingo', '2026.1': 'Gazpacho',
          '2026.2': 'Hibiscus'}


@dataclasses.dataclass(frozen=True)
class Supported:
    """A service's supported major releases, oldest first."""

    service: str        # the distribution's name on PyPI, e.g. 'tacker'
    title: str          # as people write it, e.g. 'Tacker'
    series: Mapping[int, str]   # major -> OpenStack series ('2025.1')

    @property
    def oldest(self) -> int:
        return min(self.series)

    @property
    def newest(self) -> int:
        return max(self.series)

    def describe(self) -> str:
        """``Tacker 13.x (2025.1 Epoxy) to 16.x (2026.2 Hibiscus)``."""
        def one(major: int) -> str:
            name = self.series[major]
            return f'{major}.x ({name} {SERIES.get(name, "")})'.replace(
                ' )', ')')
        return f'{self.title} {one(self.oldest)} to {one(self.newest)}'

    def major(self, version: str) -> int | None:
        head = version.split('.', 1)[0]
        return int(head) if head.isdigit() else None

    def refusal(self, version: str | None) -> str | None:
        """Why this release cannot run our code, or None when it can."""
        if version is None:
            return (f'{self.title} is not installed in this Python '
                    f'environment')
        if self.major(version) in self.series:
            return None
        return (f'{self.title} {version} is not supported (supported: '
                f'{self.describe()})')


def installed_problems(supported: Supported) -> list[str]:
    """The refusal of the installed release, as a list of problems."""
    why = supported.refusal(installed_version(supported.service))
    return [why] if why else []


def unmet_requirements(distribution: str) -> list[str]:
    """The installed distribution's requirements that what is installed
    beside it does not meet (a venv whose libraries were not resolved
    for it: an overlay on another release's venv)."""
    from packaging import requirements

    unmet = []
    for line in metadata.requires(distribution) or ():
        req = requirements.Requirement(line)
        if req.marker is not None and not req.marker.evaluate(
                {'extra': ''}):
            continue
        found = installed_version(req.name)
        if found is None or not req.specifier.contains(found,
                                                       prereleases=True):
            unmet.append(f'{req} (installed: {found or "none"})')
    return unmet


def installed_version(distribution: str) -> str | None:
    """The installed release of ``distribution``, None when absent."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None
