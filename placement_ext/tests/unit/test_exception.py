"""Errors never repeat a huge value whole (issue 12: a 50 MB name became
a 50 MB stderr line; a 5 MB RPC payload came back in the error)."""

import testtools

from placement_ext import exception
from placement_ext.schemas import operation as operation_schema
from placement_ext.schemas import validate


class TestShortMessages(testtools.TestCase):

    def test_short_text_is_kept(self):
        exc = exception.InvalidInput(field='name', reason='too long')
        self.assertEqual('Invalid name: too long', exc.detail)

    def test_long_values_keep_their_head_and_tail(self):
        name = 'a' * 10 + 'b' * 5_000_000 + 'z' * 10
        exc = exception.NotFound(kind='host', id=name)
        self.assertLessEqual(len(exc.detail), 2 * exception.MAX_TEXT)
        self.assertTrue(exc.detail.startswith('host aaaaaaaaaab'))
        self.assertIn('characters omitted', exc.detail)
        self.assertTrue(exc.detail.endswith('zzzzzzzzzz could not be '
                                            'found.'))

    def test_schema_errors_about_huge_values_are_short(self):
        body = {'operation': 'INSTANTIATE', 'vnf_instance_id': 'v' * 10**7,
                'stack_name': 's', 'placement': {'A': 'AZ-1'},
                'targets': ['A']}
        exc = self.assertRaises(
            exception.InvalidInput, validate.validate,
            operation_schema.OPERATION_REQUEST_V1_0, body, 'request')
        self.assertEqual('vnf_instance_id', exc.field)
        self.assertLess(len(exc.detail), 2 * exception.MAX_TEXT)
        self.assertIn('is too long', exc.detail)

    def test_a_huge_value_is_shortened_once_and_the_limit_stated(self):
        # before: "...[53 characters omitted]..." inside the first cut,
        # and "is too long" without the limit
        body = {'operation': 'INSTANTIATE', 'vnf_instance_id': 'v',
                'stack_name': 's' + 'x' * (50 * 2**20), 'placement':
                {'A': 'AZ-1'}, 'targets': ['A']}
        exc = self.assertRaises(
            exception.InvalidInput, validate.validate,
            operation_schema.OPERATION_REQUEST_V1_0, body, 'request')
        self.assertEqual('Invalid stack_name: ', exc.detail[:20])
        self.assertLess(len(exc.detail), 200)
        for reason, value in (('r' * 50 * 2**20, 'f'),
                              ('r' * 5000, 'f' * 5000)):
            exc = exception.InvalidInput(field=value, reason=reason)
            self.assertLessEqual(len(exc.detail), exception.MAX_TEXT)
            # once in each value that was too long, never around a cut
            self.assertEqual(1 + (len(value) > 1),
                             exc.detail.count('characters omitted'))

    def test_size_limits_are_stated(self):
        for schema, value, reason in (
                ({'maxLength': 255}, 'x' * 256,
                 'is too long: 256 characters, at most 255 allowed'),
                ({'maxItems': 2}, [1, 2, 3],
                 'is too long: 3 items, at most 2 allowed'),
                ({'maxProperties': 1}, {'a': 1, 'b': 2},
                 'has 2 properties, at most 1 allowed')):
            exc = self.assertRaises(
                exception.InvalidInput, validate.validate,
                {'type': 'object', 'properties': {'v': schema}},
                {'v': value}, 'doc')
            self.assertEqual(f'Invalid v: {reason}', exc.detail)
