"""Heat failure texts: capacity or not, and which VDU failed.

Texts marked "minicloud" were produced by real Nova and Heat
(shared/research/minicloud.md); the others come from Tacker's
documentation and its availability zone reselection specification
(section 4), or are Heat's
format for other Nova failures.
"""

import re

import testtools

from placement_ext.conf import v2_vnfm
from placement_ext.decision import heat_failure

UUID = '0fea3414-93c0-46f5-b042-857be0d1e5a1'
NO_VALID_HOST = ('"Message: No valid host was found. , Code: 500"')
EXHAUSTED = ('"Message: Exceeded maximum number of retries. Exhausted all '
             'hosts available for retrying build failures for instance '
             f'{UUID}., Code: 500"')
CREATE = 'Resource CREATE failed: ResourceInError: resources.'
WENT = ': Went to status ERROR due to '

# (name, text, is_capacity, vdu_id, resource_path)
CAPACITY = [
    ('minicloud plain', f'{CREATE}VDU1{WENT}{NO_VALID_HOST}',
     'VDU1', ('VDU1',)),
    ('minicloud anti-affinity',
     f'{CREATE}VDU2{WENT}"Message: No valid host was found. There are not '
     f'enough hosts available., Code: 500"', 'VDU2', ('VDU2',)),
    ('minicloud nested', f'{CREATE}VDU1-1.resources.VDU{WENT}{NO_VALID_HOST}',
     'VDU1-1', ('VDU1-1', 'VDU')),
    ('docs nested', f'{CREATE}VDU1-0.resources.VDU1{WENT}{NO_VALID_HOST}',
     'VDU1-0', ('VDU1-0', 'VDU1')),
    ('docs update', f'Resource UPDATE failed: resources.VDU1-0: {CREATE}'
                    f'VDU1{WENT}{NO_VALID_HOST}',
     'VDU1-0', ('VDU1-0', 'VDU1')),
    ('spec exhausted hosts', f'{CREATE}VDU1{WENT}{EXHAUSTED}',
     'VDU1', ('VDU1',)),
    ('exhausted hosts nested', f'{CREATE}VDU1-0.resources.VDU1{WENT}'
                               f'{EXHAUSTED}', 'VDU1-0', ('VDU1-0', 'VDU1')),
    ('exhausted hosts update', f'Resource UPDATE failed: resources.VDU2-12: '
                               f'{CREATE}VDU2{WENT}{EXHAUSTED}',
     'VDU2-12', ('VDU2-12', 'VDU2')),
]

NOT_CAPACITY = [
    ('quota exceeded', 'Resource CREATE failed: Forbidden: resources.VDU1: '
     'Quota exceeded for cores: Requested 2, but already used 20 of 20 '
     'cores (HTTP 403) (Request-ID: req-7d1e6a7c-1f4e-4f53-9d0e-3c2a)',
     'VDU1'),
    ('image not found', 'Resource CREATE failed: StackValidationFailed: '
     'resources.VDU1-0.resources.VDU1: Property error: '
     "VDU1.Properties.image: Error validating value 'cirros-x': No images "
     "matching {'name': 'cirros-x'}.", 'VDU1-0'),
    ('image unacceptable', f'{CREATE}VDU1{WENT}"Message: Build of instance '
     f'{UUID} aborted: Image 5b4f-1 is unacceptable: bad disk format., '
     'Code: 500"', 'VDU1'),
    ('network allocation', f'{CREATE}VDU1-3.resources.VDU1{WENT}"Message: '
     f'Build of instance {UUID} aborted: Failed to allocate the '
     'network(s), not rescheduling., Code: 500"', 'VDU1-3'),
    ('volume error', 'Resource CREATE failed: ResourceInError: '
     'resources.VDU1-0.resources.VirtualStorage: Went to status error due '
     'to "Unknown"', 'VDU1-0'),
    ('network not found', 'Resource CREATE failed: NotFound: '
     'resources.VDU1: Network net0 could not be found.', 'VDU1'),
    ('timeout', 'Create timed out', None),
    ('empty', '', None),
    ('none', None, None),
]

# Tacker's own default, for comparison (its availability zone
# reselection specification).
TACKER_DEFAULT = (
    r'Resource CREATE failed: ResourceInError: resources\.(.*)\.(.*): (.*)|'
    r'Resource UPDATE failed: resources\.(.*): Resource CREATE failed: '
    r'ResourceInError: resources\.(.*): (.*)')
UPSTREAM_VDU = re.compile(r'resources\.((.*)-([0-9]+))')


class TestDefaultPattern(testtools.TestCase):

    pattern = re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR)

    def test_capacity_texts(self):
        for name, text, vdu, path in CAPACITY:
            failure = heat_failure.classify(text, self.pattern)
            self.assertEqual(
                (True, vdu, path, True, text),
                (failure.is_capacity, failure.vdu_id, failure.resource_path,
                 failure.reselectable, failure.raw), name)

    def test_other_failures_are_not_capacity(self):
        for name, text, vdu in NOT_CAPACITY:
            failure = heat_failure.classify(text, self.pattern)
            self.assertEqual((False, vdu, False),
                             (failure.is_capacity, failure.vdu_id,
                              failure.reselectable), name)
            self.assertEqual(text or '', failure.raw)

    def test_upstream_vdu_regex_misreads_exhausted_hosts(self):
        # why we do not use Tacker's extraction: greedy .* ends inside the
        # instance UUID, so the VDU lookup failed and reselection was
        # skipped silently
        text = f'{CREATE}VDU1-0.resources.VDU1{WENT}{EXHAUSTED}'
        upstream = UPSTREAM_VDU.search(text).group(1)
        self.assertNotEqual('VDU1-0', upstream)
        self.assertTrue(upstream.endswith('-857'), upstream)
        failure = heat_failure.classify(text, self.pattern)
        self.assertEqual('VDU1-0', failure.vdu_id)


class TestOtherPatterns(testtools.TestCase):

    def test_tacker_default_pattern_also_works_with_our_extraction(self):
        pattern = re.compile(TACKER_DEFAULT)
        for name, text, vdu, _ in CAPACITY:
            failure = heat_failure.classify(text, pattern)
            self.assertEqual((True, vdu), (failure.is_capacity,
                                           failure.vdu_id), name)

    def test_pattern_written_for_tacker_classifies_as_tacker_does(self):
        # the specification's example pattern: Tacker applies it with
        # re.match, so a stack update's failure (which starts "Resource
        # UPDATE failed") is not a capacity failure for it; neither here
        pattern = re.compile('Resource CREATE failed:(.*)')
        create = f'{CREATE}VDU1{WENT}{NO_VALID_HOST}'
        update = (f'Resource UPDATE failed: resources.VDU1-0: {CREATE}VDU1'
                  f'{WENT}{NO_VALID_HOST}')
        self.assertEqual(
            (True, False),
            (heat_failure.classify(create, pattern).is_capacity,
             heat_failure.classify(update, pattern).is_capacity))
        for text in (create, update):
            self.assertEqual(re.match(pattern, text) is not None,
                             heat_failure.classify(text, pattern).is_capacity)

    def test_default_finds_the_text_anywhere(self):
        # the failed event's reason of a rolled-back stack, and a reason
        # Heat wrapped over several lines
        event = f'ResourceInError: resources.VDU1{WENT}{NO_VALID_HOST}'
        wrapped = f'Stack failed\n{CREATE}VDU1{WENT}{NO_VALID_HOST}'
        pattern = re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR)
        for text in (event, wrapped):
            self.assertTrue(heat_failure.classify(text, pattern).is_capacity,
                            text)

    def test_broad_operator_pattern_reselects_on_more(self):
        # "Resource CREATE failed:" : higher tolerance, quota included
        pattern = re.compile('Resource CREATE failed:')
        quota = NOT_CAPACITY[0][1]
        self.assertTrue(heat_failure.classify(quota, pattern).reselectable)

    def test_capacity_without_a_resource_path_cannot_reselect(self):
        pattern = re.compile('No valid host')
        failure = heat_failure.classify('No valid host was found.', pattern)
        self.assertEqual((True, None, False), (
            failure.is_capacity, failure.vdu_id, failure.reselectable))


class TestKnownVdus(testtools.TestCase):

    pattern = re.compile(v2_vnfm.DEFAULT_AZ_RESOURCE_ERROR)

    def test_wrapper_resources_are_skipped(self):
        text = (f'{CREATE}VDU1_group.resources.k3x9.resources.VDU1-2'
                f'.resources.VDU1{WENT}{NO_VALID_HOST}')
        failure = heat_failure.classify(
            text, self.pattern, known_vdus={'VDU1-0', 'VDU1-2'})
        self.assertEqual('VDU1-2', failure.vdu_id)
        self.assertEqual(('VDU1_group', 'k3x9', 'VDU1-2', 'VDU1'),
                         failure.resource_path)

    def test_unknown_vdu_is_none(self):
        text = f'{CREATE}VDU9-0{WENT}{NO_VALID_HOST}'
        failure = heat_failure.classify(text, self.pattern,
                                        known_vdus={'VDU1-0'})
        self.assertIsNone(failure.vdu_id)
        self.assertFalse(failure.reselectable)

    def test_curly_quotes_of_copied_documents_end_the_path(self):
        text = (f'{CREATE}VDU1-0{WENT}\u201cMessage: resources.X failed\u201d')
        self.assertEqual(('VDU1-0',), heat_failure.resource_path(text))
