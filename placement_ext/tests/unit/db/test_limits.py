"""What the request schemas accept, every backend stores.

The same inputs on SQLite here and on MariaDB and PostgreSQL in
``tests/functional/db/test_api.py``: the longest values the schemas
allow, 4-byte characters, the deepest documents. Before, a 255-character
``vnf_instance_id`` passed the schema and broke MariaDB and PostgreSQL's
VARCHAR(36), emoji broke MariaDB (latin1/utf8mb3 connection) and 30
levels of ``parameters`` broke MariaDB's JSON CHECK.
"""

import sqlalchemy as sa

from placement_ext import exception
from placement_ext.conductor import stack_request
from placement_ext.db import models
from placement_ext.objects import operation as op_obj
from placement_ext.schemas import validate as schema_validate
from placement_ext.tests.unit.db import test_api as db_tests

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
