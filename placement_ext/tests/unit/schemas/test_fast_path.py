"""The fastjsonschema fast path never accepts what jsonschema refuses,
and is used only for schemas whose keywords mean the same in Draft 7."""

import jsonschema
import testtools

from placement_ext import exception
from placement_ext.schemas import homing
from placement_ext.schemas import operation
from placement_ext.schemas import reselection
from placement_ext.schemas import sol003
from placement_ext.schemas import validate

SCHEMA = {
    'type': 'object',
    'properties': {
        'count': {'type': 'integer', 'minimum': 1},
        'ratio': {'type': 'number', 'exclusiveMinimum': 0},
        'name': {'type': 'string', 'pattern': '^[a-z]+$', 'maxLength': 5},
        'kind': {'enum': ['a', 'b']},
        'tags': {'type': 'array', 'items': {'type': 'string'},
                 'uniqueItems': True},
        'map': {'type': 'object', 'propertyNames': {'minLength': 2},
                'additionalProperties': {'type': 'boolean'}},
    },
    'required': ['count'],
    'additionalProperties': False,
}
DOCUMENTS = [
    {'count': 1}, {'count': True}, {'count': 1.0}, {'count': 1.5},
    {'count': 0}, {}, {'count': 1, 'extra': 1}, {'count': 1, 'ratio': 0},
    {'count': 1, 'ratio': True}, {'count': 1, 'name': 'abc'},
    {'count': 1, 'name': 'ABC'}, {'count': 1, 'name': 'abcdef'},
    {'count': 1, 'kind': 'c'}, {'count': 1, 'tags': ['x', 'x']},
    {'count': 1, 'tags': ['x', 1]}, {'count': 1, 'map': {'ab': True}},
    {'count': 1, 'map': {'a': True}}, {'count': 1, 'map': {'ab': 1}},
    [], 'text', None,
]


class TestFastPath(testtools.TestCase):

    def test_same_verdicts_as_jsonschema(self):
        reference = jsonschema.Draft202012Validator(SCHEMA)
        self.assertIsNotNone(validate._fast_validator(SCHEMA))
        for document in DOCUMENTS:
            valid = reference.is_valid(document)
            try:
                validate.validate(SCHEMA, document, 'doc')
                ours = True
            except exception.InvalidInput:
                ours = False
            self.assertEqual(valid, ours, document)

    def test_errors_still_name_the_field(self):
        error = self.assertRaises(exception.InvalidInput, validate.validate,
                                  SCHEMA, {'count': 1, 'name': 'ABC'}, 'doc')
        self.assertEqual('name', error.field)

    def test_keywords_that_differ_keep_jsonschema_alone(self):
        for schema in ({'prefixItems': [{'type': 'string'}]},
                       {'items': [{'type': 'string'}]},
                       {'dependentRequired': {'a': ['b']}},
                       {'enum': [1, 'a']}, {'const': 1},
                       {'properties': {'a': {'$ref': '#/x'}}},
                       {'type': 'object', 'default': {}}):
            self.assertIsNone(validate._fast_validator(schema), schema)

    def test_our_big_documents_take_the_fast_path(self):
        for schema in (homing.SELECTION_REQUEST, homing.REGIONS,
                       reselection.RESELECTION_PLAN_INPUT_V1_0):
            self.assertIsNotNone(validate._fast_validator(schema))

    def test_our_schemas_compile_both_ways(self):
        for schema in (homing.CLOUD_SELECTION_POLICY, homing.COST_CONFIG,
                       homing.FLAVORS, operation.OPERATION_REQUEST_V1_0,
                       reselection.RESELECTION_PLAN_OUTPUT_V1_0,
                       sol003.PLACEMENT_CONSTRAINT_V3_3_1):
            validate._fast_validator(schema)
            validate._validator(schema)
