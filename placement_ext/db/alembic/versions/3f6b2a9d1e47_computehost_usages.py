"""Placement's last view of each host, kept by provider generation.

Revision ID: 3f6b2a9d1e47
Revises: 8d4b6f1a2c70
Create Date: 2026-11-25 15:20:00.000000

"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision = '3f6b2a9d1e47'
down_revision = '8d4b6f1a2c70'
branch_labels = None
depends_on = None

# Frozen copies of the model types (see the initial schema).
DATETIME = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')
JSON = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), 'postgresql')


def upgrade() -> None:
    op.create_table(
        'computehost_usages',
        sa.Column('compute_host_id', sa.Integer(), nullable=False),
        sa.Column('provider_generation', sa.Integer(), nullable=False),
        sa.Column('inventories', JSON, nullable=False),
        sa.Column('usages', JSON, nullable=False),
        sa.Column('reservation_usages', JSON, nullable=False),
        sa.Column('created_at', DATETIME, nullable=False),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('compute_host_id',
                                name=op.f('pk_computehost_usages')),
        sa.ForeignKeyConstraint(
            ['compute_host_id'], ['computehosts.id'], ondelete='CASCADE',
            name=op.f('fk_computehost_usages_compute_host_id_computehosts')),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')


def downgrade() -> None:
    op.drop_table('computehost_usages')
