"""Moved to :mod:`placement_ext.tests.fixtures.nova`; this name stays
for tests written against it until they import the fixture."""

from placement_ext.tests.fixtures.nova import FakeNova  # noqa: F401
