"""Blazar's resource_properties language, as its instance plugin reads
it (blazar.utils.plugins.convert_requirements, host_get_all_by_queries)."""

import testtools

from placement_ext.decision import host_properties as hp

HOSTS = [
    hp.HostRecord('cn1', {'vcpus': 8, 'availability_zone': 'az1',
                          'cpu_info': None}, {'gpu': 'true', 'rack': '3'}),
    hp.HostRecord('cn2', {'vcpus': 16, 'availability_zone': 'az2',
                          'cpu_info': 'x86'}, {'gpu': 'false'}),
    hp.HostRecord('cn3', {'vcpus': 4, 'availability_zone': 'az1',
                          'cpu_info': None}, {}),
]


def match(text):
    return sorted(hp.matching(hp.parse(text), HOSTS))


class TestParse(testtools.TestCase):

    def test_empty_means_every_host(self):
        for text in (None, '', '  ', '[]', []):
            self.assertEqual((), hp.parse(text))
        self.assertEqual(['cn1', 'cn2', 'cn3'], match(''))

    def test_one_condition_and_a_conjunction(self):
        self.assertEqual((hp.Condition('==', 'gpu', 'true'),),
                         hp.parse('["=", "$gpu", "true"]'))
        self.assertEqual(2, len(hp.parse(
            '["and", ["==", "$gpu", "true"], [">", "$rack", "1"]]')))

    def test_malformed_says_what(self):
        for text, words in (
                ('gpu', 'not JSON'), ('{"a": 1}', 'not a list'),
                ('["==", "$gpu"]', 'of strings'),
                ('["==", "$gpu", 1]', 'of strings'),
                ('["~", "$gpu", "x"]', "'~' is not one of"),
                ('["==", "gpu", "x"]', 'is not a "$key"'),
                ('["==", "$gpu", ""]', 'empty value'),
                ('["and", ["==", "$gpu", "x"], "y"]', 'of strings')):
            exc = self.assertRaises(hp.Malformed, hp.parse, text)
            self.assertIn(words, str(exc))


class TestMatching(testtools.TestCase):

    def test_extra_capability_missing_on_a_host_is_no_match(self):
        self.assertEqual(['cn1'], match('["==", "$gpu", "true"]'))
        self.assertEqual(['cn2'], match('["!=", "$gpu", "true"]'))

    def test_capabilities_compare_as_text(self):
        # as Blazar: "10" < "3" (strings), so only rack 3 is >= "10"
        self.assertEqual(['cn1'], match('[">=", "$rack", "10"]'))

    def test_host_fields_compare_as_their_column(self):
        self.assertEqual(['cn1', 'cn3'],
                         match('["==", "$availability_zone", "az1"]'))
        self.assertEqual(['cn1', 'cn2'], match('[">=", "$vcpus", "8"]'))
        self.assertEqual(['cn1', 'cn3'], match('["==", "$cpu_info", "null"]'))
        self.assertEqual(['cn2'], match('["!=", "$cpu_info", "null"]'))
        self.assertEqual([], match('["==", "$cpu_info", "arm"]'))

    def test_conjunction(self):
        self.assertEqual(['cn1'], match(
            '["and", ["==", "$availability_zone", "az1"], '
            '["==", "$gpu", "true"]]'))

    def test_unknown_key_and_bad_number(self):
        exc = self.assertRaises(hp.Malformed, match, '["==", "$fpga", "1"]')
        self.assertIn("'fpga'", str(exc))
        exc = self.assertRaises(hp.Malformed, match, '[">", "$vcpus", "x"]')
        self.assertIn('$vcpus is a number', str(exc))
