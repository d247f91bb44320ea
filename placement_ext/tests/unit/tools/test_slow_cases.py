"""tools/slow_cases.py: the one list of slow cases, the share each run
takes, and the check that fails a run whose slow case was skipped."""

import importlib.util
import io
import pathlib
import re

import fixtures
import subunit
import testtools

_REPO = pathlib.Path(__file__).resolve().parents[4]
_SPEC = importlib.util.spec_from_file_location(
    'slow_cases', _REPO / 'tools' / 'slow_cases.py')
slow_cases = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(slow_cases)

LIST = r"""
# a header comment
# share: first (about 2 min)
^a\.test_one\.
^a\.test_two\.TestX\.test_y   # a comment after a case

# share: second
^b\.
# share: empty, dropped
"""


class TestList(testtools.TestCase):

    def test_parse(self):
        shares = slow_cases.parse(LIST)
        self.assertEqual(
            [('first (about 2 min)', (r'^a\.test_one\.',
                                      r'^a\.test_two\.TestX\.test_y')),
             ('second', (r'^b\.',))],
            [(s.title, s.cases) for s in shares])

    def test_a_case_before_any_share_is_refused(self):
        self.assertRaises(ValueError, slow_cases.parse, '^a\\.\n')

    def test_every_case_is_one_regex(self):
        regex = re.compile(slow_cases.every_case(slow_cases.parse(LIST)))
        self.assertTrue(regex.search('a.test_one.TestA.test_b'))
        self.assertTrue(regex.search('b.test_c.TestD.test_e'))
        self.assertFalse(regex.search('a.test_two.TestX.test_z'))
        self.assertFalse(regex.search('c.a.test_one.T.t'))

    def test_the_real_list(self):
        """Every share named with its estimate, no case twice, none
        bigger than about 4 minutes by its title."""
        shares = slow_cases.load()
        self.assertGreaterEqual(len(shares), 2)
        cases = [c for s in shares for c in s.cases]
        self.assertEqual(len(cases), len(set(cases)))
        for share in shares:
            minutes = re.search(r'about ([\d.]+) min', share.title)
            self.assertIsNotNone(minutes, share.title)
            self.assertLessEqual(float(minutes.group(1)), 4, share.title)
            re.compile(share.regex())


class TestShare(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.shares = slow_cases.parse(LIST)

    def test_each_run_number_takes_the_next_share(self):
        picked = [slow_cases.pick(self.shares, n)[0] for n in range(4)]
        self.assertEqual([1, 2, 1, 2], picked)
        self.assertEqual('second', slow_cases.pick(self.shares, 1)[1].title)

    def test_chosen_share(self):
        index, share = slow_cases.pick(self.shares, 0, chosen='2')
        self.assertEqual((2, 'second'), (index, share.title))
        self.assertRaises(ValueError, slow_cases.pick, self.shares, 0, '3')
        self.assertRaises(ValueError, slow_cases.pick, self.shares, 0, '0')

    def test_headline_names_the_share_and_its_tests(self):
        self.assertEqual(
            'slow share 1 of 2: first (about 2 min): a.test_one, '
            'a.test_two.TestX.test_y',
            slow_cases.headline(1, self.shares, self.shares[0]))

    def test_readable_real_case(self):
        self.assertEqual(
            'ha.test_services.TestRabbitFaults',
            slow_cases.readable(r'^placement_ext\.tests\.functional\.ha\.'
                                r'test_services\.TestRabbitFaults\.'))

    def test_run_number_is_a_number(self):
        self.assertIsInstance(slow_cases.run_number(), int)


def _subunit(outcomes: dict) -> io.BytesIO:
    """A subunit v2 stream of tests that pass (None) or skip (a reason)."""
    out = io.BytesIO()
    result = testtools.ExtendedToStreamDecorator(
        subunit.StreamResultToBytes(out))
    result.startTestRun()
    for name, reason in outcomes.items():
        def test(self, reason=reason):
            if reason is not None:
                self.skipTest(reason)
        case_class = type('TestFault', (testtools.TestCase,), {name: test})
        case_class(name).run(result)
    result.stopTestRun()
    out.seek(0)
    return out


class TestSkips(testtools.TestCase):

    def test_reads_skips_and_their_reasons(self):
        skips = slow_cases.read_skips(_subunit({
            'test_ran': None,
            'test_no_filter': 'the embedded cloud runs without a filter'}))
        self.assertEqual(
            {'placement_ext.tests.unit.tools.test_slow_cases.TestFault.'
             'test_no_filter': 'the embedded cloud runs without a filter'},
            skips)

    def test_a_skip_fails_the_run_unless_for_a_platform_reason(self):
        self.assertEqual(0, slow_cases.check_skips(_subunit({
            'test_ran': None,
            'test_netns': 'platform: no network namespaces here'})))
        self.useFixture(fixtures.MonkeyPatch(
            'sys.stderr', io.StringIO()))
        self.assertEqual(1, slow_cases.check_skips(_subunit({
            'test_netns': 'platform: no network namespaces here',
            'test_no_ha': 'no HA topology on the embedded cloud'})))

    def test_unexplained(self):
        self.assertEqual({'b': 'no cloud'}, slow_cases.unexplained(
            {'a': 'platform: no ss -K', 'b': 'no cloud'}))
