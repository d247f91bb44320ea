"""The Nova server group of an instance reservation.

Revision ID: 6e2c4a8b1f53
Revises: b7e2c9d4a1f3
Create Date: 2026-11-26 08:45:00.000000

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '6e2c4a8b1f53'
down_revision = 'b7e2c9d4a1f3'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NULL: no affinity policy, or a lease made before the column (its
    # group is made at its next start or by "lease reconcile --repair")
    with op.batch_alter_table('instance_reservations') as batch:
        batch.add_column(sa.Column('server_group_id', sa.String(36),
                                   nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('instance_reservations') as batch:
        batch.drop_column('server_group_id')
