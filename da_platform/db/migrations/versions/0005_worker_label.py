"""worker.label: the researcher's own name for an invited own-pool worker (``invite --label``)

Revision ID: 0005
Revises: 0004
"""
import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('worker', schema=None) as batch_op:
        batch_op.add_column(sa.Column('label', sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('worker', schema=None) as batch_op:
        batch_op.drop_column('label')
