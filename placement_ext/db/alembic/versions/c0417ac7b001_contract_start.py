"""Start of the contract branch: nothing to remove yet.

A contract revision removes what the code of the release it ships with
no longer reads (a column, a table, a constraint the old code relied
on). ``placement-ext-manage db contract`` runs it only once every live
service runs that release (see ``placement_ext.db.migration``).

Revision ID: c0417ac7b001
Revises: c4d9e1f7a2b6
Create Date: 2026-11-27 20:20:00.000000

"""

# revision identifiers, used by Alembic.
revision = 'c0417ac7b001'
down_revision = 'c4d9e1f7a2b6'
branch_labels = ('contract',)
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
