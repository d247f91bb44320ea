import testtools
from jsonschema import exceptions as js_exceptions

from placement_ext import context as pe_context
from placement_ext import exception
from placement_ext import validation

ARGS = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'minLength': 1},
        'count': {'type': 'integer', 'minimum': 1},
        'hosts': {
            'type': 'array',
            'items': {
                'type': 'object',
                'properties': {'id': {'type': 'string'}},
                'required': ['id'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['name'],
    'additionalProperties': False,
}


class Endpoint:

    @validation.schema(ARGS)
    def create(self, context, name, count=1, hosts=()):
        return {'name': name, 'count': count, 'hosts': list(hosts)}


class TestSchemaDecorator(testtools.TestCase):

    def test_valid_arguments_reach_the_method(self):
        self.assertEqual(
            {'name': 'a', 'count': 2, 'hosts': [{'id': 'h1'}]},
            Endpoint().create(None, name='a', count=2, hosts=[{'id': 'h1'}]))

    def test_the_context_is_checked_too(self):
        # its request id is stored in a 255-character column
        context = pe_context.RequestContext(request_id='r' * 10_004)
        exc = self.assertRaises(exception.InvalidInput, Endpoint().create,
                                context, name='a')
        self.assertEqual('context.request_id', exc.field)

    def test_defaults_need_not_be_sent(self):
        self.assertEqual({'name': 'a', 'count': 1, 'hosts': []},
                         Endpoint().create(None, name='a'))

    def test_bad_arguments_name_the_field(self):
        cases = [
            # (arguments, field, words of the reason)
            ({'name': 5}, 'name', "5 is not of type 'string'"),
            ({}, 'name', 'is required'),
            ({'name': 'a', 'colour': 'red'}, 'colour', 'not allowed'),
            ({'name': 'a', 'count': 0}, 'count', 'minimum of 1'),
            ({'name': 'a', 'count': '2'}, 'count', "not of type 'integer'"),
            ({'name': 'a', 'hosts': [{'id': 'h1'}, {}]}, 'hosts[1].id',
             'is required'),
            ({'name': 'a', 'hosts': [{'id': 'h1', 'az': 'x'}]},
             'hosts[0].az', 'not allowed'),
        ]
        for kwargs, field, reason in cases:
            exc = self.assertRaises(exception.InvalidInput,
                                    Endpoint().create, None, **kwargs)
            self.assertEqual((field, True), (exc.field, reason in exc.reason),
                             f'{kwargs}: {exc.detail}')
            self.assertIn(field, exc.detail)

    def test_schema_must_match_the_signature(self):
        def method(self, context, name, extra=None):
            pass

        exc = self.assertRaises(TypeError, validation.schema(ARGS), method)
        self.assertIn('extra', str(exc))

    def test_schema_must_refuse_unknown_arguments(self):
        loose = dict(ARGS, additionalProperties=True)
        self.assertRaises(TypeError, validation.schema, loose)

    def test_schema_must_itself_be_valid(self):
        broken = dict(ARGS, properties={'name': {'type': 'text'}})
        self.assertRaises(js_exceptions.SchemaError, validation.schema,
                          broken)
