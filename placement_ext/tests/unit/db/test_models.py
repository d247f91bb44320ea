"""Structural rules of models.py that the database cannot check."""

import sqlalchemy as sa
import testtools

from placement_ext.db import models
from placement_ext.vocabulary import states


def _leading_columns(table: sa.Table) -> set[str]:
    """Columns that start some index or unique constraint of ``table``."""
    leading = {index.columns[0].name for index in table.indexes}
    leading.add(table.primary_key.columns.values()[0].name)
    leading |= {constraint.columns[0].name for constraint in table.constraints
                if isinstance(constraint, sa.UniqueConstraint)}
    return leading


class TestModels(testtools.TestCase):

    def test_every_foreign_key_column_is_indexed(self):
        # PostgreSQL does not index foreign keys (slow cascades and joins)
        # and MySQL would add an unnamed index of its own.
        for table in models.Base.metadata.sorted_tables:
            leading = _leading_columns(table)
            for fk in table.foreign_keys:
                self.assertIn(fk.parent.name, leading,
                              f'{table.name}.{fk.parent.name}')

    def test_mutable_roots_have_a_generation(self):
        for model in (models.ComputeHost, models.Lease, models.Operation):
            column = model.__table__.c.generation
            self.assertFalse(column.nullable)
            self.assertEqual('0', column.server_default.arg.text)

    def test_every_table_has_timestamps(self):
        for table in models.Base.metadata.sorted_tables:
            self.assertFalse(table.c.created_at.nullable, table.name)
            self.assertTrue(table.c.updated_at.nullable, table.name)

    def test_affinity_is_nullable(self):
        # NULL = no policy, True = affinity, False = anti-affinity
        self.assertTrue(
            models.InstanceReservation.__table__.c.affinity.nullable)

    def test_allocations_allow_several_rows_per_pair(self):
        table = models.ComputeHostAllocation.__table__
        self.assertEqual([], [c for c in table.constraints
                              if isinstance(c, sa.UniqueConstraint)])
        self.assertFalse(any(index.unique for index in table.indexes))

    def test_defaults(self):
        operation = models.Operation.__table__.c
        self.assertEqual(states.STATE_STARTING, operation.state.default.arg)
        self.assertEqual(states.EVENT_UNDONE,
                         models.Event.__table__.c.status.default.arg)
