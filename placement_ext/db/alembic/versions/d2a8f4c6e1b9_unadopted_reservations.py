"""Expand: reservations of a host service's own plugin (Blazar's) that
could not be adopted, and why, for ``lease reconcile``.

Revision ID: d2a8f4c6e1b9
Revises: b2f7d3e9c102
Create Date: 2026-11-27 20:10:00.000000

"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# revision identifiers, used by Alembic.
revision = 'd2a8f4c6e1b9'
down_revision = 'b2f7d3e9c102'
branch_labels = None
depends_on = None

# Frozen copy of the model type (see the initial schema).
DATETIME = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')


def upgrade() -> None:
    op.create_table(
        'unadopted_reservations',
        sa.Column('reservation_id', sa.String(36), nullable=False),
        sa.Column('lease_id', sa.String(36), nullable=False),
        sa.Column('reason', sa.Text(), nullable=False),
        sa.Column('created_at', DATETIME, nullable=False),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('reservation_id',
                                name=op.f('pk_unadopted_reservations')),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')


def downgrade() -> None:
    op.drop_table('unadopted_reservations')
