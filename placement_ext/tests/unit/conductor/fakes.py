"""Moved to :mod:`placement_ext.tests.fixtures.stacks`; this name stays
for tests written against it until they import the fixture."""

from placement_ext.tests.fixtures.stacks import FakeHeat  # noqa: F401
from placement_ext.tests.fixtures.stacks import FakeZones  # noqa: F401
