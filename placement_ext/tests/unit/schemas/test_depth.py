"""Documents nested too deeply are refused, naming the field, at any
depth (no recursion), in files, schemas and RPC arguments."""

import json

import fixtures
import testtools

from placement_ext import exception
from placement_ext.cli import documents
from placement_ext.schemas import validate


def nested_list(depth: int) -> list:
    doc: list = []
    for _ in range(depth - 1):
        doc = [doc]
    return doc


class TestDepth(testtools.TestCase):

    def test_limit_is_inclusive_and_names_the_top_level_field(self):
        validate.check_document({'a': nested_list(19)}, 'request')
        exc = self.assertRaises(exception.InvalidInput,
                                validate.check_document,
                                {'ok': 1, 'deep': nested_list(20)},
                                'request')
        self.assertEqual('deep', exc.field)
        self.assertIn('nested deeper than 20 levels', exc.reason)

    def test_a_deep_document_itself_is_named_by_what(self):
        exc = self.assertRaises(exception.InvalidInput,
                                validate.check_document,
                                nested_list(100_000), 'GrantRequest')
        self.assertEqual('GrantRequest', exc.field)

    def test_file_too_deep_to_parse_names_the_option(self):
        path = self.useFixture(fixtures.TempDir()).join('deep.json')
        with open(path, 'w') as f:
            f.write('[' * 100_000 + ']' * 100_000)
        exc = self.assertRaises(exception.InvalidInput, documents.load_json,
                                path, '--request')
        self.assertEqual('--request', exc.field)
        self.assertIn('nested too deeply', exc.reason)

    def test_call_arguments_too_deep_are_refused_naming_the_field(self):
        # json.dumps used to overflow at about 450 levels
        exc = self.assertRaises(
            exception.InvalidInput, validate.check_arguments,
            {'request': {'parameters': json.loads('[' * 500 + ']' * 500)}})
        self.assertEqual('parameters', exc.field)


class TestText(testtools.TestCase):

    def test_lone_surrogate_is_refused_naming_the_field(self):
        # from a JSON escape, or undecodable bytes on the command line
        for document in ({'name': 'a\ud800b'}, {'name': ['\udcff']},
                         {'name': {'\ud800': 1}}):
            exc = self.assertRaises(exception.InvalidInput,
                                    validate.check_document, document,
                                    'request')
            self.assertEqual('name', exc.field)
            self.assertIn('lone surrogate', exc.reason)
            self.assertIn('\\ud', exc.reason)   # shown escaped, printable

    def test_any_other_text_passes(self):
        validate.check_document({'name': 'caf\u00e9 \U0001f600 \u4e2d'},
                                'request')
