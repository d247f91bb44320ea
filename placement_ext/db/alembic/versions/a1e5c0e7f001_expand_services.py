"""Start of the expand branch: the ``services`` table, where each
running service records the version of its code and its heartbeat.

The history up to c4d9e1f7a2b6 is shared by both branches: every one of
those revisions only added (tables, columns, a widened CHECK), so old
code ran on their result; from here on an additive change goes to the
``expand`` branch, a removal to ``contract`` (see
``placement_ext.db.migration``).

Revision ID: a1e5c0e7f001
Revises: c4d9e1f7a2b6
Create Date: 2026-11-27 20:20:00.000000

"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# revision identifiers, used by Alembic.
revision = 'a1e5c0e7f001'
down_revision = 'c4d9e1f7a2b6'
branch_labels = ('expand',)
depends_on = None

# Frozen copy of the model type (see the initial schema).
DATETIME = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')


def upgrade() -> None:
    op.create_table(
        'services',
        sa.Column('id', sa.Integer, autoincrement=True, nullable=False),
        sa.Column('binary', sa.String(64), nullable=False),
        sa.Column('host', sa.String(255), nullable=False),
        sa.Column('topic', sa.String(255), nullable=False),
        sa.Column('version', sa.Integer, nullable=False),
        sa.Column('heartbeat_at', DATETIME, nullable=False),
        sa.Column('created_at', DATETIME, nullable=False),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_services')),
        sa.UniqueConstraint('binary', 'host',
                            name=op.f('uq_services_binary_host')),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')


def downgrade() -> None:
    op.drop_table('services')
