"""How the Blazar tempest run reads each upstream test's result."""

import io

import subunit
import testtools

from placement_ext.tests.functional.blazar_tempest import suite


def _stream(*events: tuple[str, str]) -> bytes:
    out = io.BytesIO()
    writer = subunit.StreamResultToBytes(out)
    for test_id, status in events:
        writer.status(test_id=test_id, test_status=status)
    return out.getvalue()


class TestResults(testtools.TestCase):

    def test_status_per_test_without_attributes(self):
        stream = _stream(('a.T.test_one[id-1,smoke]', 'inprogress'),
                         ('a.T.test_one[id-1,smoke]', 'success'),
                         ('a.T.test_two', 'inprogress'),
                         ('a.T.test_two', 'skip'),
                         ('a.T.test_three', 'fail'))
        self.assertEqual({'a.T.test_one': 'success', 'a.T.test_two': 'skip',
                          'a.T.test_three': 'fail'}, suite.results(stream))

    def test_nothing_ran(self):
        self.assertEqual({}, suite.results(b''))
