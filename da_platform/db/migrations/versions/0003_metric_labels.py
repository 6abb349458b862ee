"""Labels from the data for the adapted metrics: per-reference yes/no labels and entities, per-answer labels

Revision ID: 0003
Revises: 0002
"""
import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('reference', schema=None) as batch_op:
        batch_op.add_column(sa.Column('yes_no_label', sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column('entities', sa.JSON(), nullable=True))
    with op.batch_alter_table('answer', schema=None) as batch_op:
        batch_op.add_column(sa.Column('yes_no_label', sa.String(length=20), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('answer', schema=None) as batch_op:
        batch_op.drop_column('yes_no_label')
    with op.batch_alter_table('reference', schema=None) as batch_op:
        batch_op.drop_column('entities')
        batch_op.drop_column('yes_no_label')
