"""Which VNF instance each Heat stack belongs to (one stack, one VNF).

Stacks that operations already changed are recorded for the VNF instance
of the latest operation on them.

Revision ID: 9e2c4a7b5d13
Revises: 6e2c4a8b1f53
Create Date: 2026-11-26 09:20:00.000000

"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision = '9e2c4a7b5d13'
down_revision = '6e2c4a8b1f53'
branch_labels = None
depends_on = None

# Frozen copies of the model types (see the initial schema).
DATETIME = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')
JSON = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), 'postgresql')


def upgrade() -> None:
    stacks = op.create_table(
        'stacks',
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('vnf_instance_id', sa.String(36), nullable=False),
        sa.Column('operation_id', sa.String(36), nullable=False),
        sa.Column('created_at', DATETIME, nullable=False),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('name', name=op.f('pk_stacks')),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.bulk_insert(stacks, _latest_operation_per_stack())


def _latest_operation_per_stack() -> list[dict]:
    operations = sa.table(
        'operations', sa.column('id', sa.String(36)),
        sa.column('vnf_instance_id', sa.String(36)),
        sa.column('params', JSON), sa.column('created_at', DATETIME))
    rows = op.get_bind().execute(
        sa.select(operations).order_by(operations.c.created_at,
                                       operations.c.id))
    latest: dict[str, dict] = {}
    for row in rows:
        name = (row.params or {}).get('stack_name')
        if name:
            latest[name] = {'name': name, 'operation_id': row.id,
                            'vnf_instance_id': row.vnf_instance_id,
                            'created_at': row.created_at}
    return list(latest.values())


def downgrade() -> None:
    op.drop_table('stacks')
