"""schemas.validate: the first, most relevant error as field + reason."""

import testtools

from placement_ext import exception
from placement_ext.schemas import validate

SCHEMA = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'minLength': 1},
        'items': {'type': 'array', 'minItems': 1, 'items': {
            'type': 'object',
            'properties': {'kind': {'enum': ['a', 'b']}},
            'patternProperties': {'^x-': {}},
            'required': ['kind'], 'additionalProperties': False}},
    },
    'required': ['name'],
    'additionalProperties': False,
}


class TestValidate(testtools.TestCase):

    def _error(self, data):
        return self.assertRaises(exception.InvalidInput, validate.validate,
                                 SCHEMA, data, 'thing')

    def test_valid_passes(self):
        validate.validate(SCHEMA, {'name': 'n', 'items': [
            {'kind': 'a', 'x-note': 1}]}, 'thing')

    def test_fields_and_reasons(self):
        cases = [
            ([], 'thing', "[] is not of type 'object'"),
            ({}, 'name', 'is required'),
            ({'name': ''}, 'name', 'must not be empty'),
            ({'name': 'n', 'zz': 1, 'aa': 2}, 'aa', 'is not allowed here'),
            ({'name': 'n', 'items': []}, 'items',
             'has 0 item(s), needs at least 1'),
            ({'name': 'n', 'items': [{'kind': 'a'}, {}]}, 'items[1].kind',
             'is required'),
            ({'name': 'n', 'items': [{'kind': 'c'}]}, 'items[0].kind',
             "'c' is not one of: a, b"),
            ({'name': 'n', 'items': [{'kind': 'a', 'y': 1}]}, 'items[0].y',
             'is not allowed here'),
        ]
        for data, field, reason in cases:
            exc = self._error(data)
            self.assertEqual((field, reason), (exc.field, exc.reason))

    def test_json_path(self):
        self.assertEqual('a[0].b[12]', validate.json_path(['a', 0, 'b', 12]))
        self.assertEqual('[3]', validate.json_path([3]))
        self.assertEqual('', validate.json_path([]))
