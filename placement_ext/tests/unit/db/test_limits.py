"""What the request schemas accept, every backend stores.

The same inputs on SQLite here and on MariaDB and PostgreSQL in
``tests/functional/db/test_api.py``: the longest values the schemas
allow, 4-byte characters, the deepest documents. Before, a 255-character
``vnf_instance_id`` passed the schema and broke MariaDB and PostgreSQL's
VARCHAR(36), emoji broke MariaDB (latin1/utf8mb3 connection) and 30
levels of ``parameters`` broke MariaDB's JSON CHECK.
"""

import sqlalchemy as sa

from placement_ext import context
from placement_ext import exception
from placement_ext import validation
from placement_ext.conductor import stack_request
from placement_ext.db import models
from placement_ext.objects import operation as op_obj
from placement_ext.schemas import validate as schema_validate
from placement_ext.tests.unit.db import test_api as db_tests
from placement_ext.vocabulary import states

EMOJI_ZONE = 'AZ-\U0001f600-' + 'z' * 250       # 255 characters


def nested(depth: int) -> dict:
    """A dict ``depth`` levels deep."""
    doc: dict = {}
    for _ in range(depth - 1):
        doc = {'a': doc}
    return doc


def request(**overrides: object) -> dict:
    body = {'operation': 'INSTANTIATE', 'vnf_instance_id': 'v' * 36,
            'stack_name': 's', 'template': {},
            'placement': {'VDU1-0': EMOJI_ZONE}, 'targets': ['VDU1-0'],
            # the request itself is the top level: 20 levels in all
            'parameters': nested(schema_validate.MAX_DEPTH - 1)}
    body.update(overrides)
    return body


class TestLimits(db_tests.DbTestCase):

    def _store(self, body: dict) -> op_obj.Operation:
        stack_request.validate(body)
        op = op_obj.create(self.db, vnf_instance_id=body['vnf_instance_id'],
                           operation=body['operation'], params=body,
                           placement=body['placement'])
        return op_obj.start_attempt(
            self.db, op, vdu_id='VDU1-0', zone=EMOJI_ZONE,
            placement=body['placement'], decision={'reasons': ['\U0001f600']})

    def test_the_largest_accepted_request_is_stored_as_sent(self):
        body = request()
        op = op_obj.get(self.db, self._store(body).id)
        self.assertEqual(body, op.params)
        self.assertEqual(EMOJI_ZONE, op.placement['VDU1-0'])
        self.assertEqual(EMOJI_ZONE, op.attempts[0].zone)
        self.assertEqual(['\U0001f600'], op.attempts[0].decision['reasons'])

    def test_what_the_columns_cannot_hold_is_refused_by_the_schema(self):
        for body, field in (
                (request(vnf_instance_id='v' * 37), 'vnf_instance_id'),
                (request(placement={'VDU1-0': 'z' * 256}),
                 'placement.VDU1-0'),
                (request(parameters=nested(schema_validate.MAX_DEPTH)),
                 'parameters')):
            exc = self.assertRaises(exception.InvalidInput,
                                    stack_request.validate, body)
            self.assertEqual(field, exc.field)
        with self.db.reader() as session:
            self.assertEqual(0, session.scalar(
                sa.select(sa.func.count()).select_from(models.Operation)))

    def test_nul_characters_are_refused_before_the_database(self):
        # PostgreSQL refused them with a DBError (and, embedded, an SQL
        # traceback holding the request on stderr); SQLite and MariaDB
        # stored them
        for body, field in (
                (request(placement={'VDU1-0': 'AZ\x00'}), 'placement'),
                (request(parameters={'a': 'x\x00'}), 'parameters'),
                (request(parameters={'a\x00': 1}), 'parameters')):
            exc = self.assertRaises(exception.InvalidInput,
                                    stack_request.validate, body)
            self.assertEqual(field, exc.field)
            self.assertIn('a NUL character, which databases cannot store',
                          exc.reason)
            # whichever way the request came (the Tacker driver creates
            # operations without the RPC schema)
            self.assertRaises(exception.InvalidInput, op_obj.create,
                              self.db, vnf_instance_id='v', operation=
                              'INSTANTIATE', params=body,
                              placement=body['placement'])
        with self.db.reader() as session:
            self.assertEqual(0, session.scalar(
                sa.select(sa.func.count()).select_from(models.Operation)))

    def test_a_service_text_with_nul_is_stored_escaped(self):
        op = self._store(request())
        op = op_obj.finish_attempt(self.db, op, outcome='error',
                                   duration_s=1.0, error_text='Heat\x00!')
        op = op_obj.set_state(self.db, op, states.STATE_FAILED_TEMP,
                              error={'code': 'c', 'detail': 'x\x00'})
        op = op_obj.get(self.db, op.id)
        self.assertEqual('Heat\\x00!', op.attempts[0].error_text)
        self.assertEqual('x\\x00', op.error['detail'])

    def test_request_ids_the_column_holds(self):
        # a 10,004-character RPC request id was stored on SQLite only
        longest = 'r' * validation.MAX_CONTEXT_TEXT
        validation.check_context(context.RequestContext(request_id=longest))
        body = request()
        stack_request.validate(body)
        op = op_obj.create(self.db, vnf_instance_id='v', operation=
                           'INSTANTIATE', params=body,
                           placement=body['placement'], request_id=longest)
        self.assertEqual(longest, op_obj.get(self.db, op.id).request_id)
        for name, value, reason in (
                ('request_id', 'r' * 10_004, 'is too long: 10004 '
                 'characters, at most 255 allowed'),
                ('project_id', 'p\x00', "holds '\\x00' at position 1"),
                ('user_id', 'u\udc80', "holds '\\udc80' at position 1")):
            exc = self.assertRaises(
                exception.InvalidInput, validation.check_context,
                context.RequestContext(**{name: value}))
            self.assertEqual(f'context.{name}', exc.field)
            self.assertIn(reason, exc.reason)
