"""Contract: every lease has ``status_changed_at`` (NOT NULL). A 1.0.0
service would insert leases without it, so this runs only once none is
live and the online data migration filled every row
(``placement-ext-manage db contract`` checks both).

Revision ID: d3c8a4f1e203
Revises: c0417ac7b001
Create Date: 2026-11-27 20:40:00.000000

"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# revision identifiers, used by Alembic.
revision = 'd3c8a4f1e203'
down_revision = 'c0417ac7b001'
branch_labels = None
# the column it constrains: alembic runs that expand first
depends_on = 'b2f7d3e9c102'

# Frozen copy of the model type (see the initial schema).
DATETIME = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')


def upgrade() -> None:
    with op.batch_alter_table('leases') as batch_op:
        batch_op.alter_column('status_changed_at', existing_type=DATETIME,
                              nullable=False)


def downgrade() -> None:
    with op.batch_alter_table('leases') as batch_op:
        batch_op.alter_column('status_changed_at', existing_type=DATETIME,
                              nullable=True)
