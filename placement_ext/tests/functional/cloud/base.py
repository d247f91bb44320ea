"""Base class of the tests that run on the embedded cloud."""

import testtools

from placement_ext.tests.functional.cloud import fixture


class CloudTestCase(testtools.TestCase):
    """A test with ``self.cloud``: the embedded cloud, clean capacity."""

    def setUp(self):
        super().setUp()
        self.cloud = fixture.use_cloud(self)
