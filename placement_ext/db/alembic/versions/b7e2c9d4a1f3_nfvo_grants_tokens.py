"""placement-ext-nfvo's Grants and OAuth 2.0 tokens.

Revision ID: b7e2c9d4a1f3
Revises: 3f6b2a9d1e47
Create Date: 2026-11-26 09:00:00.000000

"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision = 'b7e2c9d4a1f3'
down_revision = '3f6b2a9d1e47'
branch_labels = None
depends_on = None

# Frozen copies of the model types (see the initial schema).
DATETIME = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')
JSON = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), 'postgresql')


def upgrade() -> None:
    op.create_table(
        'nfvo_grants',
        sa.Column('id', sa.String(36), nullable=False),
        sa.Column('vnf_instance_id', sa.String(255), nullable=False),
        sa.Column('vnf_lcm_op_occ_id', sa.String(255), nullable=False),
        sa.Column('operation', sa.String(32), nullable=False),
        sa.Column('grant_request', JSON, nullable=False),
        sa.Column('grant_body', JSON, nullable=False),
        sa.Column('created_at', DATETIME, nullable=False),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_nfvo_grants')),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index(op.f('ix_nfvo_grants_vnf_lcm_op_occ_id'), 'nfvo_grants',
                    ['vnf_lcm_op_occ_id'])
    op.create_table(
        'nfvo_tokens',
        sa.Column('digest', sa.String(64), nullable=False),
        sa.Column('client_id', sa.String(255), nullable=False),
        sa.Column('expires_at', DATETIME, nullable=False),
        sa.Column('created_at', DATETIME, nullable=False),
        sa.Column('updated_at', DATETIME, nullable=True),
        sa.PrimaryKeyConstraint('digest', name=op.f('pk_nfvo_tokens')),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index(op.f('ix_nfvo_tokens_expires_at'), 'nfvo_tokens',
                    ['expires_at'])


def downgrade() -> None:
    op.drop_table('nfvo_tokens')
    op.drop_table('nfvo_grants')
