"""Expand: when each lease's status last changed (nullable: 1.0.0
services, still running during a rolling upgrade, do not write it; the
online data migration ``lease_status_changed_at`` fills it).

Revision ID: b2f7d3e9c102
Revises: a1e5c0e7f001
Create Date: 2026-11-27 20:40:00.000000

"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# revision identifiers, used by Alembic.
revision = 'b2f7d3e9c102'
down_revision = 'a1e5c0e7f001'
branch_labels = None
depends_on = None

# Frozen copy of the model type (see the initial schema).
DATETIME = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')


def upgrade() -> None:
    with op.batch_alter_table('leases') as batch_op:
        batch_op.add_column(sa.Column('status_changed_at', DATETIME,
                                      nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('leases') as batch_op:
        batch_op.drop_column('status_changed_at')
