"""test_set.left_out_ids: the ids a standard format's test set left out at import (no reference answers)

Revision ID: 0011
Revises: 0010
"""
import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('test_set', schema=None) as batch_op:
        batch_op.add_column(sa.Column('left_out_ids', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('test_set', schema=None) as batch_op:
        batch_op.drop_column('left_out_ids')
