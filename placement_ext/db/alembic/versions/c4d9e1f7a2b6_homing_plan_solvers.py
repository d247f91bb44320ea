"""HAS plans solved asynchronously: HAS's statuses, the plan's timeout
and deadline, and which homing API process solves it (owner and
heartbeat), so any process serves and resumes any plan.

Revision ID: c4d9e1f7a2b6
Revises: 9e2c4a7b5d13
Create Date: 2026-11-27 17:20:00.000000

"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# revision identifiers, used by Alembic.
revision = 'c4d9e1f7a2b6'
down_revision = '9e2c4a7b5d13'
branch_labels = None
depends_on = None

# Frozen copy of the model type (see the initial schema).
DATETIME = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb')
OLD_STATUSES = "status IN ('solving', 'done', 'not found', 'error')"
NEW_STATUSES = ("status IN ('template', 'translated', 'solving', 'solved', "
                "'done', 'not found', 'error')")


def upgrade() -> None:
    with op.batch_alter_table('homing_plans') as batch_op:
        batch_op.drop_constraint(op.f('ck_homing_plans_status'), type_='check')
        batch_op.create_check_constraint(op.f('ck_homing_plans_status'),
                                         NEW_STATUSES)
        batch_op.add_column(sa.Column('timeout', sa.Integer(),
                                      server_default='300', nullable=False))
        batch_op.add_column(sa.Column('deadline_at', DATETIME,
                                      nullable=True))
        batch_op.add_column(sa.Column('attempts', sa.Integer(),
                                      server_default='0', nullable=False))
        batch_op.add_column(sa.Column('owner', sa.String(255),
                                      nullable=True))
        batch_op.add_column(sa.Column('heartbeat_at', DATETIME,
                                      nullable=True))
        batch_op.create_check_constraint(
            op.f('ck_homing_plans_timeout_positive'), 'timeout > 0')
        batch_op.create_check_constraint(
            op.f('ck_homing_plans_attempts_nonnegative'), 'attempts >= 0')
        batch_op.create_index(op.f('ix_homing_plans_status'), ['status'])


def downgrade() -> None:
    # plans in a status the old schema lacks end as errors
    op.execute("UPDATE homing_plans SET status = 'error' "
               "WHERE status IN ('template', 'translated', 'solved')")
    with op.batch_alter_table('homing_plans') as batch_op:
        batch_op.drop_index(op.f('ix_homing_plans_status'))
        batch_op.drop_constraint(op.f('ck_homing_plans_attempts_nonnegative'),
                                 type_='check')
        batch_op.drop_constraint(op.f('ck_homing_plans_timeout_positive'),
                                 type_='check')
        for column in ('heartbeat_at', 'owner', 'attempts', 'deadline_at',
                       'timeout'):
            batch_op.drop_column(column)
        batch_op.drop_constraint(op.f('ck_homing_plans_status'), type_='check')
        batch_op.create_check_constraint(op.f('ck_homing_plans_status'),
                                         OLD_STATUSES)
