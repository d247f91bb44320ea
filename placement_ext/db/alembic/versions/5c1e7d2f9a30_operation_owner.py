"""Operation ownership: which conductor drives it, and its heartbeat.

Revision ID: 5c1e7d2f9a30
Revises: 24a7a0aec54a
Create Date: 2026-11-23 09:10:00.000000

"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# revision identifiers, used by Alembic.
revision = '5c1e7d2f9a30'
down_revision = '24a7a0aec54a'
branch_labels = None
depends_on = None

# Frozen copy of the model type (see the initial schema).
DATETIME = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')


def upgrade() -> None:
    with op.batch_alter_table('operations') as batch_op:
        batch_op.add_column(sa.Column('owner', sa.String(255),
                                      nullable=True))
        batch_op.add_column(sa.Column('heartbeat_at', DATETIME,
                                      nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('operations') as batch_op:
        batch_op.drop_column('heartbeat_at')
        batch_op.drop_column('owner')
