"""ONAP HAS homing plans and their answers.

Revision ID: 8d4b6f1a2c70
Revises: 5c1e7d2f9a30
Create Date: 2026-11-25 14:40:00.000000

"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision = '8d4b6f1a2c70'
down_revision = '5c1e7d2f9a30'
branch_labels = None
depends_on = None

# Frozen copies of the model types (see the initial schema).
DATETIME = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')
JSON = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), 'postgresql')
LONG_TEXT = sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql', 'mariadb')


def upgrade() -> None:
    op.create_table(
        'homing_plans',
        sa.Column('id', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('template', JSON, nullable=False),
        sa.Column('solution_limit', sa.Integer(), nullable=False),
        sa.Column('recommendations', JSON, nullable=True),
        sa.Column('message', LONG_TEXT, nullable=True),
        sa.Column('detail', JSON, nullable=True),
        sa.Column('created_at', DATETIME, nullable=False),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_homing_plans')),
        sa.CheckConstraint(
            "status IN ('solving', 'done', 'not found', 'error')",
            name=op.f('ck_homing_plans_status')),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')


def downgrade() -> None:
    op.drop_table('homing_plans')
